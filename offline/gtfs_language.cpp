#include "transitd/offline/gtfs_language.hpp"
#include "transitd/messages/limits.hpp"

#include <algorithm>
#include <cctype>

namespace transitd::gtfs {

namespace {

std::string_view primary(std::string_view tag) {
  return tag.substr(0, tag.find('-'));
}

void add(std::vector<std::string>& out, std::string_view language) {
  auto l = lower_ascii(language);
  if (!l.empty() && std::find(out.begin(), out.end(), l) == out.end())
    out.push_back(std::move(l));
}

void add_all(std::vector<std::string>& out, const gtfs_rt::translated& t) {
  for (const auto& [language, text] : t)
    add(out, language);
}

void put(const timetable& tt, std::string_view language, std::string& text) {
  auto t = tt.translated(text, language);
  if (t.data() != text.data())
    text = std::string{t};
}

void put(const timetable& tt, std::string_view language,
         std::optional<std::string>& text) {
  if (text)
    put(tt, language, *text);
}

} // namespace

std::vector<std::string> languages_of(const timetable& tt,
                                      const realtime_layer* rt) {
  std::vector<std::string> out;
  add(out, tt.language);
  for (const auto& l : tt.languages)
    add(out, l);
  if (rt != nullptr)
    for (const auto& a : rt->alerts) {
      add_all(out, a.header);
      add_all(out, a.description);
    }
  std::sort(out.begin(), out.end());
  return out;
}

outcome<std::string> answer_language(const timetable& tt,
                                     const realtime_layer* rt,
                                     std::string_view asked) {
  auto own = lower_ascii(tt.language);
  if (asked.empty())
    return own;
  auto known = languages_of(tt, rt);
  if (known.empty())
    return lower_ascii(asked); // the feed says nothing: its only texts
  auto wanted = lower_ascii(asked);
  for (const auto& l : known)
    if (l == wanted)
      return l;
  for (const auto& l : known)
    if (primary(l) == primary(wanted))
      return l;
  std::string list;
  for (const auto& l : known)
    list += (list.empty() ? "" : ", ") + l;
  return make_failure(ec::validation_error,
                      "feed " + tt.name + " has no texts in \""
                        + std::string{asked} + "\"",
                      "its languages: " + list
                        + (own.empty() ? std::string{}
                                       : " (without language: " + own + ")"));
}

void translate(const timetable& tt, std::string_view language,
               stop_departures& answer) {
  if (!tt.translates(language))
    return;
  put(tt, language, answer.stop_name);
  for (auto& t : answer.stop_times)
    put(tt, language, t.headsign);
}

void translate(const timetable& tt, std::string_view language,
               nearby_stops& answer) {
  if (!tt.translates(language))
    return;
  for (auto& s : answer.stops)
    put(tt, language, s.name);
}

void translate(const timetable& tt, std::string_view language,
               trip_plans& answer) {
  if (!tt.translates(language))
    return;
  for (auto& i : answer.itineraries)
    for (auto& leg : i.legs) {
      put(tt, language, leg.from.name);
      put(tt, language, leg.to.name);
      put(tt, language, leg.headsign);
    }
}

void translate(const timetable& tt, std::string_view language,
               trip_details& answer) {
  if (!tt.translates(language))
    return;
  put(tt, language, answer.headsign);
  for (auto& c : answer.calls)
    put(tt, language, c.stop_name);
}

void translate(const timetable& tt, std::string_view language,
               route_details& answer) {
  if (!tt.translates(language))
    return;
  for (auto& line : answer.lines) {
    put(tt, language, line.long_name);
    for (auto& d : line.directions) {
      for (auto& h : d.headsigns)
        put(tt, language, h);
      for (auto& s : d.stops)
        put(tt, language, s.name);
    }
  }
  for (auto& s : answer.complex)
    put(tt, language, s.name);
}

void translate(const timetable& tt, std::string_view language,
               reach_result& answer) {
  if (!tt.translates(language))
    return;
  put(tt, language, answer.from_name);
  for (auto& s : answer.stops)
    put(tt, language, s.name);
}

void translate(const timetable& tt, std::string_view language,
               alert_list& answer) {
  if (!tt.translates(language))
    return;
  for (auto& a : answer.alerts)
    for (auto& s : a.subjects)
      put(tt, language, s.name);
}

} // namespace transitd::gtfs
