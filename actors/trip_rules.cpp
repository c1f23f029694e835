#include "transitd/actors/trip_rules.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "transitd/actors/departures_rules.hpp"
#include "transitd/actors/geocode_rules.hpp"
#include "transitd/actors/stops_rules.hpp"
#include "transitd/messages/time.hpp"

namespace transitd {

namespace {

failure invalid(std::string message) {
  return make_failure(ec::validation_error, std::move(message));
}

} // namespace

std::optional<failure> validate(const plan_trip_request& request) {
  for (const auto& [field, place] :
       {std::pair{"origin", &request.origin},
        std::pair{"destination", &request.destination}}) {
    if (place->type == location_input::kind::coords) {
      if (auto bad = validate_coordinate(place->position,
                                         std::string{field} + ".position"))
        return bad;
    } else if (place->type == location_input::kind::stop) {
      if (auto bad = check_length(std::string{field} + ".stop_id",
                                  place->stop_id, stop_id_length))
        return bad;
    } else if (place->label.empty()) {
      return invalid(std::string{field} + ".label must name a saved label");
    }
  }
  const auto& c = request.constraints;
  if (auto bad = check_range("limit", request.limit, plan_limit))
    return bad;
  if (auto bad = check_range("constraints.max_walking_distance",
                             c.max_walking_distance, plan_max_walk))
    return bad;
  if (auto bad = check_range("constraints.max_transfers", c.max_transfers,
                             plan_max_transfers))
    return bad;
  if (auto bad = check_choice("constraints.optimize", c.optimize,
                              choice_list(plan_optimize)))
    return bad;
  if (auto bad = check_language("constraints.language", c.language))
    return bad;
  if (auto bad = check_choice("when_type", request.when_type,
                              choice_list(plan_when_types)))
    return bad;
  if (request.when_time == "now") {
    if (request.when_type == "arrive") // rule 6
      return invalid("when_time is required for when_type \"arrive\" (an "
                     "ISO 8601 time, not \"now\")");
  } else if (!parse_iso_time(request.when_time)) {
    return make_failure(ec::validation_error,
                        "when_time must be \"now\" or an ISO 8601 "
                        "date-time, got \"" + request.when_time + "\"",
                        "write " + std::string{iso_time_forms});
  }
  return std::nullopt;
}

int64_t resolve_time(const plan_trip_request& request, int64_t now_seconds) {
  if (request.when_time == "now")
    return now_seconds;
  auto t = parse_iso_time(request.when_time);
  return t ? t->seconds : now_seconds;
}

bool is_local_time(const plan_trip_request& request) {
  if (request.when_time == "now")
    return false;
  auto t = parse_iso_time(request.when_time);
  return t && !t->has_offset;
}

location_ref from_input(const coordinate& position) {
  location_ref ref;
  ref.position = position;
  ref.raw_source = "input";
  return ref;
}

location_ref from_stop_place(const stop_place& place,
                             std::string raw_source) {
  location_ref ref;
  ref.position = place.position;
  ref.name = place.name;
  ref.stop_id = place.stop_id;
  ref.raw_source = std::move(raw_source);
  return ref;
}

outcome<location_ref> from_variable(const user_variable& variable,
                                    const std::string& field) {
  if (variable.type != variable_type::location)
    return make_failure(ec::internal_error,
                        field + " label \"" + variable.key
                          + "\" is a stop: look it up first (D21)");
  location_ref ref;
  ref.position = {variable.lat, variable.lon};
  ref.label = variable.key;
  ref.name = variable.name;
  ref.address = variable.address;
  ref.raw_source = "variable";
  return ref;
}

std::optional<failure> check_places(const location_ref& origin,
                                    const location_ref& destination,
                                    const region& area, bool check_area) {
  if (distance_m(origin.position, destination.position) <= same_place_meters)
    return invalid("origin and destination must differ (they are within "
                   "1 m of each other)");
  if (!check_area)
    return std::nullopt;
  for (const auto& [field, ref] :
       {std::pair{"origin", &origin}, std::pair{"destination", &destination}}) {
    if (!area.contains(ref->position))
      return make_failure(ec::unsupported_region,
                          std::string{field} + " lies outside " + area.name,
                          "plan trips within the provider's region");
  }
  return std::nullopt;
}

double walk_reluctance_for(int32_t max_walking_distance) {
  auto meters = std::max(1, max_walking_distance);
  return std::clamp(3000.0 / meters, 1.0, 10.0);
}

namespace {

trip_plan_query make_query(const plan_trip_request& request,
                           const location_ref& origin,
                           const location_ref& destination, int64_t time,
                           const std::string& optimize, int32_t max_walk) {
  const auto& c = request.constraints;
  trip_plan_query q;
  q.context = request.context;
  q.from = origin.position;
  q.to = destination.position;
  q.from_stop = origin.stop_id.value_or("");
  q.to_stop = destination.stop_id.value_or("");
  q.time = time;
  q.local_time = is_local_time(request);
  q.arrive_by = request.when_type == "arrive";
  // Ask for more than the limit: dedupe and disruption need choice.
  q.first = std::min(request.limit * 2 + 1, 6);
  q.walk_reluctance = walk_reluctance_for(max_walk);
  q.max_walking_distance = max_walk;
  if (c.low_walking_distance)
    q.walk_reluctance = std::min(10.0, q.walk_reluctance * 1.5);
  q.max_transfers = c.max_transfers;
  q.transfer_cost = optimize == "few_transfers" ? 600 : 0;
  q.wait_reluctance = optimize == "shortest_time" ? 0.8 : 1.0;
  for (std::size_t i = 0; i < plan_optimize.size(); ++i)
    if (optimize == plan_optimize[i])
      q.ride_worth_s = plan_ride_worth_s[i];
  q.wheelchair = c.step_free;
  q.language = c.language;
  return q;
}

} // namespace

trip_plan_query make_primary_query(const plan_trip_request& request,
                                   const location_ref& origin,
                                   const location_ref& destination,
                                   int64_t time) {
  return make_query(request, origin, destination, time,
                    request.constraints.optimize,
                    request.constraints.max_walking_distance);
}

trip_plan_query make_relaxed_query(const plan_trip_request& request,
                                   const location_ref& origin,
                                   const location_ref& destination,
                                   int64_t time) {
  auto walk = static_cast<int32_t>(std::min<int64_t>(
    plan_max_walk.max,
    (int64_t{request.constraints.max_walking_distance} * 5 + 3) / 4));
  return make_query(request, origin, destination, time, "balanced", walk);
}

std::optional<int64_t> leg_delay(const trip_leg& leg) {
  if (leg.realtime_start)
    return *leg.realtime_start - leg.scheduled_start;
  if (leg.realtime_end)
    return *leg.realtime_end - leg.scheduled_end;
  return std::nullopt;
}

std::optional<departure_status> leg_status(const trip_leg& leg) {
  if (!leg.transit)
    return std::nullopt;
  return classify_status(leg.cancelled, leg_delay(leg));
}

bool is_disrupted(const itinerary& it) {
  return std::any_of(it.legs.begin(), it.legs.end(), [](const trip_leg& l) {
    auto delay = leg_delay(l);
    return l.cancelled || (l.transit && delay && *delay > disruption_delay_seconds);
  });
}

bool is_disrupted(const trip_plans& plans) {
  return plans.itineraries.empty()
         || std::any_of(plans.itineraries.begin(), plans.itineraries.end(),
                        [](const itinerary& it) { return is_disrupted(it); });
}

std::string fingerprint(const itinerary& it) {
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&](std::string_view text) {
    for (unsigned char c : text) {
      h ^= c;
      h *= 1099511628211ULL;
    }
    h ^= 0x1f; // field separator
    h *= 1099511628211ULL;
  };
  for (const auto& leg : it.legs) {
    mix(to_string(leg.mode));
    mix(leg.line.value_or(""));
    mix(leg.from.stop_id.value_or(leg.from.name));
    mix(leg.to.stop_id.value_or(leg.to.name));
    mix(std::to_string(leg.scheduled_start));
    mix(std::to_string(leg.scheduled_end));
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "fnv1a64:%016llx",
                static_cast<unsigned long long>(h));
  return buf;
}

