#include "transitd/transport/coverage_json.hpp"

#include "transitd/messages/time.hpp"
#include "transitd/transport/departures_json.hpp"
#include "transitd/transport/json_text.hpp"

namespace json = boost::json;

namespace transitd::mcp {

namespace {

const field& transit_coverage_input() {
  static const auto input = field::object({}, {});
  return input;
}

json::object area_json(const region& area) {
  return {{"name", area.name},
          {"minLat", decimals(area.min_lat, 4)},
          {"maxLat", decimals(area.max_lat, 4)},
          {"minLon", decimals(area.min_lon, 4)},
          {"maxLon", decimals(area.max_lon, 4)}};
}

} // namespace

tool_spec transit_coverage_spec() {
  tool_spec spec;
  spec.name = "transit_coverage";
  spec.title = "What this server covers";
  spec.description
    = "Call first: the providers this server answers from, each with its "
      "area (bounding box), agencies, id prefix, days of service, when its "
      "data was loaded, its realtime sources and their health, and the "
      "tools it answers. Use it to pick the tool and the ids for a place.";
  spec.input = transit_coverage_input();
  json::object area{{"name", schema_string()},
                    {"minLat", schema_number()},
                    {"maxLat", schema_number()},
                    {"minLon", schema_number()},
                    {"maxLon", schema_number()}};
  json::object realtime;
  realtime["source"] = schema_string();
  realtime["lastMessage"] = schema_string("ISO 8601");
  realtime["ageSeconds"] = json::object{{"type", "integer"}};
  realtime["healthy"] = schema_boolean("fresh enough to be applied");
  realtime["lastError"] = schema_string();
  json::object provider;
  provider["name"] = schema_string();
  provider["kind"] = schema_enum({"gtfs", "digitransit", "tfl"});
  provider["state"] = schema_enum({"live", "demo", "loading", "failed"});
  provider["problem"] = schema_string();
  provider["idPrefix"] = schema_string("its stop ids start with this");
  provider["area"] = schema_object(std::move(area),
                                   {"name", "minLat", "maxLat", "minLon",
                                    "maxLon"});
  provider["agencies"] = schema_array(schema_string());
  provider["timezone"] = schema_string();
  provider["languages"] = schema_array(schema_string());
  provider["firstDay"] = schema_string("YYYY-MM-DD");
  provider["lastDay"] = schema_string("YYYY-MM-DD");
  provider["loadedAt"] = schema_string("ISO 8601");
  provider["stops"] = json::object{{"type", "integer"}};
  provider["routes"] = json::object{{"type", "integer"}};
  provider["realtime"] = schema_array(
    schema_object(std::move(realtime), {"source", "healthy"}));
  provider["tools"] = schema_array(schema_string());
  json::object output;
  output["providers"] = schema_array(
    schema_object(std::move(provider), {"name", "kind", "state", "tools"}));
  output["asOf"] = schema_string("ISO 8601 (UTC)");
  output["correlationId"] = schema_string();
  output["warnings"] = schema_warnings();
  spec.output_schema = schema_object(
    std::move(output), {"providers", "asOf", "correlationId"});
  return spec;
}

outcome<transit_coverage_request>
parse_transit_coverage(const json::object& raw) {
  auto args = arguments::check(transit_coverage_input(), raw);
  if (!args)
    return args.error();
  return transit_coverage_request{};
}

json::object to_json(const transit_coverage_reply& reply) {
  json::array providers;
  for (const auto& p : reply.providers) {
    json::object item{{"name", p.name},
                      {"kind", p.kind},
                      {"state", p.state},
                      {"tools", string_array(p.tools)}};
    if (!p.problem.empty())
      item["problem"] = p.problem;
    if (!p.id_prefix.empty())
      item["idPrefix"] = p.id_prefix;
    if (p.area)
      item["area"] = area_json(*p.area);
    if (!p.agencies.empty())
      item["agencies"] = string_array(p.agencies);
    if (!p.timezone.empty())
      item["timezone"] = p.timezone;
    if (!p.languages.empty())
      item["languages"] = string_array(p.languages);
    if (!p.first_day.empty())
      item["firstDay"] = p.first_day;
    if (!p.last_day.empty())
      item["lastDay"] = p.last_day;
    if (p.loaded_at > 0)
      item["loadedAt"] = format_utc(p.loaded_at);
    if (p.stops > 0)
      item["stops"] = p.stops;
    if (p.routes > 0)
      item["routes"] = p.routes;
    if (!p.realtime.empty()) {
      json::array sources;
      for (const auto& r : p.realtime) {
        json::object s{{"source", r.source}, {"healthy", r.healthy}};
        if (r.timestamp > 0) {
          s["lastMessage"] = format_utc(r.timestamp);
          s["ageSeconds"] = r.age_seconds;
        }
        if (!r.last_error.empty())
          s["lastError"] = r.last_error;
        sources.push_back(std::move(s));
      }
      item["realtime"] = std::move(sources);
    }
    providers.push_back(std::move(item));
  }
  json::object out{{"providers", std::move(providers)},
                   {"asOf", reply.as_of},
                   {"correlationId", reply.correlation_id}};
  if (!reply.warnings.empty())
    out["warnings"] = to_json(reply.warnings);
  return out;
}

} // namespace transitd::mcp
