#include "transitd/providers/tfl_network.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include <boost/json.hpp>

#include "transitd/messages/time.hpp"
#include "transitd/providers/json_read.hpp"
#include "transitd/providers/upstream_http.hpp"
#include "transitd/messages/limits.hpp"

namespace json = boost::json;

namespace transitd::tfl {

using upstream_json::find_path;
using upstream_json::int_at;
using upstream_json::text_at;

namespace {

bool upper_or_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c))
         || (c >= 'A' && c <= 'Z');
}

/// A hub, or a group of bus stops: its arrivals are its children's.
bool is_group(std::string_view id) {
  return id.rfind("HUB", 0) == 0 || id.rfind("490G", 0) == 0;
}

/// Stop types whose StopPoint answers Arrivals: stations and single stops.
bool has_arrivals(std::string_view stop_type) {
  return stop_type == "NaptanMetroStation" || stop_type == "NaptanRailStation"
         || stop_type == "NaptanPublicBusCoachTram"
         || stop_type == "NaptanFerryPort";
}

void collect_arrival_ids(const json::value& point, int depth,
                         std::vector<std::string>& out) {
  const auto* children = find_path(point, {"children"});
  if (children == nullptr || !children->is_array() || depth > 3)
    return;
  for (const auto& child : children->get_array()) {
    if (out.size() >= max_arrival_ids)
      return;
    auto id = text_at(child, {"naptanId"});
    if (!id.empty() && !is_group(id)
        && has_arrivals(text_at(child, {"stopType"}))) {
      if (std::find(out.begin(), out.end(), id) == out.end())
        out.push_back(id);
      continue;
    }
    collect_arrival_ids(child, depth + 1, out);
  }
}

std::string colour_of(std::string_view line);
transit_mode mode_of(std::string_view name);

/// The lines of a StopPoint and of its children, once each.
void collect_lines(const json::value& point, int depth,
                   std::vector<line_info>& out) {
  if (depth > 3)
    return;
  if (const auto* lines = find_path(point, {"lines"});
      lines && lines->is_array())
    for (const auto& l : lines->get_array()) {
      auto id = sanitize_upstream_text(text_at(l, {"id"}), 60);
      if (id.empty()
          || std::any_of(out.begin(), out.end(),
                         [&](const line_info& x) { return x.route_id == id; }))
        continue;
      line_info line;
      line.route_id = id;
      line.line = sanitize_upstream_text(text_at(l, {"name"}), 60);
      line.color = colour_of(id);
      out.push_back(std::move(line));
    }
  // The modes: lineModeGroups[{modeName, lineIdentifier[]}].
  if (const auto* groups = find_path(point, {"lineModeGroups"});
      groups && groups->is_array())
    for (const auto& g : groups->get_array()) {
      auto mode = mode_of(text_at(g, {"modeName"}));
      if (const auto* ids = find_path(g, {"lineIdentifier"});
          ids && ids->is_array())
        for (const auto& id : ids->get_array())
          for (auto& line : out)
            if (id.is_string() && line.route_id == id.get_string())
              line.mode = mode;
    }
  if (const auto* children = find_path(point, {"children"});
      children && children->is_array())
    for (const auto& c : children->get_array())
      collect_lines(c, depth + 1, out);
}

outcome<json::value> parse_body(const http_response& r) {
  json::error_code error;
  auto body = json::parse(r.body, error);
  if (error)
    return make_failure(ec::upstream_error, "TfL answered malformed JSON",
                        "retry later");
  return body;
}

/// A 200 answer whose body is a JSON list (`what`: for the message).
outcome<json::array> list_body(const http_response& r, const char* what) {
  if (r.status != 200)
    return failure_of(r);
  auto body = parse_body(r);
  if (!body)
    return body.error();
  if (!body->is_array())
    return make_failure(ec::upstream_error,
                        std::string{"TfL's "} + what + " answer is no list");
  return std::move(body->get_array());
}

