// The loader's steps for the trips: trips.txt, stop_times.txt,
// frequencies.txt, transfers.txt and feed_info.txt.

#include "transitd/offline/gtfs_builder.hpp"
#include "transitd/messages/limits.hpp"

#include <algorithm>
#include <iterator>
#include <numeric>

#include <date/date.h>
#include <date/tz.h>

namespace transitd::gtfs::detail {

/// trips.txt: each trip in the zone of its feed's agency.
std::optional<failure> builder::read_trips(feed_files& feed,
                                           source_keys& keys,
                                           uint16_t agency_zone,
                                           std::size_t source) {
  table_reader t{feed, "trips.txt", report, options.cancel.get()};
  if (auto bad = t.start({"route_id", "service_id", "trip_id"}))
    return bad;
  auto route_col = t.column("route_id");
  auto service = t.column("service_id");
  auto id = t.column("trip_id");
  auto headsign = t.column("trip_headsign");
  auto direction = t.column("direction_id");
  auto wheelchair = t.column("wheelchair_accessible");
  auto shape_col = t.column("shape_id");
  while (t.next()) {
    trip x;
    x.id = std::string{t.get(id)};
    auto r = keys.routes.find(std::string{t.get(route_col)});
    if (x.id.empty() || keys.trips.count(x.id) != 0) {
      t.skip("empty or duplicate trip_id");
      continue;
    }
    if (r == keys.routes.end()) {
      t.skip("trip " + x.id + " names an unknown route_id");
      continue;
    }
    auto s = keys.services.find(std::string{t.get(service)});
    if (s == keys.services.end()) {
      t.skip("trip " + x.id + " names a service_id without a calendar");
      continue;
    }
    x.route = r->second;
    x.service = keys.service_base + s->second;
    x.headsign = std::string{t.get(headsign)};
    x.direction = t.get(direction) == "1" ? 1 : 0;
    x.wheelchair = static_cast<uint8_t>(
      std::clamp(number_or<int>(t.get(wheelchair), 0), 0, 2));
    if (auto sh = t.get(shape_col); !sh.empty() && !keys.shapes.empty())
      if (auto it = keys.shapes.find(std::string{sh});
          it != keys.shapes.end())
        x.shape = it->second;
    const auto index = static_cast<uint32_t>(out->trips.size());
    keys.trips.emplace(x.id, index);
    out->trips.push_back(std::move(x));
    trip_zones.push_back(agency_zone);
    // An id an earlier source took (several agencies numbering their
    // trips 1, 2, ...): exposed with this source's number.
    // (Again while the id so numbered is one an earlier source spelled
    // so itself: each trip keeps an id of its own.)
    while (!trip_ids.insert(index).second)
      out->trips.back().id += merged_suffix(source + 1);
  }
  if (auto bad = t.finish())
    return bad;
  return std::nullopt;
}

/// stop_times.txt.
std::optional<failure> builder::read_stop_times(feed_files& feed,
                                                source_keys& keys) {
  table_reader t{feed, "stop_times.txt", report, options.cancel.get()};
  if (auto bad = t.start({"trip_id", "stop_id", "stop_sequence",
                          "arrival_time", "departure_time"}))
    return bad;
  auto trip_col = t.column("trip_id");
  auto stop_col = t.column("stop_id");
  auto sequence = t.column("stop_sequence");
  auto arrival = t.column("arrival_time");
  auto departure = t.column("departure_time");
  auto pickup = t.column("pickup_type");
  auto drop_off = t.column("drop_off_type");
  std::string key;
  uint32_t last_trip = none;
  std::string last_trip_id;
  while (t.next()) {
    auto trip_id = t.get(trip_col);
    uint32_t trip_index = last_trip;
    if (trip_id != last_trip_id) {
      key.assign(trip_id);
      auto it = keys.trips.find(key);
      trip_index = it == keys.trips.end() ? none : it->second;
      last_trip = trip_index;
      last_trip_id = key;
    }
    if (trip_index == none) {
      t.skip("stop time of an unknown trip_id");
      continue;
    }
    key.assign(t.get(stop_col));
    auto s = keys.stops.find(key);
    if (s == keys.stops.end()) {
      t.skip("stop time at an unknown stop_id " + key);
      continue;
    }
    uint32_t seq = 0;
    if (!parse_number(t.get(sequence), seq)) {
      t.skip("stop time without a valid stop_sequence");
      continue;
    }
    raw_stop_time st{trip_index, seq, s->second, -1, -1, true, true};
    auto a = t.get(arrival);
    auto d = t.get(departure);
    if (!a.empty()) {
      auto v = parse_gtfs_time(a);
      if (!v) {
        t.skip("malformed arrival_time");
        continue;
      }
      st.arrival = *v;
    }
    if (!d.empty()) {
      auto v = parse_gtfs_time(d);
      if (!v) {
        t.skip("malformed departure_time");
        continue;
      }
      st.departure = *v;
    }
    if (st.arrival < 0)
      st.arrival = st.departure;
    if (st.departure < 0)
      st.departure = st.arrival;
    st.pickup = t.get(pickup) != "1";
    st.drop_off = t.get(drop_off) != "1";
    stop_times.push_back(st);
  }
  if (auto bad = t.finish())
    return bad;
  return std::nullopt;
}

/// frequencies.txt: trips run every headway_secs within a time range.
std::optional<failure> builder::read_frequencies(feed_files& feed,
                                                 source_keys& keys) {
  table_reader t{feed, "frequencies.txt", report, options.cancel.get()};
  if (auto bad = t.start({"trip_id", "start_time", "end_time",
                          "headway_secs"}))
    return bad;
  auto id = t.column("trip_id");
  auto start = t.column("start_time");
  auto end = t.column("end_time");
  auto headway = t.column("headway_secs");
  while (t.next()) {
    auto it = keys.trips.find(std::string{t.get(id)});
    auto from = parse_gtfs_time(t.get(start));
    auto to = parse_gtfs_time(t.get(end));
    int32_t every = 0;
    if (it == keys.trips.end() || !from || !to || *to <= *from
        || !parse_number(t.get(headway), every) || every < 60) {
      t.skip("frequency without a known trip, a time range or a headway of "
             "at least 60 s");
      continue;
    }
    frequencies.push_back({it->second, *from, *to, every});
  }
  if (auto bad = t.finish())
    return bad;
  return std::nullopt;
}

/// transfers.txt: the ones between stops (trip-to-trip and route
/// transfers name none).
std::optional<failure> builder::read_transfers(feed_files& feed,
                                               source_keys& keys) {
  table_reader t{feed, "transfers.txt", report, options.cancel.get()};
  if (auto bad = t.start({"from_stop_id", "to_stop_id"}))
    return bad;
  auto from = t.column("from_stop_id");
  auto to = t.column("to_stop_id");
  auto type = t.column("transfer_type");
  auto time = t.column("min_transfer_time");
  // A transfer between given trips or routes holds for them alone; the
  // router knows transfers between stops only, so they are left out
  // rather than read as the stops' own (the Long Island Rail Road lists
  // 383 trip-to-trip transfers at Jamaica beside the station's five
  // minutes, which they would have overwritten with none).
  const std::optional<std::size_t> narrowing[] = {
    t.column("from_trip_id"), t.column("to_trip_id"),
    t.column("from_route_id"), t.column("to_route_id")};
  while (t.next()) {
    if (std::any_of(std::begin(narrowing), std::end(narrowing),
                    [&](const auto& c) { return !t.get(c).empty(); }))
      continue;
    auto a = keys.stops.find(std::string{t.get(from)});
    auto b = keys.stops.find(std::string{t.get(to)});
    if (a == keys.stops.end() || b == keys.stops.end())
      continue; // a stop of no trip read, or unknown
    raw_transfer x{a->second, b->second, number_or<int32_t>(t.get(type), 0),
                   std::max(0, number_or<int32_t>(t.get(time), 0))};
    transfers.push_back(x);
  }
  if (auto bad = t.finish())
    return bad;
  return std::nullopt;
}

/// feed_info.txt: the dates the feed says it covers, unless the calendars
/// already gave them.
void builder::read_feed_info(feed_files& feed) {
  table_reader t{feed, "feed_info.txt", report, options.cancel.get()};
  if (!t.start({})) {
    auto start = t.column("feed_start_date");
    auto end = t.column("feed_end_date");
    auto lang = t.column("feed_lang");
    if (t.next()) {
      // "mul": several languages, none the feed's own (agency_lang then).
      auto feed_lang = lower_ascii(t.get(lang));
      if (!feed_lang.empty() && feed_lang != "mul")
        out->language = feed_lang;
      if (auto d = parse_gtfs_date(t.get(start)); d && report.first_day.empty())
        report.first_day = date::format("%F", date::sys_days{date::days{*d}});
      if (auto d = parse_gtfs_date(t.get(end)); d && report.last_day.empty())
        report.last_day = date::format("%F", date::sys_days{date::days{*d}});
    }
  }
}

} // namespace transitd::gtfs::detail

