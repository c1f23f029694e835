// transitd: the daemon. Parses the configuration, starts the embedded demo
// upstream when no real one is configured, spawns the engine in a CAF actor
// system and serves MCP over HTTP until SIGINT/SIGTERM.

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <pthread.h>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <spdlog/spdlog.h>

#include "actors/engine.hpp"
#include "providers/mock/mock_upstream.hpp"
#include "providers/tfl_station_data.hpp"
#include "transport/config.hpp"
#include "transport/gateway.hpp"
#include "providers/upstream_http.hpp"
#include "transport/http_server.hpp"
#include "transport/logging.hpp"
#include "transport/mcp.hpp"
#include "transport/ops.hpp"
#include "transport/signals.hpp"
#include "transport/tools.hpp"

#ifdef TRANSITD_WITH_JEMALLOC
// jemalloc's options, read when it starts (MALLOC_CONF in the environment
// still overrides them). By default every thread keeps a cache of up to 200
// freed blocks per size class, and with a few hundred HTTP threads that
// cache was half the daemon's resident memory (about 160 MB after a million
// calls at 256 connections). Smaller thread caches, 2 arenas (the default is
// 4 per core) and freed pages returned after 1 s instead of 10 s: about
// 120 MB, at the same throughput within the noise (docs/performance.md).
extern "C" {
// NOLINTNEXTLINE: the name jemalloc looks for.
const char* malloc_conf = "narenas:2,tcache_nslots_small_max:32,"
                          "tcache_nslots_large:8,dirty_decay_ms:1000,"
                          "muzzy_decay_ms:0";
}
#endif

namespace {

sigset_t shutdown_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

} // namespace

