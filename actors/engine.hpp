#pragma once
// The embedding API: spawn the whole engine inside any CAF actor system and
// talk to TOOL_ROUTER with typed requests; no HTTP involved.
//
//   caf::actor_system_config cfg;
//   transitd::add_message_types(cfg);
//   caf::actor_system system{cfg};
//   auto engine = transitd::spawn_engine(system, config);
//   self->request(engine.router, 10s, get_departures_request{...}) ...

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "transitd/messages/interfaces.hpp"
#include "transitd/actors/deadline_keeper.hpp"
#include "transitd/actors/provider_cache.hpp"
#include "transitd/actors/provider_switch.hpp"
#include "transitd/actors/rate_limiter.hpp"
#include "transitd/actors/shared_state.hpp"
#include "transitd/actors/tool_router.hpp"
#include "transitd/actors/upstream_gate.hpp"
#include "transitd/actors/station_toilets.hpp"
#include "transitd/actors/trip_rules.hpp"
#include "transitd/actors/variable_store.hpp"
#include "transitd/providers/digitransit_geocoding_actor.hpp"
#include "transitd/providers/digitransit_routing_actor.hpp"
#include "transitd/providers/gtfs_feed_actor.hpp"
#include "transitd/providers/tfl_journey_actor.hpp"

namespace transitd {

struct engine_config;

/// What a provider factory gets to build a provider: the actor system, the
/// engine's configuration, and the UPSTREAM_GATE of a named upstream (made
/// on first use and shared by every provider of that upstream; the engine
/// limits, counts, cancels and stops it). Valid only during the factory
/// call: keep copies of what the provider needs, never the context.
struct provider_context {
  caf::actor_system& system;
  const engine_config& config;
  std::function<upstream_gate_actor(const std::string& upstream)> gate;
};

/// Builds the provider of one role. Providers are plain typed actors: an
/// embedding application may return any actor speaking the interface (an
/// offline timetable, a stand-in), with or without a gate.
template <class Handle>
using provider_factory = std::function<Handle(provider_context&)>;

/// Which provider serves which role. The tools know only the interfaces;
/// a null factory leaves the role to the registered default
/// (`default_providers()`: Digitransit routing and geocoding, TfL).
struct provider_choice {
  /// TIMETABLE for get_departures and find_stops.
  provider_factory<timetable_actor> timetable;
  /// JOURNEY_PLANNER for plan_trip.
  provider_factory<journey_planner_actor> journey_planner;
  /// GEOCODING for geocode_address.
  provider_factory<geocoding_actor> geocoding;
  /// REALTIME_INFO of the Helsinki region (service_alerts, beside the
  /// feeds' own realtime). Unset: Digitransit's, unless the timetable or
  /// the journey planner was replaced (then none).
  provider_factory<realtime_info_actor> realtime;
  /// NETWORK_INFO of the Helsinki region (get_trip, get_route, line_status
  /// from Digitransit). Unset: as `realtime`.
  provider_factory<network_info_actor> network;
  /// The journey planner behind planJourney.
  provider_factory<london_journey_actor> london_journeys;
};

/// The tools' own settings, stated here once: plan_trip's contract
/// deadline (8 s) and the London tools' limits (planJourney 5 and
/// stationToilets 10 calls per second). The daemon starts from these too.
tool_settings_map default_tool_settings();

/// The registered providers: Digitransit (routing, geocoding) and TfL over
/// their UPSTREAM_GATEs, configured from engine_config (the demo upstream
/// is the same clients pointed at the embedded mock).
provider_choice default_providers();

struct engine_config {
  digitransit_routing_options digitransit_routing;
  digitransit_geocoding_options digitransit_geocoding;
  /// Saved variables; ":memory:" keeps them only for the process's life.
  variable_store_options variables;
  /// Detached HTTP workers per upstream (its maximum concurrency).
  std::size_t http_workers_per_upstream = 8;
  /// Deadline of a tool call that arrives without one, unless its tool's
  /// settings say otherwise.
  int32_t tool_timeout_ms = 10000;
  /// Labels, deadlines and inbound limits by tool, keyed by the request the
  /// tool takes: `tools[tool_of<plan_trip_request>()] = {"trips", 8000}`.
  /// Tools not listed are unlimited. The defaults: plan_trip's contract
  /// deadline (8 s) and the London tools' limits (5 and 10 per second).
  tool_settings_map tools = default_tool_settings();
  /// Outbound requests per second by upstream ("digitransit-routing",
  /// "digitransit-geocoding", "tfl"); upstreams not listed are unlimited.
  std::map<std::string, double> upstream_tps;
  /// Outbound burst by upstream; absent: the rate (one second's worth).
  std::map<std::string, double> upstream_burst;
  /// Retries and breaker of every upstream gate (the name is set per gate).
  upstream_gate_options upstream;
  /// TTLs and bounds of the provider caches (the name is set per cache).
  provider_cache_options cache;
  /// planJourney's upstream; without a URL (and no providers.
  /// london_journeys) planJourney answers data-not-available.
  tfl_journey_options tfl;
  /// The TfL upstream is the embedded mock (D18: "demo-data").
  bool demo_tfl = false;
  /// stationToilets: where its data comes from. Without a reader the tool
  /// answers data-not-available, unless `demo_station_data`.
  station_toilets_options station_toilets;
  /// stationToilets answers from the built-in demo set when it has no
  /// reader (D18: "demo-data").
  bool demo_station_data = false;
  /// plan_trip's service area (D15).
  region plan_region;
  /// D12: relaxed plan query in parallel with the primary (true) or only
  /// after a disrupted primary answer (false).
  bool speculative_relax = true;
  /// The routing upstream is the embedded mock: replies built on it say so
  /// ("demo-data").
  bool demo_routing = false;
  /// The same for the geocoding upstream.
  bool demo_geocoding = false;
  /// Which provider serves which role (null: the registered default).
  provider_choice providers;
  /// GTFS timetables this engine routes on itself, one FEED actor each.
  /// With any, a PROVIDER_SWITCH chooses between them (and Digitransit,
  /// when `digitransit_with_feeds`) by stop-id prefix and service area.
  std::vector<gtfs_feed_options> feeds;
  /// Keep Digitransit (area: `plan_region`) beside the feeds.
  bool digitransit_with_feeds = false;
  /// Where both cover a point: feeds first (true) or Digitransit first.
  bool feeds_first = true;
  /// Replicas: the quota, 429 hold-offs and the caches' second level in
  /// Redis (`shared.url`; empty: everything stays in this process).
  shared_state_options shared;
  /// Inbound per-tool limits shared by the replicas too (default: each
  /// replica keeps its own).
  bool shared_tool_limits = false;
  /// With authentication on: each principal's share (0..1) of every tool
  /// limit and upstream quota, beside the whole (0 = none).
  double principal_share = 0;
  /// The engine's clock: the system clock plus this. Results are computed
  /// for it (the feeds' realtime ages included: it overrides their own
  /// `clock_offset_ms`), and every transit tool's reply carries the
  /// warning `simulated-time`.
  int64_t clock_offset_ms = 0;
};

/// The handles of a running engine. Actors stop when the last handle goes
/// away or on `shutdown`.
struct engine {
  tool_router_actor router;
  departures_board_actor departures_board;
  stop_finder_actor stop_finder;
  vehicle_tracker_actor vehicle_tracker;
  alert_board_actor alert_board;
  trip_viewer_actor trip_viewer;
  reach_finder_actor reach_finder;
  coverage_board_actor coverage_board;
  line_viewer_actor line_viewer;
  status_board_actor status_board;
  address_geocoder_actor address_geocoder;
  trip_planner_actor trip_planner;
  station_toilets_actor station_toilets;
  london_journey_actor london_journeys;
  london_journey_actor tfl_journey;
  timetable_actor timetable;
  journey_planner_actor journey_planner;
  /// Digitransit's alerts (null without Digitransit).
  realtime_info_actor realtime;
  /// Digitransit's trips, lines and line status (null without it).
  network_info_actor network;
  /// TfL's departures and line status (null without a TfL URL).
  network_info_actor tfl_network;
  geocoding_actor geocoding;
  timetable_cache_actor timetable_cache;
  geocoding_cache_actor geocoding_cache;
  variable_store_actor variable_store;
  rate_limiter_actor limiter;
  /// DEADLINES: the deadlines of the tools' provider requests.
  deadline_keeper deadlines;
  /// The REDIS connections (quota, caches) with --redis; empty otherwise.
  std::vector<redis_actor> redis;
  /// The FEED actors and their snapshots, in `engine_config::feeds` order.
  std::vector<feed_actor> feeds;
  std::vector<std::shared_ptr<feed_slot>> feed_slots;
  /// Chooses the provider when there are feeds; invalid otherwise.
  provider_switch_actor provider_switch;
  /// The UPSTREAM_GATE of each upstream the providers asked for, by name
  /// ("digitransit-routing", "digitransit-geocoding", "tfl").
  std::map<std::string, upstream_gate_actor> gates;

