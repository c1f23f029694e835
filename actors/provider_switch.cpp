#include "actors/provider_switch.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

namespace transitd {

std::optional<std::size_t>
entry_for_stop(const std::vector<provider_entry>& entries,
               const std::string& stop_id) {
  std::optional<std::size_t> fallback;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& prefix = entries[i].stop_prefix;
    if (prefix.empty()) {
      if (!fallback)
        fallback = i;
    } else if (stop_id.compare(0, prefix.size(), prefix) == 0) {
      return i;
    }
  }
  return fallback;
}

std::optional<std::size_t>
entry_for_points(const std::vector<provider_entry>& entries,
                 std::initializer_list<coordinate> points) {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    auto area = entries[i].area ? entries[i].area() : std::nullopt;
    if (!area)
      continue;
    bool all = true;
    for (const auto& p : points)
      all = all && area->contains(p);
    if (all)
      return i;
  }
  return std::nullopt;
}

namespace {

std::string degrees(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", v);
  return text;
}

} // namespace

failure outside_every_area(const std::vector<provider_entry>& entries,
                           const std::string& what) {
  std::string areas;
  for (const auto& e : entries) {
    auto area = e.area ? e.area() : std::nullopt;
    if (!area)
      continue;
    if (!areas.empty())
      areas += "; ";
    areas += area->name + " (lat " + degrees(area->min_lat) + ".."
             + degrees(area->max_lat) + ", lon " + degrees(area->min_lon)
             + ".." + degrees(area->max_lon) + ")";
  }
  return make_failure(ec::unsupported_region,
                      what + " outside every area served here"
                        + (areas.empty() ? std::string{" (no feed is loaded "
                                                       "yet)"}
                                         : ": " + areas),
                      "use points within one of these areas");
}

provider_switch_actor::behavior_type provider_switch(
  provider_switch_actor::stateful_pointer<provider_switch_state> self,
  std::vector<provider_entry> entries) {
  self->state.entries = std::move(entries);
  return {
    [self](stop_departures_query& q) -> caf::delegated<stop_departures> {
      const auto& entries = self->state.entries;
      auto i = entry_for_stop(entries, q.stop_id);
      if (!i) {
        std::string known;
        for (const auto& e : entries)
          known += (known.empty() ? "" : ", ") + e.stop_prefix + "...";
        self->make_response_promise<stop_departures>().deliver(
          to_error(make_failure(ec::validation_error,
                                "stop \"" + q.stop_id
                                  + "\" belongs to no provider here",
                                "stop ids here look like " + known
                                  + "; find them with find_stops")));
        return {};
      }
      return self->delegate(entries[*i].timetable, std::move(q));
    },
    [self](nearby_stops_query& q) -> caf::delegated<nearby_stops> {
      const auto& entries = self->state.entries;
      auto i = entry_for_points(entries, {q.center});
      if (!i) {
        self->make_response_promise<nearby_stops>().deliver(
          to_error(outside_every_area(entries, "the point lies")));
        return {};
      }
      return self->delegate(entries[*i].timetable, std::move(q));
    },
    [self](trip_plan_query& q) -> caf::delegated<trip_plans> {
      const auto& entries = self->state.entries;
      auto i = entry_for_points(entries, {q.from, q.to});
      if (!i) {
        auto from = entry_for_points(entries, {q.from});
        auto to = entry_for_points(entries, {q.to});
        auto problem
          = !from ? outside_every_area(entries, "the origin lies")
            : !to ? outside_every_area(entries, "the destination lies")
                  : make_failure(ec::unsupported_region,
                                 "the origin lies in " + entries[*from].name
                                   + "'s area and the destination in "
                                   + entries[*to].name
                                   + "'s; no provider here serves both",
                                 "plan each part within one area");
        self->make_response_promise<trip_plans>().deliver(to_error(problem));
        return {};
      }
      return self->delegate(entries[*i].journey_planner, std::move(q));
    },
    [self](cancel_call& c) {
      for (const auto& e : self->state.entries)
        self->send(e.journey_planner, c);
    },
    [self](geocode_query& q) -> caf::delegated<geocode_candidates> {
      const auto& entries = self->state.entries;
      std::optional<std::size_t> i;
      if (q.focus)
        i = entry_for_points(entries, {*q.focus});
      if (!i)
        for (std::size_t k = 0; k < entries.size() && !i; ++k)
          if (entries[k].geocoding)
            i = k;
      if (!i || !entries[*i].geocoding) {
        self->make_response_promise<geocode_candidates>().deliver(
          to_error(make_failure(ec::data_not_available,
                                "no geocoder is configured",
                                "configure a feed or DIGITRANSIT_API_KEY")));
        return {};
      }
      return self->delegate(entries[*i].geocoding, std::move(q));
    },
  };
}

} // namespace transitd