int main(int argc, char** argv) {
  using namespace transitd;
  // Block the shutdown signals before any thread exists, so that only the
  // waiter thread below receives them.
  auto signals = shutdown_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  std::vector<std::string> args(argv + 1, argv + argc);
  env_lookup env = [](const std::string& name) -> std::optional<std::string> {
    if (const char* v = std::getenv(name.c_str()); v != nullptr && *v)
      return std::string{v};
    return std::nullopt;
  };
  auto parsed = parse_config(args, env, read_text_file);
  if (!parsed) {
    std::cerr << "transitd: " << parsed.error().message << "\n"
              << "run 'transitd --help' for the options\n";
    return 2;
  }
  if (parsed->help) {
    std::cout << config_usage();
    return 0;
  }
  auto cfg = parsed->config;
  configure_logging(cfg.log_level, cfg.log_format);
  if (cfg.tokens)
    spdlog::info("authentication on: {} bearer token(s) from {}",
                 cfg.tokens->size(), cfg.auth_tokens_file);
  const std::string insecure_warning
    = "serving " + cfg.bind
      + " WITHOUT authentication (--insecure): anyone who can reach this "
        "port can use every tool and every saved variable";
  if (exposed_without_auth(cfg))
    spdlog::warn("{}", insecure_warning);

  // Embedded default: the mock upstream, in-process, for every provider
  // that has neither a key nor an explicit URL (or all with --demo).
  std::unique_ptr<mock::mock_upstream> demo;
  bool routing_demo = routing_uses_demo(cfg);
  bool geocoding_demo = geocoding_uses_demo(cfg);
  bool tfl_demo = tfl_uses_demo(cfg);
  if (routing_demo || geocoding_demo || tfl_demo) {
    demo = std::make_unique<mock::mock_upstream>();
    try {
      demo->start("127.0.0.1", 0);
    } catch (const std::exception& ex) {
      std::cerr << "transitd: cannot start the demo upstream: " << ex.what()
                << "\n";
      return 1;
    }
  }
  if (routing_demo) {
    cfg.digitransit_routing_url = demo->routing_url();
    spdlog::warn("demo mode: Digitransit routing is served by the built-in "
                 "mock upstream at {} (generated data, not live); set "
                 "DIGITRANSIT_API_KEY for real data",
                 demo->base_url());
  } else {
    spdlog::info("Digitransit routing: {} (key {})",
                 redact_url(cfg.digitransit_routing_url),
                 cfg.digitransit_api_key.empty() ? "absent" : "set");
  }
  if (geocoding_demo) {
    cfg.digitransit_geocoding_url = demo->geocoding_url();
    spdlog::warn("demo mode: Digitransit geocoding is served by the built-in "
                 "mock upstream at {}",
                 demo->base_url());
  } else {
    spdlog::info("Digitransit geocoding: {} (key {})",
                 redact_url(cfg.digitransit_geocoding_url),
                 cfg.digitransit_api_key.empty() ? "absent" : "set");
  }

  if (tfl_demo) {
    cfg.tfl_url = demo->base_url();
    spdlog::warn("demo mode: TfL journeys are served by the built-in mock "
                 "upstream at {}; set TFL_API_KEY for real data",
                 demo->base_url());
  } else {
    spdlog::info("TfL: {} (key {})", redact_url(cfg.tfl_url),
                 cfg.tfl_api_key.empty() ? "absent: planJourney will answer "
                                           "UPSTREAM_ERROR"
                                         : "set");
  }

  caf::actor_system_config caf_cfg;
  caf_cfg.set("scheduler.max-threads", cfg.scheduler_threads);
  add_message_types(caf_cfg);
  caf::actor_system system{caf_cfg};

  engine_config engine_cfg;
  engine_cfg.digitransit_routing.url = cfg.digitransit_routing_url;
  engine_cfg.digitransit_routing.api_key = cfg.digitransit_api_key;
  engine_cfg.digitransit_routing.timeout_ms = cfg.upstream_timeout_ms;
  engine_cfg.http_workers_per_upstream = cfg.http_workers;
  engine_cfg.tool_timeout_ms = cfg.tool_timeout_ms;
  engine_cfg.tool_timeouts_ms = cfg.tool_timeouts_ms;
  engine_cfg.tool_tps = cfg.tool_tps;
  // Outbound limits protect real API keys; the demo upstream has none.
  for (const auto& [name, tps] : cfg.upstream_tps) {
    bool demo_upstream = name == "tfl" ? tfl_demo
                         : name == "digitransit-routing" ? routing_demo
                                                         : geocoding_demo;
    if (!demo_upstream && tps > 0)
      engine_cfg.upstream_tps[name] = tps;
  }
  engine_cfg.upstream.retry.max_attempts = cfg.upstream_max_attempts;
  engine_cfg.upstream.retry.base_ms = cfg.upstream_backoff_ms;
  engine_cfg.upstream.retry.cap_ms = cfg.upstream_backoff_cap_ms;
  engine_cfg.upstream.breaker_failures = cfg.breaker_failures;
  engine_cfg.upstream.breaker_cooldown_ms = cfg.breaker_cooldown_ms;
  engine_cfg.cache.departures_ttl_ms = int64_t{cfg.cache_departures_ttl_s} * 1000;
  engine_cfg.cache.stops_ttl_ms = int64_t{cfg.cache_stops_ttl_s} * 1000;
  engine_cfg.cache.geocoding_ttl_ms = int64_t{cfg.cache_geocoding_ttl_s} * 1000;
  engine_cfg.cache.limits.max_entries = cfg.cache_max_entries;
  engine_cfg.cache.limits.max_bytes = cfg.cache_max_bytes;
  engine_cfg.digitransit_geocoding.url = cfg.digitransit_geocoding_url;
  engine_cfg.digitransit_geocoding.api_key = cfg.digitransit_api_key;
  engine_cfg.digitransit_geocoding.timeout_ms = cfg.upstream_timeout_ms;
  engine_cfg.speculative_relax = cfg.plan_speculative_relax;
  engine_cfg.tfl.url = cfg.tfl_url;
  engine_cfg.tfl.api_key = cfg.tfl_api_key;
  engine_cfg.tfl.key_required = !tfl_demo;
  engine_cfg.tfl.timeout_ms = cfg.upstream_timeout_ms;
  engine_cfg.demo_tfl = tfl_demo;
  engine_cfg.demo_routing = routing_demo;
  engine_cfg.demo_geocoding = geocoding_demo;
  engine_cfg.variables.path = variable_store_path(cfg, env);
  auto station_dir = station_data_directory(
    cfg, env, [](const std::string& dir) {
      std::error_code ec;
      return std::filesystem::is_directory(dir, ec);
    });
  engine_cfg.station_toilets.tool.timeout_ms = cfg.tool_timeout_ms;
  if (station_dir.empty()) {
    spdlog::warn("demo mode: stationToilets answers from a small built-in "
                 "station data set; get TfL's 'station data detailed' and "
                 "pass --tfl-station-data DIR");
  } else {
    engine_cfg.station_toilets.reader = directory_reader(station_dir);
    engine_cfg.station_toilets.source = station_dir;
  }
  if (engine_cfg.variables.path != ":memory:") {
    std::error_code ec;
    std::filesystem::create_directories(
      std::filesystem::path{engine_cfg.variables.path}.parent_path(), ec);
    if (ec) {
      std::cerr << "transitd: cannot create the data directory for "
                << engine_cfg.variables.path << ": " << ec.message() << "\n";
      return 1;
    }
  }
  engine engine;
  try {
    engine = spawn_engine(system, engine_cfg);
  } catch (const std::exception& ex) {
    std::cerr << "transitd: " << ex.what() << "\n";
    return 1;
  }
  spdlog::info("saved variables: {}", engine_cfg.variables.path);

  gateway gw{system, engine.router, cfg.gateway_shards};
  auto catalog = mcp::make_tool_catalog(gw);
  mcp::endpoint_options endpoint_opts;
  endpoint_opts.allowed_hosts = cfg.allowed_hosts;
  endpoint_opts.allowed_origins = cfg.allowed_origins;
  endpoint_opts.tokens = cfg.tokens;
  endpoint_opts.max_body_bytes = cfg.max_body_bytes;
  endpoint_opts.max_header_bytes = cfg.max_header_bytes;
  endpoint_opts.max_argument_bytes = cfg.max_argument_bytes;
  endpoint_opts.max_sessions = cfg.max_sessions;
  endpoint_opts.session_idle_timeout
    = std::chrono::seconds{cfg.session_idle_timeout_s};
  endpoint_opts.tool_timeout_ms = cfg.tool_timeout_ms;
  endpoint_opts.tool_timeouts_ms = cfg.tool_timeouts_ms;
  mcp::endpoint endpoint{endpoint_opts, catalog};

  ops_options ops_opts;
  ops_opts.metrics_auth = cfg.metrics_auth;
  auto provider = [](bool on_demo, bool has_key, bool key_required) {
    return on_demo    ? std::string{"demo"}
           : has_key || !key_required ? std::string{"live"}
                      : std::string{"live, no key: its calls answer "
                                    "UPSTREAM_ERROR"};
  };
  ops_opts.providers = {
    {"digitransit-routing",
     provider(routing_demo, !cfg.digitransit_api_key.empty(), false)},
    {"digitransit-geocoding",
     provider(geocoding_demo, !cfg.digitransit_api_key.empty(), false)},
    {"tfl", provider(tfl_demo, !cfg.tfl_api_key.empty(), true)},
    {"station-data", station_dir.empty() ? "built-in demo set" : station_dir}};
  ops_endpoints ops{system, engine, endpoint, ops_opts};

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
  server_opts.tls_cert = cfg.tls_cert;
  server_opts.tls_key = cfg.tls_key;
  http_routes routes;
  routes.mcp = [&endpoint](const mcp::http_request& r,
                           mcp::reply_sink done) {
    endpoint.handle(r, std::move(done));
  };
  routes.metrics = [&ops](const mcp::http_request& r) {
    return ops.metrics(r);
  };
  routes.ready = [&ops](const mcp::http_request& r) { return ops.ready(r); };
  std::unique_ptr<http_server> server_holder;
  int port = 0;
  try {
    server_holder = std::make_unique<http_server>(server_opts, routes);
    port = server_holder->bind();
  } catch (const std::exception& ex) {
    std::cerr << "transitd: " << ex.what() << "\n";
    gw.stop();
    engine.shutdown();
    return 1;
  }
  auto& server = *server_holder;
  spdlog::info("transitd listening on {}://{}:{}/mcp",
               cfg.tls_cert.empty() ? "http" : "https", cfg.bind, port);

  // Graceful shutdown: on SIGTERM/SIGINT stop accepting, let the calls in
  // flight finish for up to shutdown-grace-ms, then cancel what is left.
  std::mutex served_mutex;
  std::condition_variable served_cv;
  bool served = false;
  auto grace = std::chrono::milliseconds{cfg.shutdown_grace_ms};
  std::thread signal_waiter{[&, signals] {
    // --insecure is warned about at start and then every hour.
    std::function<void()> remind;
    if (exposed_without_auth(cfg))
      remind = [&insecure_warning] { spdlog::warn("{}", insecure_warning); };
    int received = wait_for_signal(signals, std::chrono::hours{1}, remind);
    spdlog::info("received {}, shutting down: no new connections, calls in "
                 "flight get up to {} ms",
                 strsignal(received), grace.count());
    server.stop();
    std::unique_lock<std::mutex> lock{served_mutex};
    if (!served_cv.wait_for(lock, grace, [&] { return served; })) {
      spdlog::warn("grace period over: cancelling the calls still in flight");
      endpoint.cancel_all();
    }
  }};
  server.run();
  {
    std::lock_guard<std::mutex> guard{served_mutex};
    served = true;
  }
  served_cv.notify_all();
  // Stop order: no new calls, wake waiting HTTP threads, then the actors;
  // the variable store closes its database (WAL checkpoint) on exit.
  endpoint.cancel_all();
  gw.stop();
  engine.shutdown();
  if (demo)
    demo->stop();
  if (signal_waiter.joinable()) {
    // server.run() may also end on its own (e.g. a socket error).
    pthread_kill(signal_waiter.native_handle(), SIGTERM);
    signal_waiter.join();
  }
  spdlog::info("transitd stopped");
  return 0;
}