namespace transitd::gtfs::detail {

std::optional<failure> builder::read_translations(feed_files& feed,
                                                  source_keys& keys) {
  table_reader t{feed, "translations.txt", report, options.cancel.get()};
  // The older Google form (trans_id, lang) is not read.
  if (t.start({"table_name", "field_name", "language", "translation"}))
    return std::nullopt;
  auto table = t.column("table_name");
  auto field = t.column("field_name");
  auto lang = t.column("language");
  auto translation = t.column("translation");
  auto record = t.column("record_id");
  auto value = t.column("field_value");
  // Bounded: a feed cannot make the daemon hold more than this.
  constexpr std::size_t max_translations = 1'000'000;
  std::size_t count = 0;
  for (const auto& [l, texts] : out->translations)
    count += texts.size();
  while (t.next()) {
    auto language = lower_ascii(t.get(lang));
    std::string text{t.get(translation)};
    if (language.empty() || text.empty()) {
      t.skip("a translation without language or text");
      continue;
    }
    auto table_name = t.get(table);
    auto field_name = t.get(field);
    std::string original{t.get(value)};
    std::string record_id{t.get(record)};
    if (original.empty() && !record_id.empty()) {
      if (table_name == "stops" && field_name == "stop_name") {
        if (auto it = keys.stops.find(record_id); it != keys.stops.end())
          original = out->stops[it->second].name;
      } else if (table_name == "routes") {
        if (auto it = keys.routes.find(record_id); it != keys.routes.end()) {
          const auto& r = out->routes[it->second];
          original = field_name == "route_long_name"    ? r.long_name
                     : field_name == "route_short_name" ? r.short_name
                                                        : std::string{};
        }
      } else if (table_name == "trips" && field_name == "trip_headsign") {
        if (auto it = keys.trips.find(record_id); it != keys.trips.end())
          original = out->trips[it->second].headsign;
      }
    }
    bool wanted = (table_name == "stops" && field_name == "stop_name")
                  || (table_name == "routes"
                      && (field_name == "route_long_name"
                          || field_name == "route_short_name"))
                  || (table_name == "trips" && field_name == "trip_headsign")
                  || (table_name == "stop_times"
                      && field_name == "stop_headsign");
    if (!wanted || original.empty())
      continue; // another field, or a record this feed does not have
    if (count >= max_translations) {
      t.skip("more than a million translations");
      continue;
    }
    auto& texts = out->translations[language];
    if (texts.emplace(std::move(original), std::move(text)).second)
      ++count;
    if (std::find(out->languages.begin(), out->languages.end(), language)
        == out->languages.end()) {
      out->languages.push_back(language);
      std::sort(out->languages.begin(), out->languages.end());
    }
  }
  return t.finish();
}

} // namespace transitd::gtfs::detail
