#include "transitd/providers/mock/alerts_generator.hpp"

namespace json = boost::json;

namespace transitd::mock {

namespace {

json::array translations(const char* fi, const char* sv, const char* en) {
  return json::array{json::object{{"language", "fi"}, {"text", fi}},
                     json::object{{"language", "sv"}, {"text", sv}},
                     json::object{{"language", "en"}, {"text", en}}};
}

json::object line_550_alert(int64_t now) {
  return json::object{
    {"id", "mock-alert-550"},
    {"alertHeaderText", "Linja 550: häiriö"},
    {"alertDescriptionText", "Linjan 550 vuoroja myöhässä."},
    {"alertUrl", nullptr},
    {"alertCause", "TECHNICAL_PROBLEM"},
    {"alertEffect", "SIGNIFICANT_DELAYS"},
    {"alertSeverityLevel", "SEVERE"},
    {"effectiveStartDate", now - 3600},
    {"effectiveEndDate", nullptr},
    {"alertHeaderTextTranslations",
     translations("Linja 550: häiriö", "Linje 550: störning",
                  "Line 550: disruption")},
    {"alertDescriptionTextTranslations",
     translations("Linjan 550 vuoroja myöhässä.",
                  "Avgångar på linje 550 är försenade.",
                  "Line 550 departures are running late.")},
    {"alertUrlTranslations", json::array{}},
    {"entities",
     json::array{json::object{{"__typename", "Route"},
                              {"gtfsId", "HSL:2550"},
                              {"shortName", "550"},
                              {"longName", "Itäkeskus-Westendinasema"},
                              {"mode", "BUS"}}}}};
}

json::object own_alert(const std::string& kind, const std::string& id,
                       int64_t now) {
  json::object entity;
  if (kind == "stop")
    entity = json::object{{"__typename", "Stop"},
                          {"gtfsId", id},
                          {"name", "Mock stop " + id}};
  else if (kind == "trip")
    entity = json::object{{"__typename", "Trip"},
                          {"gtfsId", id},
                          {"tripHeadsign", "Westendinasema"},
                          {"route", json::object{{"shortName", "550"}}}};
  else
    entity = json::object{{"__typename", "Route"},
                          {"gtfsId", id},
                          {"shortName", id.substr(id.find(':') + 1)},
                          {"longName", nullptr},
                          {"mode", "BUS"}};
  return json::object{
    {"id", "mock-alert-" + id},
    {"alertHeaderText", "Pysäkki siirretty"},
    {"alertDescriptionText", "Käytä tilapäistä pysäkkiä."},
    {"alertUrl", "https://www.hsl.fi/poikkeukset"},
    {"alertCause", "CONSTRUCTION"},
    {"alertEffect", "STOP_MOVED"},
    {"alertSeverityLevel", "WARNING"},
    // In force a minute before the mock's now: the daemon reads its own
    // clock, which may still be in the second before (a sanitizer run saw
    // the alert filtered as not yet begun).
    {"effectiveStartDate", now - 60},
    {"effectiveEndDate", now + 7200},
    {"alertHeaderTextTranslations",
     translations("Pysäkki siirretty", "Hållplatsen flyttad", "Stop moved")},
    {"alertDescriptionTextTranslations",
     translations("Käytä tilapäistä pysäkkiä.",
                  "Använd den tillfälliga hållplatsen.",
                  "Use the temporary stop.")},
    {"alertUrlTranslations", json::array{}},
    {"entities", json::array{std::move(entity)}}};
}

} // namespace

json::object generate_alerts(const alerts_query& query) {
  if (query.kind == "feed") {
    json::array alerts{line_550_alert(query.now)};
    // Track work on tram 7 tonight: planned works on the line.
    alerts.push_back(json::object{
      {"id", "mock-alert-tram-7"},
      {"alertHeaderText", "Raitiolinja 7: ratatöitä"},
      {"alertDescriptionText", "Linja 7 kulkee poikkeusreittiä ratatöiden "
                               "vuoksi."},
      {"alertUrl", nullptr},
      {"alertCause", "MAINTENANCE"},
      {"alertEffect", "DETOUR"},
      {"alertSeverityLevel", "WARNING"},
      {"effectiveStartDate", query.now - 600},
      {"effectiveEndDate", query.now + 6 * 3600},
      {"alertHeaderTextTranslations",
       translations("Raitiolinja 7: ratatöitä", "Spårvagnslinje 7: spårarbete",
                    "Tram 7: track work")},
      {"alertDescriptionTextTranslations",
       translations("Linja 7 kulkee poikkeusreittiä ratatöiden vuoksi.",
                    "Linje 7 kör en avvikande rutt på grund av spårarbete.",
                    "Tram 7 is diverted because of track work.")},
      {"alertUrlTranslations", json::array{}},
      {"entities",
       json::array{json::object{{"__typename", "Route"},
                                {"gtfsId", "HSL:1007"},
                                {"shortName", "7"},
                                {"longName", "Pasila-Töölö-Pasila"},
                                {"mode", "TRAM"}}}}});
    alerts.push_back(json::object{
      {"id", "mock-alert-agency"},
      {"alertHeaderText", "Liikenne sujuu"},
      {"alertDescriptionText", ""},
      {"alertUrl", nullptr},
      {"alertCause", "OTHER_CAUSE"},
      {"alertEffect", "OTHER_EFFECT"},
      {"alertSeverityLevel", "INFO"},
      {"effectiveStartDate", nullptr},
      {"effectiveEndDate", nullptr},
      {"alertHeaderTextTranslations", json::array{}},
      {"alertDescriptionTextTranslations", json::array{}},
      {"alertUrlTranslations", json::array{}},
      {"entities",
       json::array{json::object{{"__typename", "Agency"},
                                {"gtfsId", "HSL:HSL"},
                                {"name", "Helsingin seudun liikenne"}}}}});
    return json::object{{"data", json::object{{"alerts", std::move(alerts)}}}};
  }
  if (query.id.find("unknown") != std::string::npos)
    return json::object{{"data", json::object{{query.kind, nullptr}}}};
  json::array alerts{own_alert(query.kind, query.id, query.now),
                     line_550_alert(query.now)};
  return json::object{
    {"data",
     json::object{{query.kind, json::object{{"gtfsId", query.id},
                                            {"alerts", std::move(alerts)}}}}}};
}

} // namespace transitd::mock
