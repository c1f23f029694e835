#include "transitd/providers/mock/london_generator.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <string_view>

#include <date/date.h>

#include "transitd/providers/mock/departures_generator.hpp"

namespace json = boost::json;

namespace transitd::mock {

namespace {

struct line_info {
  const char* id;
  const char* name;
  const char* mode;
  const char* inbound;  // destination one way
  const char* outbound; // and the other
  int headway_minutes;
};

constexpr std::array<line_info, 15> lines{{
  {"bakerloo", "Bakerloo", "tube", "Elephant & Castle Underground Station",
   "Harrow & Wealdstone Underground Station", 4},
  {"central", "Central", "tube", "Epping Underground Station",
   "Ealing Broadway Underground Station", 3},
  {"victoria", "Victoria", "tube", "Walthamstow Central Underground Station",
   "Brixton Underground Station", 2},
  {"northern", "Northern", "tube", "Edgware Underground Station",
   "Morden Underground Station", 3},
  {"waterloo-city", "Waterloo & City", "tube", "Bank Underground Station",
   "Waterloo Underground Station", 5},
  {"jubilee", "Jubilee", "tube", "Stratford Underground Station",
   "Stanmore Underground Station", 3},
  {"circle", "Circle", "tube", "Edgware Road (Circle Line) Underground "
   "Station", "Hammersmith (H&C Line) Underground Station", 8},
  {"hammersmith-city", "Hammersmith & City", "tube",
   "Barking Underground Station", "Hammersmith (H&C Line) Underground "
   "Station", 8},
  {"metropolitan", "Metropolitan", "tube", "Aldgate Underground Station",
   "Amersham Underground Station", 6},
  {"piccadilly", "Piccadilly", "tube", "Cockfosters Underground Station",
   "Heathrow Terminal 5 Underground Station", 4},
  {"district", "District", "tube", "Upminster Underground Station",
   "Ealing Broadway Underground Station", 5},
  {"elizabeth", "Elizabeth line", "elizabeth-line",
   "Abbey Wood Rail Station", "Reading Rail Station", 5},
  {"dlr", "DLR", "dlr", "Lewisham DLR Station", "Stratford DLR Station", 6},
  {"12", "12", "bus", "Dulwich Library", "Oxford Circus", 8},
  {"88", "88", "bus", "Clapham Common", "Camden Town", 9},
}};

struct station_info {
  const char* id;
  const char* name;
  const char* hub;
  const char* stop_type;
  double lat;
  double lon;
  std::array<const char*, 6> lines; // null-terminated
};

constexpr std::array<station_info, 10> stations{{
  {"940GZZLUOXC", "Oxford Circus Underground Station", "HUBOXC",
   "NaptanMetroStation", 51.515224, -0.141903,
   {"bakerloo", "central", "victoria", nullptr}},
  {"490G00008660", "Oxford Circus", "HUBOXC", "NaptanOnstreetBusCoachStopCluster",
   51.515419, -0.141327, {"12", "88", nullptr}},
  {"490008660N", "Oxford Circus Station (Stop N)", "HUBOXC",
   "NaptanPublicBusCoachTram", 51.515602, -0.141591, {"12", "88", nullptr}},
  {"490008660S", "Oxford Circus Station (Stop S)", "HUBOXC",
   "NaptanPublicBusCoachTram", 51.515115, -0.141098, {"12", "88", nullptr}},
  {"940GZZLUBNK", "Bank Underground Station", "HUBBAN", "NaptanMetroStation",
   51.513347, -0.088986, {"central", "northern", "waterloo-city", nullptr}},
  {"940GZZDLBNK", "Bank DLR Station", "HUBBAN", "NaptanMetroStation",
   51.513064, -0.089094, {"dlr", nullptr}},
  {"940GZZLUWLO", "Waterloo Underground Station", "HUBWAT",
   "NaptanMetroStation", 51.503299, -0.11478,
   {"bakerloo", "jubilee", "northern", "waterloo-city", nullptr}},
  {"940GZZLUKSX", "King's Cross St. Pancras Underground Station", "HUBKGX",
   "NaptanMetroStation", 51.530312, -0.123859,
   {"circle", "hammersmith-city", "metropolitan", "northern", "piccadilly",
    "victoria"}},
  {"940GZZLUPAC", "Paddington (H&C Line)-Underground", "HUBPAD",
   "NaptanMetroStation", 51.518187, -0.176273,
   {"bakerloo", "circle", "district", "hammersmith-city", nullptr}},
  {"910GPADTON", "London Paddington Rail Station", "HUBPAD",
   "NaptanRailStation", 51.516581, -0.175689, {"elizabeth", nullptr}},
}};

struct hub_info {
  const char* id;
  const char* name;
};

constexpr std::array<hub_info, 5> hubs{{
  {"HUBOXC", "Oxford Circus"},
  {"HUBBAN", "Bank"},
  {"HUBWAT", "Waterloo"},
  {"HUBKGX", "King's Cross & St Pancras International"},
  {"HUBPAD", "Paddington"},
}};

const line_info* find_line(std::string_view id) {
  for (const auto& l : lines)
    if (id == l.id)
      return &l;
  return nullptr;
}

const station_info* find_station(std::string_view id) {
  for (const auto& s : stations)
    if (id == s.id)
      return &s;
  return nullptr;
}

std::string utc(int64_t epoch) {
  return date::format("%FT%TZ",
                      date::sys_seconds{std::chrono::seconds{epoch}});
}

json::object type_of(const char* entity) {
  return json::object{
    {"$type", std::string{"Tfl.Api.Presentation.Entities."} + entity
                + ", Tfl.Api.Presentation.Entities"}};
}

json::array line_refs(const station_info& s) {
  json::array out;
  for (const char* id : s.lines) {
    if (id == nullptr)
      break;
    const auto* l = find_line(id);
    auto ref = type_of("Identifier");
    ref["id"] = l->id;
    ref["name"] = l->name;
    ref["type"] = "Line";
    out.push_back(std::move(ref));
  }
  return out;
}

json::object stop_point_json(const station_info& s, json::array children) {
  auto out = type_of("StopPoint");
  out["naptanId"] = s.id;
  out["id"] = s.id;
  out["commonName"] = s.name;
  out["stopType"] = s.stop_type;
  out["hubNaptanCode"] = s.hub;
  out["lat"] = s.lat;
  out["lon"] = s.lon;
  out["lines"] = line_refs(s);
  json::object modes;
  for (const char* id : s.lines) {
    if (id == nullptr)
      break;
    const auto* l = find_line(id);
    auto& group = modes[l->mode];
    if (group.is_null())
      group = json::array{};
    group.as_array().push_back(json::string{l->id});
  }
  json::array groups;
  for (auto& [mode, ids] : modes) {
    auto g = type_of("LineModeGroup");
    g["modeName"] = mode;
    g["lineIdentifier"] = ids;
    groups.push_back(std::move(g));
  }
  out["lineModeGroups"] = std::move(groups);
  out["children"] = std::move(children);
  return out;
}

london_answer not_found(const std::string& id, const std::string& uri) {
  auto body = type_of("ApiError");
  body["timestampUtc"] = "2026-01-01T00:00:00Z";
  body["exceptionType"] = "EntityNotFoundException";
  body["httpStatusCode"] = 404;
  body["httpStatus"] = "NotFound";
  body["relativeUri"] = uri;
  body["message"] = "The following stop point is not recognised: " + id;
  return {404, std::move(body)};
}

} // namespace

london_answer generate_stop_point(const std::string& id) {
  for (const auto& h : hubs) {
    if (id != h.id)
      continue;
    json::array children;
    double lat = 0, lon = 0;
    for (const auto& s : stations) {
      if (std::string_view{s.hub} != h.id
          || std::string_view{s.stop_type} == "NaptanPublicBusCoachTram")
        continue;
      json::array grandchildren;
      if (std::string_view{s.id}.rfind("490G", 0) == 0)
        for (const auto& stop : stations)
          if (std::string_view{stop.stop_type} == "NaptanPublicBusCoachTram"
              && std::string_view{stop.hub} == h.id)
            grandchildren.push_back(stop_point_json(stop, {}));
      children.push_back(stop_point_json(s, std::move(grandchildren)));
      lat = s.lat;
      lon = s.lon;
    }
    auto out = type_of("StopPoint");
    out["naptanId"] = h.id;
    out["id"] = h.id;
    out["commonName"] = h.name;
    out["stopType"] = "TransportInterchange";
    out["lat"] = lat;
    out["lon"] = lon;
    out["children"] = std::move(children);
    return {200, std::move(out)};
  }
  const auto* s = find_station(id);
  if (s == nullptr)
    return not_found(id, "/StopPoint/" + id);
  json::array children;
  if (std::string_view{s->id}.rfind("490G", 0) == 0)
    for (const auto& stop : stations)
      if (std::string_view{stop.stop_type} == "NaptanPublicBusCoachTram"
          && std::string_view{stop.hub} == s->hub)
        children.push_back(stop_point_json(stop, {}));
  return {200, stop_point_json(*s, std::move(children))};
}

london_answer generate_arrivals(const std::vector<std::string>& ids,
                                int64_t now) {
  json::array out;
  for (const auto& id : ids) {
    const auto* s = find_station(id);
    if (s == nullptr || std::string_view{s->id}.rfind("490G", 0) == 0) {
      // TfL answers a hub or a group with an empty list, an unknown id
      // with 404.
      if (s == nullptr && id.rfind("HUB", 0) != 0)
        return not_found(id, "/StopPoint/" + id + "/Arrivals");
      continue;
    }
    bool bus = std::string_view{s->stop_type} == "NaptanPublicBusCoachTram";
    for (const char* line_id : s->lines) {
      if (line_id == nullptr)
        break;
      const auto* l = find_line(line_id);
      for (int direction = 0; direction < 2; ++direction) {
        // A bus stop serves one direction.
        if (bus && (id.back() == 'N') != (direction == 0))
          continue;
        auto h = stable_hash(id + "|" + l->id + "|"
                             + std::to_string(direction));
        int64_t period = l->headway_minutes * 60;
        int64_t phase = static_cast<int64_t>(h % static_cast<uint64_t>(period));
        int64_t first = now - ((now - phase) % period) + period;
        for (int k = 0; k < 4; ++k) {
          int64_t at = first + k * period;
          auto p = type_of("Prediction");
          char vehicle[16];
          std::snprintf(vehicle, sizeof vehicle, "%03d",
                        static_cast<int>((h >> 8) % 900 + 100 + k));
          p["id"] = std::to_string(h % 1000000000 + static_cast<uint64_t>(k));
          p["operationType"] = 1;
          p["vehicleId"] = bus ? std::string{"LJ"} + vehicle + "KOU"
                               : std::string{vehicle};
          p["naptanId"] = id;
          p["stationName"] = s->name;
          p["lineId"] = l->id;
          p["lineName"] = l->name;
          p["platformName"]
            = bus ? std::string{id.back() == 'N' ? "N" : "S"}
                  : std::string{direction == 0 ? "Eastbound - Platform 1"
                                               : "Westbound - Platform 2"};
          p["direction"] = direction == 0 ? "inbound" : "outbound";
          p["bearing"] = "";
          p["destinationNaptanId"] = "";
          p["destinationName"] = direction == 0 ? l->inbound : l->outbound;
          p["timestamp"] = utc(now);
          p["timeToStation"] = at - now;
          p["currentLocation"] = "";
          p["towards"] = direction == 0 ? l->inbound : l->outbound;
          p["expectedArrival"] = utc(at);
          p["timeToLive"] = utc(at + 30);
          p["modeName"] = l->mode;
          out.push_back(std::move(p));
        }
      }
    }
  }
  return {200, std::move(out)};
}

london_answer generate_route_sequence(const std::string& line_id) {
  const auto* l = find_line(line_id);
  if (l == nullptr) {
    auto body = type_of("ApiError");
    body["httpStatusCode"] = 404;
    body["httpStatus"] = "NotFound";
    body["relativeUri"] = "/Line/" + line_id + "/Route/Sequence/all";
    body["message"] = "The following line id is not recognised: " + line_id;
    return {404, std::move(body)};
  }
  // The line's stations here in a fixed order, and back.
  json::array stops;
  for (const auto& s : stations) {
    bool calls = false;
    for (const char* id : s.lines)
      calls = calls || (id != nullptr && line_id == id);
    if (!calls || std::string_view{s.stop_type} == "NaptanOnstreetBusCoachStopCluster")
      continue;
    auto stop = type_of("MatchedStop");
    stop["id"] = s.id;
    stop["name"] = s.name;
    stop["lat"] = s.lat;
    stop["lon"] = s.lon;
    stop["topMostParentId"] = s.hub;
    stops.push_back(std::move(stop));
  }
  json::array reversed(stops.rbegin(), stops.rend());
  auto sequence = [&](const char* direction, json::array points) {
    auto q = type_of("StopPointSequence");
    q["lineId"] = l->id;
    q["lineName"] = l->name;
    q["direction"] = direction;
    q["branchId"] = 0;
    q["stopPoint"] = std::move(points);
    q["serviceType"] = "Regular";
    return q;
  };
  auto out = type_of("RouteSequence");
  out["lineId"] = l->id;
  out["lineName"] = l->name;
  out["direction"] = "all";
  out["isOutboundOnly"] = false;
  out["mode"] = l->mode;
  out["stopPointSequences"] = json::array{sequence("outbound", stops),
                                          sequence("inbound", reversed)};
  return {200, std::move(out)};
}

london_answer generate_line_status(const std::string& modes, int64_t now) {
  json::array out;
  for (const auto& l : lines) {
    if (modes.find(l.mode) == std::string::npos)
      continue;
    auto status = type_of("LineStatus");
    status["id"] = 0;
    status["statusSeverity"] = 10;
    status["statusSeverityDescription"] = "Good Service";
    status["created"] = utc(now - 3600);
    status["validityPeriods"] = json::array{};
    std::string_view id = l.id;
    if (id == "district") {
      status["statusSeverity"] = 9;
      status["statusSeverityDescription"] = "Minor Delays";
      status["lineId"] = "district";
      status["reason"] = "District Line: Minor delays between Earl's Court "
                         "and Ealing Broadway due to an earlier signal "
                         "failure. GOOD SERVICE on the rest of the line.";
    } else if (id == "elizabeth") {
      status["statusSeverity"] = 4;
      status["statusSeverityDescription"] = "Planned Closure";
      status["lineId"] = "elizabeth";
      status["reason"] = "Elizabeth line: No service between Paddington and "
                         "Reading due to planned engineering works. Use "
                         "GWR services instead.";
      auto period = type_of("ValidityPeriod");
      period["fromDate"] = utc(now - 7200);
      period["toDate"] = utc(now + 86400);
      period["isNow"] = true;
      status["validityPeriods"] = json::array{period};
    }
    auto line = type_of("Line");
    line["id"] = l.id;
    line["name"] = l.name;
    line["modeName"] = l.mode;
    line["disruptions"] = json::array{};
    line["lineStatuses"] = json::array{status};
    line["routeSections"] = json::array{};
    out.push_back(std::move(line));
  }
  return {200, std::move(out)};
}

} // namespace transitd::mock