transit_mode mode_of(std::string_view name) {
  if (name == "tube")
    return transit_mode::subway;
  if (name == "bus")
    return transit_mode::bus;
  if (name == "tram")
    return transit_mode::tram;
  if (name == "river-bus" || name == "river-tour")
    return transit_mode::ferry;
  if (name == "cable-car")
    return transit_mode::cable_car;
  if (name == "coach")
    return transit_mode::coach;
  // dlr, overground, elizabeth-line, national-rail.
  return transit_mode::rail;
}

/// The lines' published colours (TfL's brand guidelines), for views.
std::string colour_of(std::string_view line) {
  static const std::pair<std::string_view, std::string_view> colours[] = {
    {"bakerloo", "B36305"},     {"central", "E32017"},
    {"circle", "FFD300"},       {"district", "00782A"},
    {"hammersmith-city", "F3A9BB"}, {"jubilee", "A0A5A9"},
    {"metropolitan", "9B0056"}, {"northern", "000000"},
    {"piccadilly", "003688"},   {"victoria", "0098D4"},
    {"waterloo-city", "95CDBA"}, {"dlr", "00A4A7"},
    {"elizabeth", "6950A1"},    {"tram", "84B817"},
  };
  for (const auto& [id, colour] : colours)
    if (id == line)
      return std::string{colour};
  return {};
}

} // namespace

bool is_stop_id(std::string_view id) noexcept {
  if (id.size() >= 6 && id.size() <= 11 && id.rfind("HUB", 0) == 0)
    return std::all_of(id.begin() + 3, id.end(), upper_or_digit);
  if (id.size() < 6 || id.size() > 15)
    return false;
  for (std::size_t i = 0; i < 3; ++i)
    if (!std::isdigit(static_cast<unsigned char>(id[i])))
      return false;
  bool letter = false;
  for (char c : id.substr(3)) {
    if (!upper_or_digit(c))
      return false;
    letter = letter || (c >= 'A' && c <= 'Z');
  }
  return letter;
}

failure failure_of(const http_response& r) {
  if (r.status == 429 || r.status >= 500)
    return classify_http_failure(r, "TfL");
  // TfL's ApiError: {"httpStatusCode":..,"message":..}
  std::string message = "TfL answered HTTP " + std::to_string(r.status);
  json::error_code error;
  auto body = json::parse(r.body, error);
  if (!error)
    if (auto m = text_at(body, {"message"}); !m.empty())
      message += ": " + sanitize_upstream_text(m);
  return make_failure(ec::upstream_error, message);
}

std::string make_stop_point_target(std::string_view base_path,
                                   std::string_view id) {
  return std::string{base_path} + "/StopPoint/" + url_encode(id);
}

outcome<stop_point> parse_stop_point(const http_response& r,
                                     std::string_view id) {
  if (r.status == 404)
    return make_failure(ec::validation_error,
                        "TfL knows no stop \"" + std::string{id} + "\"",
                        "TfL stop ids look like 940GZZLUOXC (a station), "
                        "490008660N (a bus stop) or HUBOXC (a hub); find "
                        "them with planJourney's suggestions or TfL's "
                        "StopPoint search");
  if (r.status != 200)
    return failure_of(r);
  auto body = parse_body(r);
  if (!body)
    return body.error();
  if (!body->is_object())
    return make_failure(ec::upstream_error, "TfL's StopPoint is no object");
  stop_point out;
  out.id = text_at(*body, {"naptanId"});
  if (out.id.empty())
    out.id = std::string{id};
  out.name = sanitize_upstream_text(text_at(*body, {"commonName"}));
  out.position = {upstream_json::number_at(*body, {"lat"}).value_or(0),
                  upstream_json::number_at(*body, {"lon"}).value_or(0)};
  collect_lines(*body, 0, out.lines);
  if (is_group(id))
    collect_arrival_ids(*body, 0, out.arrival_ids);
  else
    out.arrival_ids.push_back(std::string{id});
  return out;
}

