#include "transitd/actors/provider_switch.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <memory>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "transitd/actors/tool_support.hpp"
#include "transitd/messages/time.hpp"

namespace transitd {

std::optional<std::size_t>
entry_for_stop(const std::vector<provider_entry>& entries,
               const std::string& stop_id) {
  // A prefix names its provider; then the forms the others claim; an
  // entry without a prefix or a claim takes what is left.
  std::optional<std::size_t> fallback;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& prefix = entries[i].stop_prefix;
    if (!prefix.empty() && stop_id.compare(0, prefix.size(), prefix) == 0)
      return i;
  }
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    if (!e.stop_prefix.empty())
      continue;
    if (e.claims) {
      if (e.claims(stop_id))
        return i;
    } else if (!fallback) {
      fallback = i;
    }
  }
  return fallback;
}

bool entry_holds(const provider_entry& entry,
                 std::initializer_list<coordinate> points) {
  auto area = entry.area ? entry.area() : std::nullopt;
  if (!area)
    return false;
  bool all = true;
  for (const auto& p : points)
    all = all && area->contains(p);
  return all;
}

std::optional<std::size_t>
entry_for_points(const std::vector<provider_entry>& entries,
                 std::initializer_list<coordinate> points,
                 bool (*serves)(const provider_entry&)) {
  for (std::size_t i = 0; i < entries.size(); ++i)
    if ((serves == nullptr || serves(entries[i]))
        && entry_holds(entries[i], points))
      return i;
  return std::nullopt;
}

std::optional<std::size_t>
entry_named(const std::vector<provider_entry>& entries,
            const std::string& feed) {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    auto same = [](const std::string& a, const std::string& b) {
      return a.size() == b.size()
             && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
                  return std::tolower(static_cast<unsigned char>(x))
                         == std::tolower(static_cast<unsigned char>(y));
                });
    };
    if ((!e.stop_prefix.empty() && e.stop_prefix == feed + ":")
        || (!e.feed_name.empty() && same(e.feed_name, feed)))
      return i;
  }
  return std::nullopt;
}

std::optional<std::size_t>
entry_for_prefixed(const std::vector<provider_entry>& entries,
                   const std::string& id) {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& prefix = entries[i].stop_prefix;
    if (entries[i].network && !prefix.empty()
        && id.compare(0, prefix.size(), prefix) == 0)
      return i;
  }
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entries[i].network && entries[i].stop_prefix.empty()
        && entries[i].claims && entries[i].claims(id))
      return i;
  return std::nullopt;
}

namespace {

std::string forms_of(const provider_entry& e) {
  return !e.id_forms.empty() ? e.id_forms : e.stop_prefix + "...";
}

bool has_network(const provider_entry& e) {
  return static_cast<bool>(e.network);
}

bool has_timetable(const provider_entry& e) {
  return static_cast<bool>(e.timetable);
}

bool has_planner(const provider_entry& e) {
  return static_cast<bool>(e.journey_planner);
}

} // namespace

outcome<std::size_t>
entry_for_network(const std::vector<provider_entry>& entries,
                  network_question question, const std::string& feed,
                  std::initializer_list<const std::string*> ids,
                  const std::optional<coordinate>& near,
                  const std::string& what, const std::string& hint) {
  if (!feed.empty()) {
    auto i = entry_named(entries, feed);
    if (!i || !entries[*i].network)
      return unknown_id(entries, "feed", feed, "name a feed served here");
    return *i;
  }
  // Without a name or an id, a point or the only one must say.
  for (const auto* id : ids)
    if (!id->empty())
      if (auto i = entry_for_prefixed(entries, *id))
        return *i;
  if (near) {
    if (auto i = entry_for_points(entries, {*near}, has_network))
      return *i;
    return outside_every_area(entries, "the point lies");
  }
  // The only feed; without feeds, the only provider answering (TfL's
  // lines are asked for by feed "tfl" or a point in London when a feed is
  // served too).
  std::vector<std::size_t> feeds, served;
  for (std::size_t e = 0; e < entries.size(); ++e)
    if (entries[e].network && (entries[e].questions & question) != 0) {
      served.push_back(e);
      if (!entries[e].stop_prefix.empty())
        feeds.push_back(e);
    }
  if (feeds.size() == 1)
    return feeds.front();
  if (feeds.empty() && served.size() == 1)
    return served.front();
  std::string first;
  for (const auto* id : ids)
    if (first.empty())
      first = *id;
  if (feeds.empty() && served.size() > 1) {
    // Several answer it and nothing says which: name them.
    std::string names;
    for (auto e : served)
      names += (names.empty() ? "" : ", ")
               + (entries[e].feed_name.empty() ? entries[e].name
                                               : entries[e].feed_name);
    return make_failure(ec::validation_error,
                        "which provider's " + what + " \"" + first
                          + "\" is meant is not clear",
                        "give feed (one of " + names + ") or near");
  }
  return unknown_id(entries, what, first, hint);
}

