// The loader's first steps: a source's required files, agency.txt,
// stops.txt, routes.txt and the calendars.

#include "transitd/offline/gtfs_builder.hpp"
#include "transitd/messages/limits.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>

#include <date/date.h>
#include <date/tz.h>

namespace transitd::gtfs::detail {

std::optional<failure> builder::read_source(feed_files& feed,
                                            std::size_t source) {
  source_keys keys;
  for (const char* file : {"agency.txt", "stops.txt", "routes.txt",
                           "trips.txt", "stop_times.txt"})
    if (!feed.has(file))
      return make_failure(ec::data_not_available,
                          "GTFS " + feed.describe() + " lacks the required "
                            + "file " + file,
                          "fix or replace the feed");
  if (!feed.has("calendar.txt") && !feed.has("calendar_dates.txt"))
    return make_failure(ec::data_not_available,
                        "GTFS " + feed.describe()
                          + " has neither calendar.txt nor calendar_dates.txt",
                        "fix or replace the feed");

  uint16_t agency_zone = 0;
  if (auto bad = read_agency(feed, agency_zone))
    return bad;
  if (auto bad = read_stops(feed, keys, agency_zone, source))
    return bad;
  if (auto bad = read_routes(feed, keys, source))
    return bad;
  // Services of this source are numbered after those read before it.
  keys.service_base = static_cast<uint32_t>(
    std::accumulate(calendars.begin(), calendars.end(), uint32_t{0},
                    [](uint32_t m, const calendar_row& c) {
                      return std::max(m, c.service + 1);
                    }));
  for (auto& e : exceptions)
    keys.service_base = std::max(keys.service_base, std::get<0>(e) + 1);
  if (feed.has("calendar.txt"))
    if (auto bad = read_calendar(feed, keys))
      return bad;
  if (feed.has("calendar_dates.txt"))
    if (auto bad = read_calendar_dates(feed, keys))
      return bad;
  if (feed.has("shapes.txt"))
    if (auto bad = read_shapes(feed, keys))
      return bad;
  if (auto bad = read_trips(feed, keys, agency_zone, source))
    return bad;
  if (auto bad = read_stop_times(feed, keys))
    return bad;
  if (feed.has("frequencies.txt"))
    if (auto bad = read_frequencies(feed, keys))
      return bad;
  if (feed.has("transfers.txt"))
    if (auto bad = read_transfers(feed, keys))
      return bad;
  if (feed.has("feed_info.txt"))
    read_feed_info(feed);
  if (feed.has("translations.txt"))
    if (auto bad = read_translations(feed, keys))
      return bad;
  return std::nullopt;
}

uint32_t builder::service_of(source_keys& keys, std::string_view id) {
  auto [it, added] = keys.services.emplace(
    std::string{id}, static_cast<uint32_t>(keys.services.size()));
  return keys.service_base + it->second;
}

/// agency.txt: the time zone of every agency (GTFS: all the same).
std::optional<failure> builder::read_agency(feed_files& feed,
                                            uint16_t& agency_zone) {
  table_reader t{feed, "agency.txt", report, options.cancel.get()};
  if (auto bad = t.start({"agency_timezone"}))
    return bad;
  auto tz = t.column("agency_timezone");
  auto agency_name = t.column("agency_name");
  auto agency_lang = t.column("agency_lang");
  bool found = false;
  while (t.next()) {
    if (out->language.empty())
      out->language = lower_ascii(t.get(agency_lang));
    std::string name{t.get(agency_name)};
    auto& agencies = out->agencies;
    if (!name.empty() && agencies.size() < 1000
        && std::find(agencies.begin(), agencies.end(), name) == agencies.end())
      agencies.push_back(std::move(name));
    std::string name_of_zone{t.get(tz)};
    if (!found && !name_of_zone.empty()) {
      try {
        date::locate_zone(name_of_zone);
      } catch (const std::exception&) {
        return t.problem("names an unknown time zone \"" + name_of_zone
                         + "\"");
      }
      agency_zone = zone(name_of_zone);
      found = true;
    }
  }
  if (auto bad = t.finish())
    return bad;
  if (!found)
    return t.problem("gives no agency_timezone");
  return std::nullopt;
}

/// stops.txt: stops with their parents, in the agency's zone unless they
/// name their own.
std::optional<failure> builder::read_stops(feed_files& feed,
                                           source_keys& keys,
                                           uint16_t agency_zone,
                                           std::size_t source) {
  table_reader t{feed, "stops.txt", report, options.cancel.get()};
  if (auto bad = t.start({"stop_id", "stop_lat", "stop_lon"}))
    return bad;
  auto id = t.column("stop_id");
  auto name_col = t.column("stop_name");
  auto lat = t.column("stop_lat");
  auto lon = t.column("stop_lon");
  auto type = t.column("location_type");
  auto parent = t.column("parent_station");
  auto platform = t.column("platform_code");
  auto wheelchair = t.column("wheelchair_boarding");
  auto stop_tz = t.column("stop_timezone");
  std::vector<std::pair<uint32_t, std::string>> parents;
  while (t.next()) {
    std::string stop_id{t.get(id)};
    if (stop_id.empty()) {
      t.skip("empty stop_id");
      continue;
    }
    stop s;
    s.location_type = static_cast<uint8_t>(number_or<int>(t.get(type), 0));
    if (!parse_number(t.get(lat), s.position.lat)
        || !parse_number(t.get(lon), s.position.lon)
        || !(std::abs(s.position.lat) <= 90)
        || !(std::abs(s.position.lon) <= 180)) {
      // Generic nodes and boarding areas may lack them; routing needs
      // none of those, and a stop without a place cannot be routed.
      if (s.location_type <= 2)
        t.skip("stop " + stop_id + " has no valid stop_lat/stop_lon");
      continue;
    }
    if (keys.stops.count(stop_id) != 0) {
      t.skip("duplicate stop_id " + stop_id);
      continue;
    }
    s.name = std::string{t.get(name_col)};
    s.platform_code = std::string{t.get(platform)};
    s.wheelchair_boarding
      = static_cast<uint8_t>(std::clamp(number_or<int>(t.get(wheelchair), 0),
                                        0, 2));
    s.zone = agency_zone;
    std::string tz{t.get(stop_tz)};
    if (!tz.empty()) {
      try {
        date::locate_zone(tz);
        s.zone = zone(tz);
      } catch (const std::exception&) {
        t.skip("stop " + stop_id + " names an unknown stop_timezone");
      }
    }
    // Exposed ids stay the feed's. An id an earlier merged source took:
    // the same stop when of the same kind and near it (agencies sharing a
    // numbering, as New York's bus feeds do, spell and place it a little
    // differently), its calls joining the first definition's; else this
    // one gets the source's number.
    s.id = stop_id;
    if (auto taken = stop_ids.find(stop_id); taken != stop_ids.end()) {
      const auto& k = out->stops[taken->second];
      if (k.location_type == s.location_type
          && distance_m(k.position, s.position) <= same_stop_meters) {
        keys.stops.emplace(stop_id, taken->second);
        continue;
      }
      s.id += merged_suffix(source + 1);
    }
    auto index = static_cast<uint32_t>(out->stops.size());
    keys.stops.emplace(stop_id, index);
    stop_ids.emplace(s.id, index);
    std::string parent_id{t.get(parent)};
    if (!parent_id.empty())
      parents.emplace_back(index, std::move(parent_id));
    out->stops.push_back(std::move(s));
  }
  if (auto bad = t.finish())
    return bad;
  link_parents(keys, parents);
  return std::nullopt;
}

void builder::link_parents(
  const source_keys& keys,
  const std::vector<std::pair<uint32_t, std::string>>& parents) {
  for (const auto& [child, parent_id] : parents) {
    auto it = keys.stops.find(parent_id);
    if (it == keys.stops.end() || it->second == child)
      continue; // an unknown parent: the stop stands alone
    out->stops[child].parent = it->second;
  }
  // A station's parent chain is at most one level in GTFS; cut cycles.
  for (auto& s : out->stops)
    if (s.parent != none && out->stops[s.parent].parent != none
        && out->stops[out->stops[s.parent].parent].parent != none)
      s.parent = none;
}

/// routes.txt.
std::optional<failure> builder::read_routes(feed_files& feed,
                                            source_keys& keys,
                                            std::size_t source) {
  table_reader t{feed, "routes.txt", report, options.cancel.get()};
  if (auto bad = t.start({"route_id", "route_type"}))
    return bad;
  auto id = t.column("route_id");
  auto short_name = t.column("route_short_name");
  auto long_name = t.column("route_long_name");
  auto type = t.column("route_type");
  auto color = t.column("route_color");
  auto text_color = t.column("route_text_color");
  // A hex colour as GTFS writes it (RRGGBB), else none.
  while (t.next()) {
    route r;
    r.id = std::string{t.get(id)};
    if (r.id.empty() || keys.routes.count(r.id) != 0) {
      t.skip("empty or duplicate route_id");
      continue;
    }
    if (!parse_number(t.get(type), r.route_type) || r.route_type < 0) {
      t.skip("route " + r.id + " has no valid route_type");
      continue;
    }
    r.mode = mode_of_route_type(r.route_type);
    r.short_name = std::string{t.get(short_name)};
    r.long_name = std::string{t.get(long_name)};
    r.color = colour_hex(t.get(color));
    r.text_color = colour_hex(t.get(text_color));
    // An id an earlier source took: the same route when defined the same
    // (its trips join it), else this one gets the source's number.
    const auto source_id = r.id;
    if (auto taken = route_ids.find(r.id); taken != route_ids.end()) {
      const auto& k = out->routes[taken->second];
      if (k.short_name == r.short_name && k.long_name == r.long_name
          && k.route_type == r.route_type && k.color == r.color
          && k.text_color == r.text_color) {
        keys.routes.emplace(source_id, taken->second);
        continue;
      }
      r.id += merged_suffix(source + 1);
    }
    const auto index = static_cast<uint32_t>(out->routes.size());
    keys.routes.emplace(source_id, index);
    route_ids.emplace(r.id, index);
    out->routes.push_back(std::move(r));
  }
  if (auto bad = t.finish())
    return bad;
  return std::nullopt;
}

/// calendar.txt: weekly services and their date ranges.
std::optional<failure> builder::read_calendar(feed_files& feed,
                                              source_keys& keys) {
  table_reader t{feed, "calendar.txt", report, options.cancel.get()};
  if (auto bad = t.start({"service_id", "monday", "tuesday", "wednesday",
                          "thursday", "friday", "saturday", "sunday",
                          "start_date", "end_date"}))
    return bad;
  auto id = t.column("service_id");
  std::optional<std::size_t> days[7] = {
    t.column("monday"), t.column("tuesday"), t.column("wednesday"),
    t.column("thursday"), t.column("friday"), t.column("saturday"),
    t.column("sunday")};
  auto start = t.column("start_date");
  auto end = t.column("end_date");
  while (t.next()) {
    auto from = parse_gtfs_date(t.get(start));
    auto to = parse_gtfs_date(t.get(end));
    if (t.get(id).empty() || !from || !to || *to < *from) {
      t.skip("calendar row without a service_id or valid dates");
      continue;
    }
    calendar_row c{service_of(keys, t.get(id)), 0, *from, *to};
    for (int d = 0; d < 7; ++d)
      if (t.get(days[d]) == "1")
        c.weekdays |= static_cast<uint8_t>(1u << d);
    calendars.push_back(c);
    min_day = std::min(min_day, *from);
    max_day = std::max(max_day, *to);
  }
  if (auto bad = t.finish())
    return bad;
  return std::nullopt;
}

/// calendar_dates.txt: services added or removed on a date.
std::optional<failure> builder::read_calendar_dates(feed_files& feed,
                                                    source_keys& keys) {
  table_reader t{feed, "calendar_dates.txt", report, options.cancel.get()};
  if (auto bad = t.start({"service_id", "date", "exception_type"}))
    return bad;
  auto id = t.column("service_id");
  auto day = t.column("date");
  auto type = t.column("exception_type");
  while (t.next()) {
    auto d = parse_gtfs_date(t.get(day));
    auto kind = t.get(type);
    if (t.get(id).empty() || !d || (kind != "1" && kind != "2")) {
      t.skip("calendar_dates row without a service_id, date or "
             "exception_type 1/2");
      continue;
    }
    exceptions.emplace_back(service_of(keys, t.get(id)), *d, kind == "1");
    if (kind == "1") {
      min_day = std::min(min_day, *d);
      max_day = std::max(max_day, *d);
    }
  }
  if (auto bad = t.finish())
    return bad;
  return std::nullopt;
}

} // namespace transitd::gtfs::detail