std::string make_arrivals_target(std::string_view base_path,
                                 const std::vector<std::string>& ids) {
  std::string joined;
  for (const auto& id : ids)
    joined += (joined.empty() ? "" : ",") + url_encode(id);
  return std::string{base_path} + "/StopPoint/" + joined + "/Arrivals";
}

outcome<std::vector<stop_time>> parse_arrivals(const http_response& r,
                                               int64_t& newest_ms) {
  auto body = list_body(r, "Arrivals");
  if (!body)
    return body.error();
  std::vector<stop_time> out;
  std::set<std::tuple<std::string, std::string, std::string, int64_t>> seen;
  for (const auto& p : *body) {
    auto expected = parse_iso8601(text_at(p, {"expectedArrival"}));
    if (!expected)
      continue; // a prediction without a time says nothing
    auto key = std::make_tuple(text_at(p, {"vehicleId"}),
                               text_at(p, {"lineId"}),
                               text_at(p, {"naptanId"}), *expected);
    if (!std::get<0>(key).empty() && !seen.insert(key).second)
      continue;
    stop_time t;
    t.line = sanitize_upstream_text(text_at(p, {"lineName"}), 40);
    if (t.line.empty())
      t.line = sanitize_upstream_text(std::get<1>(key), 40);
    t.mode = mode_of(text_at(p, {"modeName"}));
    t.headsign = sanitize_upstream_text(text_at(p, {"destinationName"}));
    if (t.headsign.empty())
      t.headsign = sanitize_upstream_text(text_at(p, {"towards"}));
    t.scheduled_departure = *expected;
    t.realtime_departure = *expected;
    t.realtime = true;
    t.prediction_only = true;
    auto platform = sanitize_upstream_text(text_at(p, {"platformName"}), 60);
    if (!platform.empty() && platform != "null")
      t.platform = platform;
    if (auto stamp = parse_iso8601(text_at(p, {"timestamp"})))
      newest_ms = std::max(newest_ms, *stamp * 1000);
    out.push_back(std::move(t));
  }
  return out;
}

std::string line_id_of(std::string_view name) {
  auto id = lower_ascii(name);
  auto replace = [&](std::string_view from, std::string_view to) {
    for (auto at = id.find(from); at != std::string::npos;
         at = id.find(from, at + to.size()))
      id.replace(at, from.size(), to);
  };
  replace(" & ", "-");
  replace(" and ", "-");
  if (id.size() > 5 && id.compare(id.size() - 5, 5, " line") == 0)
    id.resize(id.size() - 5);
  replace(" ", "-");
  return id;
}

std::string make_route_sequence_target(std::string_view base_path,
                                       std::string_view line_id) {
  return std::string{base_path} + "/Line/" + url_encode(line_id)
         + "/Route/Sequence/all";
}

