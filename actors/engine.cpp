#include "transitd/actors/engine.hpp"

#include <chrono>
#include <stdexcept>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/exit_reason.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "transitd/actors/address_geocoder.hpp"
#include "transitd/actors/coverage_board.hpp"
#include "transitd/actors/deadline_keeper.hpp"
#include "transitd/actors/departures_board.hpp"
#include "transitd/actors/line_viewer.hpp"
#include "transitd/actors/london_journeys.hpp"
#include "transitd/actors/status_board.hpp"
#include "transitd/actors/stop_finder.hpp"
#include "transitd/actors/reach_finder.hpp"
#include "transitd/actors/realtime_tools.hpp"
#include "transitd/actors/tool_router.hpp"
#include "transitd/actors/trip_viewer.hpp"
#include "transitd/actors/trip_planner.hpp"
#include "transitd/messages/time.hpp"
#include "transitd/providers/tfl_demo_station_data.hpp"
#include "transitd/providers/tfl_network_actor.hpp"

namespace transitd {

namespace {

std::vector<rate_limit> limits_of(const engine_config& config) {
  auto limits = tool_limits(config.tools);
  for (auto& limit : limits) {
    limit.shared = config.shared_tool_limits;
    limit.principal_share = config.principal_share;
  }
  // An API key's quota is per key, not per replica.
  for (const auto& [upstream, tps] : config.upstream_tps) {
    auto burst = config.upstream_burst.find(upstream);
    limits.push_back({upstream_key(upstream), tps,
                      burst != config.upstream_burst.end() ? burst->second
                                                           : tps,
                      true, config.principal_share});
  }
  return limits;
}

/// planJourney's provider when the engine has no TfL: every query is told
/// so (no gate, no upstream, nothing logged at start).
london_journey_actor::behavior_type no_london_journeys() {
  return {
    [](const journey_plan_request&) -> caf::result<journey_plan_reply> {
      return make_error(ec::data_not_available,
                        "London journeys are not configured here",
                        "give engine_config::tfl.url (TfL's Unified API) or "
                        "a providers.london_journeys factory");
    },
  };
}

/// transit_coverage's upstream providers: Digitransit when it serves,
/// TfL when configured, as the engine runs them.
std::vector<provider_coverage> upstream_coverage(const engine_config& config,
                                                 bool digitransit) {
  std::vector<provider_coverage> out;
  if (digitransit) {
    provider_coverage hsl;
    hsl.name = "Digitransit";
    hsl.kind = "digitransit";
    hsl.state = config.demo_routing ? "demo" : "live";
    hsl.id_prefix = "HSL:";
    hsl.area = config.plan_region;
    hsl.agencies = {"HSL"};
    hsl.timezone = "Europe/Helsinki";
    hsl.languages = {"en", "fi", "sv"};
    hsl.tools = tools_of("digitransit", false);
    out.push_back(std::move(hsl));
  }
  bool toilets = config.demo_station_data
                 || static_cast<bool>(config.station_toilets.reader);
  if (!config.tfl.url.empty() || config.providers.london_journeys) {
    provider_coverage tfl;
    tfl.name = "TfL";
    tfl.kind = "tfl";
    tfl.state = config.demo_tfl ? "demo" : "live";
    // D18: an explicit URL without a key answers UPSTREAM_ERROR per call.
    if (!config.demo_tfl && !config.providers.london_journeys
        && config.tfl.key_required && config.tfl.api_key.empty())
      tfl.problem = "no TfL key: planJourney, London departures and line "
                    "status answer upstream-error until one is given "
                    "(tfl.api-key)";
    tfl.area = tfl::london_area();
    tfl.agencies = {"Transport for London"};
    tfl.timezone = "Europe/London";
    tfl.languages = {"en"};
    tfl.tools = tools_of("tfl", false, toilets);
    out.push_back(std::move(tfl));
  }
  return out;
}

/// `choice` when set, else `fallback`.
template <class Handle>
Handle make_provider(const provider_factory<Handle>& choice,
                     const provider_factory<Handle>& fallback,
                     provider_context& context) {
  return choice ? choice(context) : fallback(context);
}

} // namespace

tool_settings_map default_tool_settings() {
  return {
    {tool_of<plan_trip_request>(), {"trip planning", 8000, 0}},
    {tool_of<journey_plan_request>(), {"London journeys", 0, 5}},
    {tool_of<station_toilets_request>(), {"station toilets", 0, 10}}};
}

provider_choice default_providers() {
  provider_choice p;
  auto routing = [](provider_context& ctx) {
    auto options = ctx.config.digitransit_routing;
    options.demo = options.demo || ctx.config.demo_routing;
    return ctx.system.spawn(digitransit_routing, options,
                            ctx.gate("digitransit-routing"));
  };
  p.timetable = [routing](provider_context& ctx) -> timetable_actor {
    return routing(ctx);
  };
  p.journey_planner = [routing](provider_context& ctx)
    -> journey_planner_actor { return routing(ctx); };
  p.realtime = [routing](provider_context& ctx) -> realtime_info_actor {
    return routing(ctx);
  };
  p.network = [routing](provider_context& ctx) -> network_info_actor {
    return routing(ctx);
  };
  p.geocoding = [](provider_context& ctx) -> geocoding_actor {
    return ctx.system.spawn(digitransit_geocoding,
                            ctx.config.digitransit_geocoding,
                            ctx.gate("digitransit-geocoding"));
  };
  p.london_journeys = [](provider_context& ctx) -> london_journey_actor {
    return ctx.system.spawn(tfl_journey, ctx.config.tfl, ctx.gate("tfl"));
  };
  return p;
}

upstream_gate_actor engine::gate(const std::string& upstream) const {
  auto it = gates.find(upstream);
  return it == gates.end() ? upstream_gate_actor{} : it->second;
}

engine spawn_engine(caf::actor_system& system, const engine_config& config) {
  engine result;
  result.variable_store = spawn_variable_store(system, config.variables);
  shared_quota quota;
  redis_actor cache_redis;
  if (!config.shared.url.empty()) {
    auto endpoint = parse_redis_url(config.shared.url);
    if (!endpoint)
      throw std::runtime_error(endpoint.error().message);
    // Two connections: a slow cache transfer never delays a permit.
    quota.redis = spawn_redis(system, config.shared, *endpoint, "redis:quota");
    cache_redis = spawn_redis(system, config.shared, *endpoint, "redis:cache");
    quota.prefix = config.shared.prefix;
    quota.replicas = config.shared.replicas;
    quota.timeout_ms = config.shared.timeout_ms;
    result.redis = {quota.redis, cache_redis};
  }
  result.limiter = system.spawn(shared_rate_limiter, limits_of(config), quota);
  provider_context providers{system, config, {}};
  providers.gate = [&](const std::string& upstream) {
    auto& gate = result.gates[upstream];
    if (!gate) {
      auto options = config.upstream;
      options.name = upstream;
      options.principal_shares = config.principal_share > 0;
      gate = spawn_upstream_gate(system, std::move(options), result.limiter,
                                 config.http_workers_per_upstream);
    }
    return gate;
  };
  auto defaults = default_providers();
  const auto& chosen = config.providers;
  bool digitransit = config.feeds.empty() || config.digitransit_with_feeds;
  if (digitransit) {
    result.timetable = make_provider(chosen.timetable, defaults.timetable,
                                     providers);
    result.journey_planner = make_provider(
      chosen.journey_planner, defaults.journey_planner, providers);
    result.geocoding = make_provider(chosen.geocoding, defaults.geocoding,
                                     providers);
    // Digitransit's alerts go with Digitransit's timetable: an embedder
    // that replaced it gives its own realtime, or none.
    if (chosen.realtime)
      result.realtime = chosen.realtime(providers);
    else if (!chosen.timetable && !chosen.journey_planner)
      result.realtime = defaults.realtime(providers);
    if (chosen.network)
      result.network = chosen.network(providers);
    else if (!chosen.timetable && !chosen.journey_planner)
      result.network = defaults.network(providers);
  }
  // Providers run only when configured: without a TfL URL (or a provider
  // of its own) London journeys answer that they are not served.
  if (chosen.london_journeys || !config.tfl.url.empty())
    result.tfl_journey = make_provider(chosen.london_journeys,
                                       defaults.london_journeys, providers);
  else
    result.tfl_journey = system.spawn(no_london_journeys);
  // Feeds: FEED actors behind a PROVIDER_SWITCH that the tools ask.
  timetable_actor timetable = result.timetable;
  journey_planner_actor journey_planner = result.journey_planner;
  geocoding_actor geocoding = result.geocoding;
  // London's departures and line status: TfL's StopPoint and Line APIs,
  // where TfL is configured (its URL, or the demo upstream).
  tfl_network_actor tfl_network_handle;
  if (!config.tfl.url.empty()) {
    tfl_network_handle = system.spawn(tfl_network, config.tfl,
                                      providers.gate("tfl"), config.demo_tfl);
    result.tfl_network = tfl_network_handle;
  }
  if (!config.feeds.empty() || tfl_network_handle) {
    std::vector<provider_entry> entries;
    for (auto options : config.feeds) {
      // One clock for the whole engine: the feeds' realtime ages and the
      // window of service days they keep (from a week before its today,
      // unless the feed's options name a day).
      options.clock_offset_ms = config.clock_offset_ms;
      if (options.load.anchor_day == 0)
        options.load.anchor_day = static_cast<int32_t>(
          (now_ms() + config.clock_offset_ms) / 86'400'000 - 7);
      auto slot = std::make_shared<feed_slot>(options.name);
      auto handle = spawn_gtfs_feed(system, options, slot);
      result.feeds.push_back(handle);
      result.feed_slots.push_back(slot);
      provider_entry feed;
      feed.name = "feed " + options.name;
      feed.stop_prefix = options.name + ":";
      feed.area = [slot]() -> std::optional<region> {
        auto current = slot->current();
        if (!current)
          return std::nullopt;
        return current->area;
      };
      feed.unavailable = [slot] { return slot->unavailable(); };
      feed.timetable = handle;
      feed.journey_planner = handle;
      feed.geocoding = handle;
      feed.realtime = handle;
      feed.network = handle;
      entries.push_back(std::move(feed));
    }
    if (digitransit) {
      provider_entry hsl;
      hsl.name = "Digitransit";
      hsl.area = [area = config.plan_region] {
        return std::optional<region>{area};
      };
      hsl.timetable = result.timetable;
      hsl.journey_planner = result.journey_planner;
      hsl.geocoding = result.geocoding;
      hsl.realtime = result.realtime;
      hsl.network = result.network;
      // Digitransit's ids are FEED:ID ("HSL:1040129"); an embedder's own
      // timetable may use any.
      if (!chosen.timetable) {
        hsl.claims = [](const std::string& id) {
          auto colon = id.find(':');
          return colon != std::string::npos && colon > 0
                 && colon + 1 < id.size();
        };
        hsl.id_forms = "HSL:1040129 (Digitransit)";
      }
      hsl.feed_name = "hsl";
      hsl.questions = ask_trips | ask_routes | ask_status;
      if (config.feeds_first)
        entries.push_back(std::move(hsl));
      else
        entries.insert(entries.begin(), std::move(hsl));
    }
    if (tfl_network_handle) {
      // London's departures, lines and line status; no journeys here
      // (planJourney), no geocoder, no realtime feed of its own.
      provider_entry tfl;
      tfl.name = "TfL";
      tfl.area = [] { return std::optional<region>{tfl::london_area()}; };
      tfl.timetable = tfl_network_handle;
      tfl.network = tfl_network_handle;
      tfl.claims = [](const std::string& id) { return tfl::is_stop_id(id); };
      tfl.id_forms = std::string{tfl::stop_id_forms};
      tfl.feed_name = "tfl";
      tfl.questions = ask_status | ask_routes;
      entries.push_back(std::move(tfl));
    }
    result.provider_switch = system.spawn(provider_switch, std::move(entries));
    timetable = result.provider_switch;
    journey_planner = result.provider_switch;
    geocoding = result.provider_switch;
  }
  // A cancelled call's shared upstream work is aborted at the gates.
  std::vector<cancel_listener_actor> all_gates;
  for (const auto& [name, gate] : result.gates)
    all_gates.emplace_back(gate);
  auto cache_options = config.cache;
  cache_options.name = "timetable";
  cache_options.upstream_cancel = all_gates;
  cache_options.redis = cache_redis;
  cache_options.shared = config.shared;
  result.timetable_cache = spawn_timetable_cache(system, timetable,
                                                 cache_options);
  cache_options.name = "geocoding";
  result.geocoding_cache = spawn_geocoding_cache(system, geocoding,
                                                 cache_options);

  const warning demo_warning{
    "demo-data", "answered from the built-in demo upstream, not live data; "
                 "configure engine_config::digitransit_routing.api_key "
                 "for real data"};
  std::vector<warning> clock_warnings;
  if (config.clock_offset_ms != 0)
    clock_warnings.push_back(
      {"simulated-time",
       "computed for the engine's simulated clock "
       "(engine_config::clock_offset_ms), not the real "
       "time"});
  result.deadlines = spawn_deadline_keeper(system);
  auto tool_defaults = [&] {
    tool_options t;
    t.deadlines = result.deadlines;
    t.timeout_ms = config.tool_timeout_ms;
    t.clock_offset_ms = config.clock_offset_ms;
    t.standing_warnings = clock_warnings;
    return t;
  };
  tool_options helsinki = tool_defaults();
  if (config.demo_routing && config.feeds.empty())
    helsinki.standing_warnings.push_back(demo_warning);
  tool_options geocoder = tool_defaults();
  if (config.demo_geocoding && config.feeds.empty())
    geocoder.standing_warnings.push_back(demo_warning);
  // With London beside Helsinki each provider marks its own demo answers
  // (a live TfL board must not say demo because Digitransit's is).
  result.departures_board = system.spawn(
    departures_board, timetable_actor{result.timetable_cache},
    result.variable_store, tfl_network_handle ? tool_defaults() : helsinki);
  result.stop_finder = system.spawn(stop_finder,
                                    timetable_actor{result.timetable_cache},
                                    helsinki);
  result.address_geocoder = system.spawn(
    address_geocoder, geocoding_actor{result.geocoding_cache}, geocoder);
  // Realtime (vehicles, alerts) comes from the feeds' --gtfs-rt and from
  // Digitransit (alerts), through the provider switch when there are
  // feeds.
  realtime_info_actor realtime = result.realtime;
  if (result.provider_switch)
    realtime = result.provider_switch;
  result.vehicle_tracker = system.spawn(vehicle_tracker, realtime,
                                        tool_defaults());
  result.alert_board = system.spawn(alert_board, realtime, tool_defaults());
  // The network's own questions: the feeds', through the provider switch.
  network_info_actor network;
  if (result.provider_switch)
    network = result.provider_switch;
  result.trip_viewer = system.spawn(trip_viewer, network, tool_defaults());
  result.reach_finder = system.spawn(reach_finder, network,
                                     result.variable_store, tool_defaults());
  result.line_viewer = system.spawn(line_viewer, network, tool_defaults());
  result.status_board = system.spawn(status_board, network, tool_defaults());
  result.coverage_board = system.spawn(coverage_board, result.feeds,
                                       upstream_coverage(config, digitransit),
                                       tool_defaults());
  trip_planner_options planner;
  planner.tool = helsinki;
  planner.area = config.plan_region;
  planner.speculative_relax = config.speculative_relax;
  planner.check_area = config.feeds.empty();
  result.trip_planner = system.spawn(trip_planner, journey_planner,
                                     result.variable_store, planner);
  auto toilets = config.station_toilets;
  if (!toilets.reader && config.demo_station_data) {
    toilets.reader = demo_station_data_reader();
    toilets.source = "the built-in demo set";
    toilets.tool.standing_warnings.push_back(
      {"demo-data", "answered from the built-in demo station data, not "
                    "TfL's; configure station_toilets_options::reader"});
  }
  if (toilets.tool.timeout_ms == 0)
    toilets.tool.timeout_ms = config.tool_timeout_ms;
  result.station_toilets = spawn_station_toilets(system, std::move(toilets));
  tool_options london = tool_defaults();
  if (config.demo_tfl)
    london.standing_warnings.push_back(
      {"demo-data", "answered from the built-in demo upstream, not TfL; "
                    "configure TFL_API_KEY for real journeys"});
  result.london_journeys = system.spawn(london_journeys, result.tfl_journey,
                                        london);

  tool_router_targets targets;
  targets.serve<get_departures_request>(result.departures_board);
  targets.serve<find_stops_request>(result.stop_finder);
  targets.serve<geocode_request>(result.address_geocoder);
  targets.serve<plan_trip_request>(result.trip_planner);
  targets.serve<station_toilets_request>(result.station_toilets);
  targets.serve<journey_plan_request>(result.london_journeys);
  targets.serve<save_variable_request>(result.variable_store);
  targets.serve<get_variables_request>(result.variable_store);
  targets.serve<delete_variable_request>(result.variable_store);
  targets.serve<vehicle_positions_request>(result.vehicle_tracker);
  targets.serve<service_alerts_request>(result.alert_board);
  targets.serve<get_trip_request>(result.trip_viewer);
  targets.serve<reachable_request>(result.reach_finder);
  targets.serve<transit_coverage_request>(result.coverage_board);
  targets.serve<get_route_request>(result.line_viewer);
  targets.serve<line_status_request>(result.status_board);
  targets.limiter = result.limiter;
  targets.principal_shares = config.principal_share > 0;
  targets.cancel_listeners = {result.timetable_cache, result.geocoding_cache};
  targets.cancel_listeners.insert(targets.cancel_listeners.end(),
                                  all_gates.begin(), all_gates.end());
  // A feed's searches run in the engine: a cancelled call stops them too.
  targets.cancel_listeners.insert(targets.cancel_listeners.end(),
                                  result.feeds.begin(), result.feeds.end());
  targets.tools = config.tools;
  targets.default_timeout_ms = config.tool_timeout_ms;
  if (auto missing = unserved_tools(targets); !missing.empty()) {
    std::string names;
    for (const auto& name : missing)
      names += (names.empty() ? "" : ", ") + name;
    throw std::logic_error("the engine serves no actor for " + names
                           + ": add targets.serve<Request>(actor)");
  }
  result.router = system.spawn(tool_router, std::move(targets));
  return result;
}

std::vector<counters_actor> engine::counter_sources() const {
  std::vector<counters_actor> sources{limiter};
  for (const auto& [name, gate] : gates)
    sources.emplace_back(gate);
  sources.emplace_back(timetable_cache);
  sources.emplace_back(geocoding_cache);
  sources.emplace_back(station_toilets);
  for (const auto& f : feeds)
    sources.emplace_back(f);
  for (const auto& r : redis)
    sources.emplace_back(r);
  return sources;
}

void engine::shutdown() {
  auto stop = [](const auto& handle) {
    if (handle)
      caf::anon_send_exit(handle, caf::exit_reason::user_shutdown);
  };
  stop(router);
  stop(departures_board);
  stop(stop_finder);
  stop(vehicle_tracker);
  stop(alert_board);
  stop(trip_viewer);
  stop(reach_finder);
  stop(coverage_board);
  stop(line_viewer);
  stop(status_board);
  stop(address_geocoder);
  stop(trip_planner);
  stop(station_toilets);
  stop(london_journeys);
  stop(tfl_journey);
  stop(timetable_cache);
  stop(geocoding_cache);
  stop(provider_switch);
  for (const auto& f : feeds)
    stop(f);
  stop(geocoding);
  stop(timetable);
  stop(journey_planner);
  stop(realtime);
  stop(network);
  stop(tfl_network);
  stop(deadlines.actor());
  stop(variable_store);
  for (const auto& [name, gate] : gates)
    stop(gate);
  stop(limiter);
  for (const auto& r : redis)
    stop(r);
}

bool await_detached_stopped(caf::actor_system& system, std::size_t baseline,
                            std::chrono::milliseconds limit) {
  // CAF 0.17 signals only when no detached thread is left, and keeps one of
  // its own (the printer) until its destructor: so the count is watched.
  auto until = std::chrono::steady_clock::now() + limit;
  while (system.detached_actors() > baseline) {
    if (std::chrono::steady_clock::now() >= until)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds{1});
  }
  return true;
}

} // namespace transitd
