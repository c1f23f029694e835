#pragma once
// The plan_trip contract as pure functions: validation, region, the primary
// and relaxed queries, leg status, disruption, fingerprints (D14), merging
// (D12, D13), deduplication, realtime summary and warnings.

#include <optional>
#include <string>
#include <vector>

#include "transitd/messages/error.hpp"
#include "transitd/messages/trips.hpp"
#include "transitd/messages/variables.hpp"

namespace transitd {

/// A delay above this makes an itinerary disrupted (rule 2).
inline constexpr int32_t disruption_delay_seconds = 300;
/// Origin and destination closer than this are the same place.
inline constexpr double same_place_meters = 1.0;

/// Shape rules that need no labels resolved: ranges, limit, when, language,
/// optimize; coordinates given directly.
std::optional<failure> validate(const plan_trip_request& request);

/// The time to plan for: "now" → `now_seconds`, else the parsed ISO time.
/// Without an offset (D22), the wall-clock time counted as if UTC: see
/// `is_local_time`.
int64_t resolve_time(const plan_trip_request& request, int64_t now_seconds);

/// Whether when_time has no offset: the provider reads it in the zone of
/// the origin (trip_plan_query::local_time).
bool is_local_time(const plan_trip_request& request);

/// LocationRef for coordinates given directly (rawSource "input").
location_ref from_input(const coordinate& position);

/// LocationRef of a stop as its provider placed it (D21); rawSource
/// "input" (a stop id) or "variable" (a saved stop).
location_ref from_stop_place(const stop_place& place, std::string raw_source);

/// LocationRef for a saved variable: label preserved, name/address copied;
/// a failure naming the label when it is not a location (D16).
outcome<location_ref> from_variable(const user_variable& variable,
                                    const std::string& field);

/// Rules on resolved locations: identical (≤ 1 m) and, with `check_area`,
/// region (D15).
std::optional<failure> check_places(const location_ref& origin,
                                    const location_ref& destination,
                                    const region& area,
                                    bool check_area = true);

/// Walk reluctance standing in for a walking budget (OTP 2 has no hard
/// limit): 1500 m ↔ 2.0, OTP's default; clamped to 1..10.
double walk_reluctance_for(int32_t max_walking_distance);

trip_plan_query make_primary_query(const plan_trip_request& request,
                                   const location_ref& origin,
                                   const location_ref& destination,
                                   int64_t time);

/// Rule 2's relaxation: optimize balanced, walking +25 % (capped at 3000).
trip_plan_query make_relaxed_query(const plan_trip_request& request,
                                   const location_ref& origin,
                                   const location_ref& destination,
                                   int64_t time);

/// Signed delay of a leg in seconds, when it has realtime data.
std::optional<int64_t> leg_delay(const trip_leg& leg);

/// cancelled > delayed (|delay| > 60, D11) > on_time > scheduled_only;
/// nullopt for non-transit legs.
std::optional<departure_status> leg_status(const trip_leg& leg);

/// A cancelled leg, or a delay over 300 s.
bool is_disrupted(const itinerary& it);
bool is_disrupted(const trip_plans& plans);

/// D14: stable hash over the legs' mode, line, from/to stop and scheduled
/// times; "fnv1a64:<16 hex>".
std::string fingerprint(const itinerary& it);

/// realtime (every transit leg has realtime data), mixed (some), else
/// scheduled (rule 4).
std::string schedule_type(const std::vector<const itinerary*>& list);

struct merged_plans {
  std::vector<itinerary> itineraries;
  /// Count before deduplication.
  std::size_t before_dedupe = 0;
  /// The provider's zone (empty: the reply's default).
  std::string timezone;
};

/// Fingerprints every itinerary, merges the relaxed answer when given (its
/// new itineraries marked disruption alternatives, D13), removes duplicate
/// fingerprints (the one with realtime data wins, D14), and orders healthy
/// itineraries before disrupted ones, each by arrival.
merged_plans merge_plans(const trip_plans& primary,
                         const trip_plans* relaxed);

/// Rules 2-5 and the reply; `no-itinerary-found` when nothing is left.
/// dataFreshness is on the engine's clock: the request's arrival moved by
/// `clock_offset_ms` (engine_config's, --clock).
outcome<plan_trip_reply>
build_plan_reply(const plan_trip_request& request, const location_ref& origin,
                 const location_ref& destination, int64_t time,
                 merged_plans merged, int64_t freshness_ms,
                 bool relax_attempted, int64_t clock_offset_ms = 0);

} // namespace transitd
