#include "transitd/actors/london_rules.hpp"

#include <algorithm>
#include <cmath>

namespace transitd {

void apply_journey_rules(journey_plan_reply& reply) {
  std::stable_sort(reply.journeys.begin(), reply.journeys.end(),
                   [](const journey_option& a, const journey_option& b) {
                     if (a.duration_minutes != b.duration_minutes)
                       return a.duration_minutes < b.duration_minutes;
                     return a.arrival_time < b.arrival_time;
                   });
  if (reply.journeys.size() > max_journeys)
    reply.journeys.resize(max_journeys);
  auto best_first = [](std::vector<place_suggestion>& list) {
    std::stable_sort(list.begin(), list.end(),
                     [](const place_suggestion& a, const place_suggestion& b) {
                       return a.match_quality > b.match_quality;
                     });
  };
  best_first(reply.from_suggestions);
  best_first(reply.to_suggestions);
}

station_match match_station(const station_dataset& data,
                            std::string_view query) {
  station_match out;
  auto key = normalise_station_name(query);
  if (key.empty())
    return out;
  struct candidate {
    const station_record* station;
    double quality;
  };
  std::vector<candidate> found;
  for (const auto& s : data.stations) {
    if (s.key == key) {
      out.station = &s; // D20: an exact normalised match wins
      return out;
    }
    double quality = 0;
    if (s.key.rfind(key, 0) == 0)
      quality = 0.9;
    else if (s.key.find(" " + key) != std::string::npos)
      quality = 0.8;
    else if (s.key.find(key) != std::string::npos)
      quality = 0.6;
    if (quality > 0) {
      // Closer in length is better: "bank" prefers "bank" over "banking".
      quality += 0.09 * static_cast<double>(key.size()) / s.key.size();
      found.push_back({&s, quality});
    }
  }
  if (found.size() == 1) {
    out.station = found.front().station;
    return out;
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const candidate& a, const candidate& b) {
                     if (a.quality != b.quality)
                       return a.quality > b.quality;
                     return a.station->name < b.station->name;
                   });
  for (const auto& c : found) {
    if (out.suggestions.size() >= 10)
      break;
    out.suggestions.push_back(
      {c.station->name, c.station->unique_id,
       std::round(c.quality * 100) / 100});
  }
  return out;
}

} // namespace transitd