outcome<line_info> parse_route_sequence(const http_response& r,
                                        std::string_view line_id) {
  if (r.status == 404 || r.status == 400)
    return make_failure(ec::validation_error,
                        "TfL has no line \"" + std::string{line_id} + "\"",
                        "TfL's lines are named as riders know them "
                        "(\"Victoria\", \"Elizabeth line\", bus \"12\"); "
                        "line_status with feed tfl lists them");
  if (r.status != 200)
    return failure_of(r);
  auto body = parse_body(r);
  if (!body)
    return body.error();
  line_info out;
  out.route_id = sanitize_upstream_text(text_at(*body, {"lineId"}), 60);
  if (out.route_id.empty())
    out.route_id = std::string{line_id};
  out.line = sanitize_upstream_text(text_at(*body, {"lineName"}), 60);
  out.mode = mode_of(text_at(*body, {"mode"}));
  out.color = colour_of(out.route_id);
  std::map<std::string, line_direction> directions;
  if (const auto* sequences = find_path(*body, {"stopPointSequences"});
      sequences && sequences->is_array())
    for (const auto& q : sequences->get_array()) {
      auto name = text_at(q, {"direction"});
      auto& d = directions[name];
      d.direction = name == "inbound" ? 1 : 0;
      d.trips_today = -1; // the sequence says nothing of trips
      const auto* stops = find_path(q, {"stopPoint"});
      if (stops == nullptr || !stops->is_array() || stops->get_array().empty())
        continue;
      const auto& list = stops->get_array();
      auto end = sanitize_upstream_text(text_at(list.back(), {"name"}));
      if (!end.empty()
          && std::find(d.headsigns.begin(), d.headsigns.end(), end)
               == d.headsigns.end())
        d.headsigns.push_back(end);
      if (list.size() <= d.stops.size())
        continue; // the longest branch stands for the direction
      d.stops.clear();
      for (const auto& s : list) {
        line_stop stop;
        stop.stop_id = sanitize_upstream_text(text_at(s, {"id"}), 60);
        stop.name = sanitize_upstream_text(text_at(s, {"name"}));
        stop.position = {upstream_json::number_at(s, {"lat"}).value_or(0),
                         upstream_json::number_at(s, {"lon"}).value_or(0)};
        d.stops.push_back(std::move(stop));
      }
    }
  for (auto& [name, d] : directions)
    if (!d.stops.empty())
      out.directions.push_back(std::move(d));
  std::sort(out.directions.begin(), out.directions.end(),
            [](const line_direction& a, const line_direction& b) {
              return a.direction < b.direction;
            });
  if (out.directions.empty())
    return make_failure(ec::upstream_error,
                        "TfL gave line \"" + out.route_id + "\" no stops");
  return out;
}

std::string make_line_status_target(std::string_view base_path) {
  return std::string{base_path}
         + "/Line/Mode/tube,dlr,overground,elizabeth-line,tram/Status";
}

std::string_view status_of_severity(int64_t severity) noexcept {
  switch (severity) {
    case 1:  // Closed
    case 2:  // Suspended
    case 16: // Not Running
    case 20: // Service Closed
      return "suspended";
    case 3:  // Part Suspended
    case 11: // Part Closed
      return "part-suspended";
    case 6: // Severe Delays
    case 8: // Bus Service (replacement buses)
      return "severe-delays";
    case 0:  // Special Service
    case 7:  // Reduced Service
    case 9:  // Minor Delays
    case 14: // Change of frequency
    case 15: // Diverted
    case 17: // Issues Reported
      return "minor-delays";
    case 4: // Planned Closure
    case 5: // Part Closure
      return "planned-works";
    default: // 10 Good Service, 18 No Issues, 19 Information, others
      return "good-service";
  }
}

outcome<std::vector<line_state>> parse_line_status(const http_response& r) {
  auto body = list_body(r, "Line Status");
  if (!body)
    return body.error();
  std::vector<line_state> out;
  for (const auto& l : *body) {
    line_state line;
    line.route_id = sanitize_upstream_text(text_at(l, {"id"}), 60);
    line.line = sanitize_upstream_text(text_at(l, {"name"}), 60);
    if (line.route_id.empty() || line.line.empty())
      continue;
    line.mode = mode_of(text_at(l, {"modeName"}));
    line.color = colour_of(line.route_id);
    if (const auto* statuses = find_path(l, {"lineStatuses"});
        statuses && statuses->is_array())
      for (const auto& s : statuses->get_array()) {
        auto severity = int_at(s, {"statusSeverity"}).value_or(10);
        auto status = status_of_severity(severity);
        auto text = sanitize_upstream_text(text_at(s, {"reason"}), 600);
        if (text.empty())
          text = sanitize_upstream_text(
            text_at(s, {"statusSeverityDescription"}), 100);
        if (status == "good-service" && text.empty())
          continue;
        if (status == "good-service"
            && text_at(s, {"statusSeverityDescription"}) == "Good Service")
          continue;
        status_reason reason;
        reason.kind = "status";
        reason.text = std::move(text);
        reason.status = std::string{status};
        line.reasons.push_back(std::move(reason));
      }
    out.push_back(std::move(line));
  }
  order_lines(out);
  return out;
}

} // namespace transitd::tfl
