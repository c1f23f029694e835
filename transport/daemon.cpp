#include "transitd/transport/daemon.hpp"

#include "transitd/store/postgres_store.hpp"

#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <spdlog/spdlog.h>

#include "transitd/actors/engine.hpp"
#include "transitd/providers/mock/mock_upstream.hpp"
#include "transitd/providers/tfl_station_data.hpp"
#include "transitd/providers/upstream_http.hpp"
#include "transitd/transport/gateway.hpp"
#include "transitd/transport/http_server.hpp"
#include "transitd/transport/mcp_http.hpp"
#include "transitd/transport/ops.hpp"
#include "transitd/transport/stdio.hpp"
#include "transitd/messages/time.hpp"
#include "transitd/transport/tools.hpp"

namespace transitd {

namespace {

/// The sentence naming the areas the transit tools serve.
std::string served_regions(const daemon_config& cfg, bool routing_demo) {
  std::vector<std::string> parts;
  for (const auto& [name, sources] : cfg.gtfs_feeds)
    parts.push_back("GTFS feed " + name + " (stop ids " + name
                    + ":..., its area from its stops)");
  bool digitransit = cfg.gtfs_feeds.empty() || !routing_uses_demo(cfg);
  if (digitransit) {
    auto hsl = std::string{"the HSL region (Helsinki) via Digitransit"}
               + (routing_demo ? " (demo data)" : "");
    if (cfg.provider_order == "feeds-first")
      parts.push_back(hsl);
    else
      parts.insert(parts.begin(), hsl);
  }
  std::string out = "Regions served: ";
  for (std::size_t i = 0; i < parts.size(); ++i)
    out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return out + ".";
}

/// What the configured providers can answer: vehicles from a feed's
/// --gtfs-rt; alerts from that or from Digitransit (when it serves).
mcp::capabilities offered(const daemon_config& cfg) {
  mcp::capabilities offer;
  offer.everything = false;
  bool realtime = !cfg.gtfs_rt_feeds.empty();
  bool digitransit = cfg.gtfs_feeds.empty() || !routing_uses_demo(cfg);
  if (realtime)
    offer.offered.insert("vehicles");
  if (realtime || digitransit)
    offer.offered.insert("alerts");
  // The network's own questions: the feeds answer them all; Digitransit
  // trips and lines (not reach).
  if (!cfg.gtfs_feeds.empty())
    offer.offered.insert("reach");
  if (!cfg.gtfs_feeds.empty() || digitransit)
    offer.offered.insert("trips");
  // Line status: the feeds', and TfL's (live or on the demo upstream, so
  // always).
  offer.offered.insert("lines");
  return offer;
}

/// How /readyz describes a provider.
std::string provider_state(bool on_demo, bool has_key, bool key_required) {
  return on_demo                     ? std::string{"demo"}
         : has_key || !key_required ? std::string{"live"}
                                     : std::string{"live, no key: its calls "
                                                   "answer UPSTREAM_ERROR"};
}

engine_config engine_settings(const daemon_config& cfg, bool routing_demo,
                              bool geocoding_demo, bool tfl_demo,
                              const std::string& variables_path,
                              const std::string& station_dir) {
  // Downloaded feeds live beside the saved variables (or in the temporary
  // directory when those are kept in memory).
  auto feed_dir
    = (variables_path == ":memory:"
         ? std::filesystem::temp_directory_path() / "transitd-gtfs"
         : std::filesystem::path{variables_path}.parent_path() / "gtfs")
        .string();
  engine_config e;
  e.digitransit_routing.url = cfg.digitransit_routing_url;
  e.digitransit_routing.api_key = cfg.digitransit_api_key;
  e.digitransit_routing.timeout_ms = cfg.upstream_timeout_ms;
  e.digitransit_geocoding.url = cfg.digitransit_geocoding_url;
  e.digitransit_geocoding.api_key = cfg.digitransit_api_key;
  e.digitransit_geocoding.timeout_ms = cfg.upstream_timeout_ms;
  e.http_workers_per_upstream = cfg.http_workers;
  e.tool_timeout_ms = cfg.tool_timeout_ms;
  e.tools = mcp::tool_settings_by_name(cfg.tool_tps, cfg.tool_timeouts_ms);
  // Outbound limits protect real API keys; the demo upstream has none.
  for (const auto& [name, tps] : cfg.upstream_tps) {
    bool demo_upstream = name == "tfl"                   ? tfl_demo
                         : name == "digitransit-routing" ? routing_demo
                                                         : geocoding_demo;
    if (!demo_upstream && tps > 0)
      e.upstream_tps[name] = tps;
  }
  e.upstream_burst = cfg.upstream_burst;
  e.upstream.retry.max_attempts = cfg.upstream_max_attempts;
  e.upstream.retry.base_ms = cfg.upstream_backoff_ms;
  e.upstream.retry.cap_ms = cfg.upstream_backoff_cap_ms;
  e.upstream.breaker.min_calls = cfg.breaker_min_calls;
  e.upstream.breaker.failure_rate_percent = cfg.breaker_failure_rate;
  e.upstream.breaker.window_ms = int64_t{cfg.breaker_window_s} * 1000;
  e.upstream.breaker.cooldown_ms = cfg.breaker_cooldown_ms;
  e.cache.departures_ttl_ms = int64_t{departures_cache_ttl_s(cfg)} * 1000;
  e.cache.stops_ttl_ms = int64_t{cfg.cache_stops_ttl_s} * 1000;
  e.cache.geocoding_ttl_ms = int64_t{cfg.cache_geocoding_ttl_s} * 1000;
  e.cache.limits.max_entries = cfg.cache_max_entries;
  e.cache.limits.max_bytes = cfg.cache_max_bytes;
  e.speculative_relax = cfg.plan_speculative_relax;
  e.tfl.url = cfg.tfl_url;
  e.tfl.api_key = cfg.tfl_api_key;
  e.tfl.key_required = !tfl_demo;
  e.tfl.timeout_ms = cfg.upstream_timeout_ms;
  e.demo_tfl = tfl_demo;
  e.demo_routing = routing_demo;
  e.demo_geocoding = geocoding_demo;
  e.variables.path = cfg.store.empty() ? variables_path : cfg.store;
  e.variables.connections = cfg.store_connections;
  e.shared.url = cfg.redis;
  e.shared.prefix = cfg.redis_prefix;
  e.shared.replicas = cfg.replicas;
  e.shared_tool_limits = cfg.shared_tool_limits;
  // Shares need principals: only with authentication on.
  if (cfg.tokens || !cfg.oauth_issuers.empty())
    e.principal_share = cfg.principal_share_percent / 100.0;
  // --clock: results are computed for this instant, and the clock runs on.
  const int64_t clock_offset_ms
    = cfg.clock_start ? *cfg.clock_start * 1000 - now_ms() : 0;
  for (const auto& [name, sources] : cfg.gtfs_feeds) {
    gtfs_feed_options feed;
    feed.name = name;
    feed.sources = sources;
    feed.load.footpath_radius = cfg.gtfs_footpath_m;
    feed.download_dir = feed_dir;
    // Snapshots only where the data stays (not with --data-dir :memory:).
    if (cfg.gtfs_snapshots && variables_path != ":memory:")
      feed.snapshot_dir = feed_dir + "/snapshots";
    feed.refresh_s = cfg.gtfs_refresh_s;
    // A router per scheduler thread: as many searches side by side as
    // threads can run them (a speculative one only on an idle router).
    feed.routers = std::max<std::size_t>(1, cfg.scheduler_threads);
    for (const auto& [rt_key, rt_sources] : cfg.gtfs_rt_feeds)
      if (auto [rt_name, rank] = realtime_feed_of(rt_key); rt_name == name)
        for (const auto& source : rt_sources) {
          feed.realtime.push_back(source);
          feed.realtime_of.push_back(rank);
        }
    feed.realtime_options.interval_s = cfg.gtfs_rt_interval_s;
    feed.realtime_max_age_s = cfg.gtfs_rt_max_age_s;
    e.feeds.push_back(std::move(feed));
  }
  // Beside feeds, Digitransit serves only when it is real (a key or URL).
  e.digitransit_with_feeds = !routing_uses_demo(cfg);
  e.feeds_first = cfg.provider_order == "feeds-first";
  e.clock_offset_ms = clock_offset_ms;
  e.station_toilets.tool.timeout_ms = cfg.tool_timeout_ms;
  // Without --tfl-station-data the daemon answers from the demo set.
  e.demo_station_data = station_dir.empty();
  if (!station_dir.empty()) {
    e.station_toilets.reader = directory_reader(station_dir);
    e.station_toilets.source = station_dir;
  }
  return e;
}

} // namespace

daemon::daemon(daemon_config config, const env_lookup& env)
  : config_(std::move(config)) {
  auto& cfg = config_;
  // Embedded default: the mock upstream, in-process, for every provider
  // that has neither a key nor an explicit URL (or all with --demo).
  // With feeds and no Digitransit key, the feeds alone serve: no demo.
  bool feeds = !cfg.gtfs_feeds.empty();
  bool routing_demo = routing_uses_demo(cfg) && !feeds;
  bool geocoding_demo = geocoding_uses_demo(cfg) && !feeds;
  bool digitransit_off = feeds && routing_uses_demo(cfg);
  bool tfl_demo = tfl_uses_demo(cfg);
  if (routing_demo || geocoding_demo || tfl_demo) {
    demo_ = std::make_unique<mock::mock_upstream>();
    try {
      demo_->start("127.0.0.1", 0);
    } catch (const std::exception& ex) {
      throw std::runtime_error(std::string{"cannot start the demo upstream: "}
                               + ex.what());
    }
  }
  for (const auto& [name, sources] : cfg.gtfs_feeds) {
    std::string list;
    for (const auto& s : sources)
      list += (list.empty() ? "" : ", ") + s;
    spdlog::info("feed {}: loading {} (stop ids {}:...)", name, list, name);
  }
  if (cfg.clock_start)
    spdlog::warn("simulated clock: starts at {} (--clock); every result "
                 "says simulated-time",
                 format_utc(*cfg.clock_start));
  if (digitransit_off) {
    spdlog::info("Digitransit: off (no DIGITRANSIT_API_KEY); the feeds "
                 "serve departures, stops, geocoding and trips");
  } else if (routing_demo) {
    cfg.digitransit_routing_url = demo_->routing_url();
    spdlog::warn("demo mode: Digitransit routing is served by the built-in "
                 "mock upstream at {} (generated data, not live); set "
                 "DIGITRANSIT_API_KEY for real data",
                 demo_->base_url());
  } else {
    spdlog::info("Digitransit routing: {} (key {})",
                 redact_url(cfg.digitransit_routing_url),
                 cfg.digitransit_api_key.empty() ? "absent" : "set");
  }
  if (digitransit_off) {
    // Said above.
  } else if (geocoding_demo) {
    cfg.digitransit_geocoding_url = demo_->geocoding_url();
    spdlog::warn("demo mode: Digitransit geocoding is served by the built-in "
                 "mock upstream at {}",
                 demo_->base_url());
  } else {
    spdlog::info("Digitransit geocoding: {} (key {})",
                 redact_url(cfg.digitransit_geocoding_url),
                 cfg.digitransit_api_key.empty() ? "absent" : "set");
  }
  if (tfl_demo) {
    cfg.tfl_url = demo_->base_url();
    spdlog::warn("demo mode: TfL journeys are served by the built-in mock "
                 "upstream at {}; set TFL_API_KEY for real data",
                 demo_->base_url());
  } else {
    spdlog::info("TfL: {} (key {})", redact_url(cfg.tfl_url),
                 cfg.tfl_api_key.empty() ? "absent: planJourney will answer "
                                           "UPSTREAM_ERROR"
                                         : "set");
  }

  auto variables_path = variable_store_path(cfg, env);
  if (variables_path != ":memory:") {
    std::error_code ec;
    std::filesystem::create_directories(
      std::filesystem::path{variables_path}.parent_path(), ec);
    if (ec)
      throw std::runtime_error("cannot create the data directory for "
                               + variables_path + ": " + ec.message());
  }
  auto station_dir = station_data_directory(
    cfg, env, [](const std::string& dir) {
      std::error_code ec;
      return std::filesystem::is_directory(dir, ec);
    });
  if (station_dir.empty())
    spdlog::warn("demo mode: stationToilets answers from a small built-in "
                 "station data set; get TfL's 'station data detailed' and "
                 "pass --tfl-station-data DIR");

  caf_config_ = std::make_unique<caf::actor_system_config>();
  caf_config_->set("scheduler.max-threads", cfg.scheduler_threads);
  add_message_types(*caf_config_);
  system_ = std::make_unique<caf::actor_system>(*caf_config_);
  own_detached_ = system_->detached_actors();
  engine_ = std::make_unique<transitd::engine>(spawn_engine(
    *system_, engine_settings(cfg, routing_demo, geocoding_demo, tfl_demo,
                              variables_path, station_dir)));
  spdlog::info("saved variables: {}", cfg.store.empty()
                                         ? variables_path
                                         : redact_postgres_url(cfg.store));
  if (!cfg.redis.empty())
    spdlog::info("shared with the other replicas through Redis: the "
                 "outbound quota, 429 hold-offs and the caches ({} "
                 "replicas; each keeps to 1/{} of a quota while Redis is "
                 "unreachable)",
                 cfg.replicas, cfg.replicas);

  try {
    wire(station_dir, routing_demo, geocoding_demo, tfl_demo);
  } catch (...) {
    stop(); // the engine's actors exit, so the actor system can end
    throw;
  }
}

void daemon::wire(const std::string& station_dir, bool routing_demo,
                  bool geocoding_demo, bool tfl_demo) {
  const auto& cfg = config_;
  gateway_ = std::make_unique<gateway>(*system_, engine_->router,
                                       cfg.gateway_shards);
  auto regions = served_regions(cfg, routing_demo);
  catalog_ = std::make_unique<mcp::tool_catalog>(
    mcp::make_tool_catalog(*gateway_, regions, offered(cfg)));
  mcp::endpoint_options endpoint_opts;
  endpoint_opts.regions = regions;
  endpoint_opts.allowed_hosts = cfg.allowed_hosts;
  endpoint_opts.allowed_origins = cfg.allowed_origins;
  endpoint_opts.tokens = cfg.tokens;
  if (!cfg.oauth_issuers.empty()) {
    oauth::options oauth_opts;
    oauth_opts.issuers = cfg.oauth_issuers;
    oauth_opts.resource = cfg.oauth_resource;
    oauth_opts.refresh_interval
      = std::chrono::seconds{cfg.oauth_refresh_interval_s};
    endpoint_opts.oauth = std::make_shared<oauth::validator>(oauth_opts);
  }
  endpoint_opts.max_body_bytes = cfg.max_body_bytes;
  endpoint_opts.max_header_bytes = cfg.max_header_bytes;
  endpoint_opts.max_argument_bytes = cfg.max_argument_bytes;
  endpoint_opts.max_sessions = cfg.max_sessions;
  endpoint_opts.session_idle_timeout
    = std::chrono::seconds{cfg.session_idle_timeout_s};
  endpoint_opts.tool_timeout_ms = cfg.tool_timeout_ms;
  endpoint_opts.tool_timeouts_ms = cfg.tool_timeouts_ms;
  // One core; HTTP or stdio carries its messages.
  core_ = std::make_shared<mcp::core>(endpoint_opts, *catalog_);
  endpoint_ = std::make_unique<mcp::endpoint>(endpoint_opts, core_);

  ops_options ops_opts;
  ops_opts.metrics_auth = cfg.metrics_auth;
  bool digitransit_off = !cfg.gtfs_feeds.empty() && routing_uses_demo(cfg);
  ops_opts.providers = {
    {"digitransit-routing",
     digitransit_off
       ? std::string{"off: the feeds serve"}
       : provider_state(routing_demo, !cfg.digitransit_api_key.empty(), false)},
    {"digitransit-geocoding",
     digitransit_off ? std::string{"off: the feeds serve"}
                     : provider_state(geocoding_demo,
                                      !cfg.digitransit_api_key.empty(),
                                      false)},
    {"tfl", provider_state(tfl_demo, !cfg.tfl_api_key.empty(), true)},
    {"station-data", station_dir.empty() ? "built-in demo set" : station_dir}};
  // Scrapes come in through the server, so it exists by then.
  ops_opts.connections = [this] {
    return server_ ? server_->connection_stats() : reactor_stats{};
  };
  ops_ = std::make_unique<ops_endpoints>(*system_, *engine_, *endpoint_,
                                         ops_opts);

  http_server_options server_opts;
  server_opts.bind = cfg.bind;
  server_opts.port = cfg.port;
  server_opts.threads = cfg.http_threads;
  server_opts.max_body_bytes = cfg.max_body_bytes;
  server_opts.read_timeout_seconds = cfg.read_timeout_s;
  server_opts.write_timeout_seconds = cfg.write_timeout_s;
  server_opts.request_timeout_seconds = cfg.request_timeout_s;
  server_opts.max_header_bytes = cfg.max_header_bytes;
  server_opts.keep_alive_timeout_seconds = cfg.keep_alive_timeout_s;
  server_opts.max_connections_per_client
    = static_cast<std::size_t>(cfg.max_connections_per_client);
  server_opts.max_connections = static_cast<std::size_t>(cfg.max_connections);
  if (endpoint_->authenticating()) {
    server_opts.bearer_challenge = "Bearer realm=\"transitd\"";
    if (endpoint_opts.oauth)
      server_opts.bearer_challenge
        += ", " + endpoint_opts.oauth->challenge_parameter();
  }
  server_opts.tls_cert = cfg.tls_cert;
  server_opts.tls_key = cfg.tls_key;
  http_routes routes;
  routes.mcp = [this](const mcp::http_request& r, mcp::reply_sink done) {
    endpoint_->handle(r, std::move(done));
  };
  // Every route obeys allowed-hosts and allowed-origins as /mcp does (a
  // DNS-rebinding page must not read /metrics either).
  auto screened = [this](http_handler inner) -> http_handler {
    return [this, inner = std::move(inner)](const mcp::http_request& r) {
      if (auto refused = endpoint_->screen(r))
        return std::move(*refused);
      return inner(r);
    };
  };
  routes.metrics = screened(
    [this](const mcp::http_request& r) { return ops_->metrics(r); });
  routes.ready = screened(
    [this](const mcp::http_request& r) { return ops_->ready(r); });
  if (endpoint_opts.oauth) {
    auto document
      = mcp::json_reply(200, endpoint_opts.oauth->metadata());
    document.headers.emplace_back("Cache-Control", "max-age=3600");
    routes.resource_metadata = screened(
      [document](const mcp::http_request&) { return document; });
    routes.resource_metadata_path
      = oauth::validator::metadata_path(cfg.oauth_resource);
  }
  if (cfg.stdio) {
    // No listener: standard input and output carry MCP.
    stdio_ = std::make_unique<mcp::stdio_server>(*core_, STDIN_FILENO,
                                                 STDOUT_FILENO,
                                                 cfg.max_body_bytes);
    return;
  }
  server_ = std::make_unique<http_server>(server_opts, routes);
  port_ = server_->bind();
}

daemon::~daemon() {
  stop();
  // Members go in reverse order: the server before the endpoint it calls,
  // the actor system last but for the demo upstream.
  server_.reset();
  stdio_.reset();
  ops_.reset();
  endpoint_.reset();
  core_.reset();
  catalog_.reset();
  gateway_.reset();
  engine_.reset();
  // The workers' threads end while the actor system's clock still runs.
  if (system_ && !await_detached_stopped(*system_, own_detached_))
    spdlog::warn("shutdown: detached actors still running after 10 s");
  system_.reset();
}

void daemon::run() {
  if (stdio_)
    stdio_->run();
  else
    server_->run();
}

bool daemon::running() const {
  return server_ && server_->running();
}

void daemon::stop_listening() {
  if (stdio_)
    stdio_->stop();
  if (server_)
    server_->stop();
}

void daemon::cancel_calls() {
  if (endpoint_)
    endpoint_->cancel_all();
}

void daemon::stop() {
  if (stopped_)
    return;
  stopped_ = true;
  // No new calls, wake waiting HTTP threads, then the actors; the variable
  // store closes its database (WAL checkpoint) on exit.
  stop_listening();
  cancel_calls();
  if (gateway_)
    gateway_->stop();
  if (engine_)
    engine_->shutdown();
  if (demo_)
    demo_->stop();
}

caf::actor_system& daemon::system() {
  return *system_;
}

transitd::engine& daemon::engine() {
  return *engine_;
}

mcp::endpoint& daemon::endpoint() {
  return *endpoint_;
}

} // namespace transitd