failure unknown_id(const std::vector<provider_entry>& entries,
                   const std::string& what, const std::string& id,
                   const std::string& hint) {
  std::string known;
  for (const auto& e : entries)
    if (e.network && (!e.stop_prefix.empty() || !e.id_forms.empty()))
      known += (known.empty() ? "" : ", ") + forms_of(e);
  return make_failure(ec::validation_error,
                      what + " \"" + id + "\" belongs to no provider here",
                      hint + (known.empty() ? std::string{}
                                            : "; ids here look like " + known));
}

failure unknown_stop(const std::vector<provider_entry>& entries,
                     const std::string& stop_id) {
  std::string known;
  for (const auto& e : entries)
    known += (known.empty() ? "" : ", ") + forms_of(e);
  return make_failure(ec::validation_error,
                      "stop \"" + stop_id + "\" belongs to no provider here",
                      "stop ids here look like " + known
                        + "; find them with find_stops");
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
  // A provider that has no area yet may hold the point once loaded: the
  // caller retries then, rather than being told the point is not served.
  for (const auto& e : entries)
    if (e.unavailable)
      if (auto why = e.unavailable(); why && is_retryable(*why))
        return std::move(*why);
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

outcome<std::size_t>
entry_for_realtime(const std::vector<provider_entry>& entries,
                   const std::string& id, const std::string& feed,
                   const std::optional<coordinate>& center,
                   bool ids_of_fallback) {
  std::optional<std::size_t> found;
  if (!feed.empty()) {
    for (std::size_t i = 0; i < entries.size(); ++i)
      if (!entries[i].stop_prefix.empty()
          && entries[i].stop_prefix == feed + ":")
        found = i;
    if (!found) {
      std::string names;
      for (const auto& e : entries)
        if (!e.stop_prefix.empty())
          names += (names.empty() ? "" : ", ")
                   + e.stop_prefix.substr(0, e.stop_prefix.size() - 1);
      return make_failure(ec::validation_error,
                          "feed \"" + feed + "\" is not served here",
                          names.empty() ? "no GTFS feed is configured"
                                        : "feeds here: " + names);
    }
  } else if (!id.empty()) {
    // A prefixed id names its provider; an id without one goes to the
    // provider of unprefixed ids (Digitransit), or, for a line name
    // ("L1"), to the area or the only provider with realtime below.
    for (std::size_t i = 0; i < entries.size() && !found; ++i)
      if (!entries[i].stop_prefix.empty()
          && id.compare(0, entries[i].stop_prefix.size(),
                        entries[i].stop_prefix)
               == 0)
        found = i;
    // A stop or route id no prefix claims: the provider of such ids.
    if (!found && ids_of_fallback)
      found = entry_for_stop(entries, id);
  }
  if (!found && center) {
    found = entry_for_points(entries, {*center});
    if (!found)
      return outside_every_area(entries, "the point lies");
  }
  if (!found) {
    std::vector<std::size_t> with;
    for (std::size_t i = 0; i < entries.size(); ++i)
      if (entries[i].realtime)
        with.push_back(i);
    if (with.size() == 1)
      found = with.front();
    else
      return make_failure(ec::validation_error,
                          with.empty()
                            ? "no provider here has realtime"
                            : "several providers have realtime; which one "
                              "is meant is not clear",
                          with.empty() ? "give a feed realtime sources "
                                         "(gtfs_feed_options::realtime)"
                                       : "give near, feed, or an id with "
                                         "its feed prefix (NAME:...)");
  }
  if (!entries[*found].realtime)
    return make_failure(ec::data_not_available,
                        entries[*found].name + " has no realtime here",
                        "realtime comes from a GTFS feed's realtime "
                        "sources; serve the region with a feed "
                        "(engine_config::feeds) and its realtime sources "
                        "(gtfs_feed_options::realtime)");
  return *found;
}

namespace {

/// Asks `who` about a stop; a provider claiming ids by their form knows
/// only its own, so its "unknown stop" is given the hint naming every form
/// served here.
template <class Result, class Handle, class Query>
caf::typed_response_promise<Result> ask_naming_forms(
  provider_switch_actor::stateful_pointer<provider_switch_state> self,
  const Handle& who, Query q) {
  auto rp = self->make_response_promise<Result>();
  auto id = q.stop_id;
  std::chrono::milliseconds left{remaining_ms(q.context, 10000)};
  self->request(who, left, std::move(q))
    .then([rp](Result& answer) mutable { rp.deliver(std::move(answer)); },
          [self, rp, id](caf::error& err) mutable {
            auto f = to_failure(err);
            // A refusal naming the stop is about the stop (not, say, the
            // language asked): name every id form served here.
            if (f.code == ec::validation_error
                && f.message.find(id) != std::string::npos)
              f.hint = unknown_stop(self->state.entries, id).hint;
            rp.deliver(to_error(f));
          });
  return rp;
}

} // namespace

provider_switch_actor::behavior_type provider_switch(
  provider_switch_actor::stateful_pointer<provider_switch_state> self,
  std::vector<provider_entry> entries) {
  self->state.entries = std::move(entries);
  return {
    [self](stop_departures_query& q) -> caf::result<stop_departures> {
      const auto& entries = self->state.entries;
      auto i = entry_for_stop(entries, q.stop_id);
      if (!i)
        return to_error(unknown_stop(entries, q.stop_id));
      if (!entries[*i].stop_prefix.empty())
        return self->delegate(entries[*i].timetable, std::move(q));
      return ask_naming_forms<stop_departures>(self, entries[*i].timetable,
                                               std::move(q));
    },
    [self](nearby_stops_query& q) -> caf::delegated<nearby_stops> {
      const auto& entries = self->state.entries;
      auto i = entry_for_points(entries, {q.center}, has_timetable);
      if (!i) {
        self->make_response_promise<nearby_stops>().deliver(
          to_error(outside_every_area(entries, "the point lies")));
        return {};
      }
      return self->delegate(entries[*i].timetable, std::move(q));
    },
    [self](stop_lookup& q) -> caf::result<stop_place> {
      const auto& entries = self->state.entries;
      auto i = entry_for_stop(entries, q.stop_id);
      if (!i)
        return to_error(unknown_stop(entries, q.stop_id));
      if (!entries[*i].journey_planner)
        return to_error(make_failure(
          ec::validation_error,
          "plan_trip does not route from " + entries[*i].name + "'s stop \""
            + q.stop_id + "\"",
          entries[*i].name == "TfL"
            ? "plan London journeys with planJourney"
            : "give the place as coordinates"));
      if (!entries[*i].stop_prefix.empty())
        return self->delegate(entries[*i].journey_planner, std::move(q));
      return ask_naming_forms<stop_place>(self,
                                          entries[*i].journey_planner,
                                          std::move(q));
    },
    [self](trip_plan_query& q) -> caf::delegated<trip_plans> {
      const auto& entries = self->state.entries;
      // A trip from or to a stop: that stop's provider, when its area
      // holds both ends (D21).
      std::optional<std::size_t> i;
      for (const auto* id : {&q.from_stop, &q.to_stop})
        if (!i && !id->empty())
          if (auto e = entry_for_stop(entries, *id);
              e && entries[*e].journey_planner
              && entry_holds(entries[*e], {q.from, q.to}))
            i = e;
      if (!i)
        i = entry_for_points(entries, {q.from, q.to}, has_planner);
      if (!i)
        if (auto other = entry_for_points(entries, {q.from, q.to})) {
          self->make_response_promise<trip_plans>().deliver(to_error(
            make_failure(ec::unsupported_region,
                         "plan_trip does not route in " + entries[*other].name
                           + "'s area",
                         entries[*other].name == "TfL"
                           ? "plan London journeys with planJourney"
                           : "use points within an area plan_trip serves")));
          return {};
        }
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
        if (e.journey_planner)
          self->send(e.journey_planner, c);
    },
    [self](geocode_query& q) -> caf::result<geocode_candidates> {
      const auto& entries = self->state.entries;
      // A focus inside an area: that provider alone.
      if (q.focus)
        if (auto i = entry_for_points(entries, {*q.focus});
            i && entries[*i].geocoding)
          return self->delegate(entries[*i].geocoding, std::move(q));
      // Else every provider, their candidates merged best first (in
      // provider order where equally good).
      std::vector<geocoding_actor> all;
      for (const auto& e : entries)
        if (e.geocoding)
          all.push_back(e.geocoding);
      if (all.empty())
        return to_error(make_failure(ec::data_not_available,
                                     "no geocoder is configured",
                                     "configure a feed (engine_config::"
                                     "feeds) or Digitransit (engine_config::"
                                     "digitransit_routing.api_key)"));
      if (all.size() == 1)
        return self->delegate(all.front(), std::move(q));
      struct gathering {
        caf::typed_response_promise<geocode_candidates> rp;
        std::vector<std::optional<geocode_candidates>> answers;
        std::size_t pending = 0;
        std::optional<caf::error> first_error;
        std::size_t wanted = 0;
      };
      auto g = std::make_shared<gathering>();
      g->rp = self->make_response_promise<geocode_candidates>();
      g->answers.resize(all.size());
      g->pending = all.size();
      g->wanted = static_cast<std::size_t>(std::max(1, q.size));
      auto finish = [g] {
        if (--g->pending > 0)
          return;
        geocode_candidates merged;
        bool any = false;
        for (auto& a : g->answers) {
          if (!a)
            continue;
          any = true;
          merged.fetched_ms = std::max(merged.fetched_ms, a->fetched_ms);
          for (auto& c : a->candidates)
            merged.candidates.push_back(std::move(c));
        }
        if (!any) {
          g->rp.deliver(*g->first_error);
          return;
        }
        std::stable_sort(merged.candidates.begin(), merged.candidates.end(),
                         [](const geocode_candidate& a,
                            const geocode_candidate& b) {
                           return a.confidence > b.confidence;
                         });
        if (merged.candidates.size() > g->wanted)
          merged.candidates.resize(g->wanted);
        g->rp.deliver(std::move(merged));
      };
      auto timeout = std::chrono::milliseconds{
        std::max<int64_t>(1, q.context.deadline_ms != 0
                               ? q.context.deadline_ms - now_ms()
                               : 10000)};
      for (std::size_t k = 0; k < all.size(); ++k)
        self->request(all[k], timeout, q)
          .then(
            [g, k, finish](geocode_candidates& answer) {
              g->answers[k] = std::move(answer);
              finish();
            },
            [g, finish](caf::error& err) {
              if (!g->first_error)
                g->first_error = std::move(err);
              finish();
            });
      return g->rp;
    },
    [self](vehicles_query& q) -> caf::delegated<vehicle_list> {
      const auto& entries = self->state.entries;
      // A line name ("L1") is no id: it goes by the point, or to the only
      // provider with realtime.
      auto i = entry_for_realtime(entries, q.route, {}, q.center, false);
      if (!i) {
        self->make_response_promise<vehicle_list>().deliver(
          to_error(i.error()));
        return {};
      }
      return self->delegate(entries[*i].realtime, std::move(q));
    },
    [self](alerts_query& q) -> caf::delegated<alert_list> {
      const auto& entries = self->state.entries;
      auto i = entry_for_realtime(
        entries,
        !q.stop_id.empty()    ? q.stop_id
        : !q.route_id.empty() ? q.route_id
                              : q.trip_id,
        q.feed, q.center, true);
      if (!i) {
        self->make_response_promise<alert_list>().deliver(to_error(i.error()));
        return {};
      }
      return self->delegate(entries[*i].realtime, std::move(q));
    },
    [self](reach_query& q) -> caf::result<reach_result> {
      const auto& entries = self->state.entries;
      std::optional<std::size_t> i;
      if (!q.from_stop.empty()) {
        i = entry_for_prefixed(entries, q.from_stop);
        if (!i)
          return to_error(unknown_id(entries, "stop", q.from_stop,
                                     "find stop ids with find_stops"));
      } else {
        for (std::size_t e = 0; e < entries.size() && !i; ++e)
          if (entries[e].network && entry_holds(entries[e], {q.from}))
            i = e;
        if (!i) {
          for (const auto& e : entries)
            if (entry_holds(e, {q.from}))
              return to_error(make_failure(
                ec::data_not_available,
                e.name + " does not answer reachable",
                "reachable works on the GTFS feeds served here"));
          return to_error(outside_every_area(entries, "the origin lies"));
        }
      }
      return self->delegate(entries[*i].network, std::move(q));
    },
    [self](route_query& q) -> caf::result<route_details> {
      const auto& entries = self->state.entries;
      if (!q.stop.empty() && !entry_for_prefixed(entries, q.stop))
        return to_error(unknown_id(entries, "stop", q.stop,
                                   "find stop ids with find_stops"));
      auto i = entry_for_network(entries, ask_routes, {}, {&q.stop, &q.route},
                                 q.near,
                                 "line",
                                 "give near (a point in the line's area), a "
                                 "stop, or a route id");
      if (!i)
        return to_error(i.error());
      return self->delegate(entries[*i].network, std::move(q));
    },
    [self](line_status_query& q) -> caf::result<line_status_list> {
      const auto& entries = self->state.entries;
      auto i = entry_for_network(entries, ask_status, q.feed, {&q.route},
                                 q.near, "line",
                                 "give feed, near or a route id");
      if (!i)
        return to_error(i.error());
      return self->delegate(entries[*i].network, std::move(q));
    },
    [self](trip_query& q) -> caf::result<trip_details> {
      const auto& entries = self->state.entries;
      auto i = entry_for_prefixed(entries, q.trip_id);
      if (!i)
        return to_error(unknown_id(entries, "trip", q.trip_id,
                                   "take a tripId from get_departures or "
                                   "plan_trip"));
      return self->delegate(entries[*i].network, std::move(q));
    },
  };
}

} // namespace transitd
