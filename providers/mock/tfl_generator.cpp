#include "transitd/providers/mock/tfl_generator.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>

#include <date/date.h>
#include <date/tz.h>

#include "transitd/providers/mock/departures_generator.hpp"

namespace json = boost::json;

namespace transitd::mock {

namespace {

constexpr std::array<const char*, 5> known_names{
  {"bank", "mile end", "abbey wood", "paddington", "waterloo"}};

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return text;
}

bool resolved(const std::string& place) {
  if (place.empty())
    return false;
  if (std::all_of(place.begin(), place.end(),
                  [](unsigned char c) { return std::isdigit(c); }))
    return true;
  if (place.rfind("940G", 0) == 0 || place.rfind("910G", 0) == 0
      || place.rfind("HUB", 0) == 0)
    return true;
  if (place.find(',') != std::string::npos
      && std::all_of(place.begin(), place.end(), [](unsigned char c) {
           return std::isdigit(c) || c == '.' || c == ',' || c == '-';
         }))
    return true;
  auto l = lower(place);
  return std::find(known_names.begin(), known_names.end(), l)
         != known_names.end();
}

std::string title(const std::string& place) {
  auto out = place;
  bool start = true;
  for (auto& c : out) {
    c = static_cast<char>(start ? std::toupper(static_cast<unsigned char>(c))
                                : c);
    start = c == ' ';
  }
  return out;
}

/// Local London time without offset, as TfL writes it.
std::string london(int64_t epoch) {
  const auto* zone = date::locate_zone("Europe/London");
  auto local = zone->to_local(date::sys_seconds{std::chrono::seconds{epoch}});
  return date::format("%FT%T", date::floor<std::chrono::seconds>(local));
}

json::object point(const std::string& name) {
  return json::object{
    {"$type", "Tfl.Api.Presentation.Entities.StopPoint, "
              "Tfl.Api.Presentation.Entities"},
    {"commonName", name},
    {"placeType", "StopPoint"}};
}

json::object disambiguation(const std::string& text) {
  json::array options;
  if (lower(text).find("nowhere") == std::string::npos) {
    auto h = stable_hash(text);
    const char* kinds[] = {"", " Rail Station", " Road"};
    int quality = 1000;
    for (int i = 0; i < 3; ++i) {
      auto name = title(text) + kinds[i];
      options.push_back(json::object{
        {"$type", "Tfl.Api.Presentation.Entities.JourneyPlanner."
                  "DisambiguationOption, Tfl.Api.Presentation.Entities"},
        {"parameterValue", std::to_string(1000000 + (h + i * 7919) % 900000)},
        {"uri", "/journey/journeyresults/..."},
        {"place", point(name)},
        {"matchQuality", quality - i * 21}});
    }
  }
  return json::object{
    {"$type", "Tfl.Api.Presentation.Entities.JourneyPlanner.Disambiguation, "
              "Tfl.Api.Presentation.Entities"},
    {"disambiguationOptions", std::move(options)},
    {"matchStatus", options.empty() ? "notfound" : "list"}};
}

} // namespace

journey_answer generate_journey(const std::string& from,
                                const std::string& to) {
  journey_answer out;
  bool from_ok = resolved(from);
  bool to_ok = resolved(to);
  if (!from_ok || !to_ok) {
    out.status = 300;
    out.body = json::object{
      {"$type", "Tfl.Api.Presentation.Entities.JourneyPlanner."
                "DisambiguationResult, Tfl.Api.Presentation.Entities"}};
    if (!from_ok)
      out.body["fromLocationDisambiguation"] = disambiguation(from);
    if (!to_ok)
      out.body["toLocationDisambiguation"] = disambiguation(to);
    out.body["recommendedMaxAgeMinutes"] = 1440;
    return out;
  }
  auto now = std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
               .count();
  auto h = stable_hash(from + "|" + to);
  const char* lines[] = {"Central", "District", "Elizabeth", "Jubilee",
                         "Northern", "Piccadilly"};
  json::array journeys;
  for (int i = 0; i < 6; ++i) {
    auto hh = stable_hash(std::to_string(i), h);
    int ride = 5 + static_cast<int>(hh % 40);
    int walk = 2 + static_cast<int>((hh >> 8) % 6);
    int64_t start = now + 120 + i * 240;
    int64_t board = start + walk * 60;
    int64_t arrive = board + ride * 60;
    std::string line = lines[(hh >> 16) % 6];
    json::array legs{
      json::object{{"duration", walk},
                   {"instruction", json::object{{"summary", "Walk to " + title(from)}}},
                   {"departureTime", london(start)},
                   {"arrivalTime", london(board)},
                   {"departurePoint", point(title(from))},
                   {"arrivalPoint", point(title(from) + " Underground Station")},
                   {"routeOptions", json::array{}},
                   {"mode", json::object{{"id", "walking"}, {"name", "walking"}}},
                   {"isDisrupted", false}},
      json::object{{"duration", ride},
                   {"instruction",
                    json::object{{"summary", line + " line to " + title(to)}}},
                   {"departureTime", london(board)},
                   {"arrivalTime", london(arrive)},
                   {"departurePoint", point(title(from) + " Underground Station")},
                   {"arrivalPoint", point(title(to) + " Underground Station")},
                   {"routeOptions",
                    json::array{json::object{{"name", line}}}},
                   {"mode", json::object{{"id", "tube"}, {"name", "tube"}}},
                   {"isDisrupted", false}}};
    journeys.push_back(json::object{
      {"$type", "Tfl.Api.Presentation.Entities.JourneyPlanner.Journey, "
                "Tfl.Api.Presentation.Entities"},
      {"startDateTime", london(start)},
      {"duration", walk + ride},
      {"arrivalDateTime", london(arrive)},
      {"legs", std::move(legs)}});
  }
  out.body = json::object{
    {"$type", "Tfl.Api.Presentation.Entities.JourneyPlanner.ItineraryResult, "
              "Tfl.Api.Presentation.Entities"},
    {"journeys", std::move(journeys)},
    {"lines", json::array{}},
    {"recommendedMaxAgeMinutes", 1}};
  return out;
}

} // namespace transitd::mock