std::string schedule_type(const std::vector<const itinerary*>& list) {
  std::size_t transit = 0;
  std::size_t realtime = 0;
  for (const auto* it : list)
    for (const auto& leg : it->legs)
      if (leg.transit) {
        ++transit;
        if (leg_delay(leg) || leg.cancelled)
          ++realtime;
      }
  if (realtime == 0)
    return "scheduled";
  return realtime == transit ? "realtime" : "mixed";
}

namespace {

bool has_realtime(const itinerary& it) {
  return std::any_of(it.legs.begin(), it.legs.end(), [](const trip_leg& l) {
    return l.realtime_start || l.realtime_end;
  });
}

int64_t arrival(const itinerary& it) {
  if (it.legs.empty())
    return 0;
  const auto& last = it.legs.back();
  return last.realtime_end.value_or(last.scheduled_end);
}

int64_t departs_at(const itinerary& it) {
  if (it.legs.empty())
    return 0;
  const auto& first = it.legs.front();
  return first.realtime_start.value_or(first.scheduled_start);
}

} // namespace

merged_plans merge_plans(const trip_plans& primary, const trip_plans* relaxed) {
  merged_plans out;
  out.timezone = primary.timezone;
  std::vector<itinerary> all;
  for (auto it : primary.itineraries) {
    it.fingerprint = fingerprint(it);
    all.push_back(std::move(it));
  }
  if (relaxed != nullptr)
    for (auto it : relaxed->itineraries) {
      it.fingerprint = fingerprint(it);
      // D13: new relative to the primary answer, standing in for it.
      it.disruption_alternative = std::none_of(
        primary.itineraries.begin(), primary.itineraries.end(),
        [&](const itinerary& p) { return fingerprint(p) == it.fingerprint; });
      all.push_back(std::move(it));
    }
  out.before_dedupe = all.size();
  // D14: one per fingerprint; the one with realtime data wins.
  std::vector<itinerary> unique;
  std::map<std::string, std::size_t> seen;
  for (auto& it : all) {
    auto found = seen.find(it.fingerprint);
    if (found == seen.end()) {
      seen.emplace(it.fingerprint, unique.size());
      unique.push_back(std::move(it));
      continue;
    }
    auto& kept = unique[found->second];
    if (!has_realtime(kept) && has_realtime(it)) {
      it.disruption_alternative = kept.disruption_alternative;
      kept = std::move(it);
    }
  }
  std::stable_sort(unique.begin(), unique.end(),
                   [](const itinerary& a, const itinerary& b) {
                     bool da = is_disrupted(a), db = is_disrupted(b);
                     if (da != db)
                       return !da;
                     if (arrival(a) != arrival(b))
                       return arrival(a) < arrival(b);
                     return departs_at(a) > departs_at(b);
                   });
  out.itineraries = std::move(unique);
  return out;
}