  /// The gate of `upstream`; an invalid handle when no provider uses it.
  upstream_gate_actor gate(const std::string& upstream) const;

  /// Every actor with counters (limiter, gates, caches, station data), for
  /// /metrics and /readyz.
  std::vector<counters_actor> counter_sources() const;

  /// Sends exit messages front to back (router first, gates and their HTTP
  /// workers last), so that the actor system's destructor does not wait on
  /// them. Then, before the actor system goes, call
  /// await_detached_stopped().
  void shutdown();
};

/// Throws std::runtime_error when the variable store cannot be opened or
/// the Redis URL is malformed.
engine spawn_engine(caf::actor_system& system, const engine_config& config);

/// Waits until the detached actors (HTTP and store workers) spawned since
/// `baseline` (the system's detached_actors() when it was created) have
/// ended to the end of their threads, at most `limit`; false if some had
/// not. CAF 0.17's actor_system destructor stops its clock before it waits
/// for detached threads, and an actor ending after that blocks forever
/// once 64 of them have queued their cancellations in the clock: with a
/// few dozen HTTP workers per upstream, a shutdown that never ends. Call
/// it after engine::shutdown(), once the engine's handles are released,
/// before the actor system goes.
bool await_detached_stopped(caf::actor_system& system, std::size_t baseline,
                            std::chrono::milliseconds limit
                            = std::chrono::seconds{10});

} // namespace transitd
