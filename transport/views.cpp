#include "transitd/transport/views.hpp"

namespace json = boost::json;

namespace transitd::mcp {

namespace {

view make_view(std::string name, std::string title, std::string description,
               std::vector<std::string> tools) {
  view v;
  v.uri = "ui://transitd/" + name;
  v.html = embedded_view(name + ".html");
  v.name = std::move(name);
  v.title = std::move(title);
  v.description = std::move(description);
  v.tools = std::move(tools);
  return v;
}

/// What a host needs to show the document: no network at all (no domains
/// declared, so the host's policy allows none).
json::object view_meta() {
  return json::object{
    {"ui", json::object{{"csp", json::object{}}, {"prefersBorder", true}}}};
}

} // namespace

const std::vector<view>& views() {
  static const std::vector<view> all{
    make_view("departures", "Departure board",
              "The next departures from a stop: lines in their colours, "
              "minutes to go counting down, delays, cancellations and "
              "platforms; refreshes itself.",
              {"get_departures"}),
    make_view("trip", "Trip map",
              "An itinerary or one trip drawn as a map from the feed's own "
              "geometry: legs in their line colours, walks dashed, changes "
              "marked, times at each stop; alternatives switchable.",
              {"plan_trip", "get_trip"}),
    make_view("lines", "Line status",
              "A board of lines with their status, and the alerts in force "
              "with their texts.",
              {"line_status", "service_alerts"}),
  };
  return all;
}

const view* find_view(std::string_view uri) {
  for (const auto& v : views())
    if (v.uri == uri)
      return &v;
  return nullptr;
}

const view* view_of_tool(std::string_view tool) {
  for (const auto& v : views())
    for (const auto& t : v.tools)
      if (t == tool)
        return &v;
  return nullptr;
}

json::object resource_entry(const view& v) {
  return json::object{{"uri", v.uri},
                      {"name", v.name},
                      {"title", v.title},
                      {"description", v.description},
                      {"mimeType", view_mime_type},
                      {"_meta", view_meta()}};
}

json::object resource_contents(const view& v) {
  return json::object{{"uri", v.uri},
                      {"mimeType", view_mime_type},
                      {"text", v.html},
                      {"_meta", view_meta()}};
}

} // namespace transitd::mcp