outcome<plan_trip_reply>
build_plan_reply(const plan_trip_request& request, const location_ref& origin,
                 const location_ref& destination, int64_t time,
                 merged_plans merged, int64_t freshness_ms,
                 bool relax_attempted, int64_t clock_offset_ms) {
  if (merged.itineraries.empty()) {
    // A limit on changes below the default is most often why: say so.
    const auto transfers = request.constraints.max_transfers;
    return make_failure(
      ec::no_itinerary_found,
      relax_attempted ? "No itineraries for given constraints, even "
                        "with a relaxed search"
                      : "No itineraries for given constraints",
      transfers < plan_max_transfers.fallback
        ? "Try allowing more transfers (maxTransfers is "
            + std::to_string(transfers)
            + "), increasing maxWalkingDistance or adjusting departure time"
        : std::string{"Try increasing maxWalkingDistance or adjusting "
                      "departure time"});
  }
  plan_trip_reply reply;
  reply.origin = origin;
  reply.destination = destination;
  reply.requested_type = request.when_type;
  if (!merged.timezone.empty())
    reply.timezone = merged.timezone;
  reply.requested_time = format_in_zone(time, reply.timezone);
  reply.constraints = request.constraints;
  reply.correlation_id = request.context.correlation_id;
  const auto& c = request.constraints;
  // Itineraries over the transfer limit do not honour it.
  std::size_t over_transfers = 0;
  std::vector<itinerary> kept;
  for (auto& it : merged.itineraries) {
    if (it.transfers > c.max_transfers) {
      ++over_transfers;
      continue;
    }
    kept.push_back(std::move(it));
  }
  if (kept.empty())
    return make_failure(ec::no_itinerary_found,
                        "No itineraries within maxTransfers "
                          + std::to_string(c.max_transfers),
                        "Try allowing more transfers");
  // merged.itineraries still counts every unique itinerary (those over
  // the transfer limit were moved from, not erased).
  if (merged.before_dedupe > merged.itineraries.size())
    reply.deduplicated_from = static_cast<int32_t>(merged.before_dedupe);
  // Rule 3: limit after dedupe and alternatives.
  auto limit = static_cast<std::size_t>(request.limit);
  if (kept.size() > limit) {
    reply.warnings.push_back(
      {"truncated-results", std::to_string(kept.size())
                              + " itineraries found, returning "
                              + std::to_string(limit)});
    kept.resize(limit);
  }
  // Rule 5: preferences the answer could not honour.
  bool walks_too_far = std::any_of(kept.begin(), kept.end(), [&](const auto& it) {
    return it.walk_distance > c.max_walking_distance;
  });
  bool walks_much = c.low_walking_distance
                    && std::any_of(kept.begin(), kept.end(), [](const auto& it) {
                         return it.walk_distance > 1000;
                       });
  if (walks_too_far || walks_much)
    reply.warnings.push_back(
      {"preference-unmet",
       walks_too_far ? "some itineraries walk more than maxWalkingDistance"
                     : "some itineraries walk more than 1 km despite "
                       "lowWalkingDistance"});
  if (over_transfers > 0 && reply.warnings.end()
                              == std::find_if(reply.warnings.begin(),
                                              reply.warnings.end(),
                                              [](const warning& w) {
                                                return w.code
                                                       == "preference-unmet";
                                              }))
    reply.warnings.push_back({"preference-unmet",
                              std::to_string(over_transfers)
                                + " itineraries exceeded maxTransfers and "
                                  "were left out"});
  if (c.step_free) {
    bool unknown = std::any_of(kept.begin(), kept.end(), [](const auto& it) {
      return std::any_of(it.legs.begin(), it.legs.end(), [](const auto& l) {
        return l.transit && !l.accessibility_score;
      });
    });
    if (unknown)
      reply.warnings.push_back(
        {"unsupported-accessibility-flag",
         "stepFree was requested but the upstream has no accessibility data "
         "for some legs"});
  }
  // What every reply carries, computed here so that an application
  // embedding the engine gets it without our renderer: per leg its delay
  // and status (D11), per itinerary its start, end, duration and schedule
  // type.
  std::vector<const itinerary*> all;
  for (auto& it : kept) {
    for (auto& leg : it.legs) {
      leg.delay_seconds = leg_delay(leg);
      leg.status = leg_status(leg);
    }
    if (!it.legs.empty()) {
      const auto& first = it.legs.front();
      const auto& last = it.legs.back();
      it.start = first.realtime_start.value_or(first.scheduled_start);
      it.end = last.realtime_end.value_or(last.scheduled_end);
      it.duration_seconds = it.end - it.start;
    }
    it.schedule_type = schedule_type({&it});
    all.push_back(&it);
  }
  reply.realtime_used = schedule_type(all);
  reply.itineraries = std::move(kept);
  // Rule 2: the later of the data's time and the request's, both on the
  // engine's clock (--clock included).
  reply.data_freshness = format_utc(
    std::max(freshness_ms, request.context.received_ms + clock_offset_ms)
    / 1000);
  return reply;
}

} // namespace transitd
