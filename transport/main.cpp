// transitd: the daemon. Parses the configuration, builds the components
// (transport/daemon: the demo upstream when no real one is configured, the
// engine in a CAF actor system, MCP over HTTP) and serves until SIGINT or
// SIGTERM.

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <iostream>
#include <memory>
#include <optional>
#include <pthread.h>
#include <thread>

#include <spdlog/spdlog.h>

#include "transitd/transport/config.hpp"
#include "transitd/transport/daemon.hpp"
#include "transitd/transport/logging.hpp"
#include "transitd/transport/migrate_store.hpp"
#include "transitd/transport/signals.hpp"

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
  if (!args.empty() && args.front() == "migrate-store") {
    configure_logging("warn", "text", false);
    return migrate_store_command({args.begin() + 1, args.end()});
  }
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
  configure_logging(cfg.log_level, cfg.log_format, cfg.stdio);
  // A client that closes our standard output must not kill the daemon
  // (the write fails instead, and the calls in flight end normally).
  if (cfg.stdio)
    std::signal(SIGPIPE, SIG_IGN);
  if (cfg.tokens)
    spdlog::info("authentication on: {} bearer token(s) from {}",
                 cfg.tokens->size(), cfg.auth_tokens_file);
  const std::string insecure_warning
    = "serving " + cfg.bind
      + " WITHOUT authentication (--insecure): anyone who can reach this "
        "port can use every tool and every saved variable";
  if (exposed_without_auth(cfg))
    spdlog::warn("{}", insecure_warning);

  std::unique_ptr<transitd::daemon> served_daemon;
  try {
    served_daemon = std::make_unique<transitd::daemon>(cfg, env);
  } catch (const std::exception& ex) {
    std::cerr << "transitd: " << ex.what() << "\n";
    return 1;
  }
  auto& d = *served_daemon;
  if (cfg.stdio)
    spdlog::info("transitd serving MCP on standard input and output");
  else
    spdlog::info("transitd listening on {}://{}:{}/mcp",
                 cfg.tls_cert.empty() ? "http" : "https", cfg.bind, d.port());

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
    d.stop_listening();
    std::unique_lock<std::mutex> lock{served_mutex};
    if (!served_cv.wait_for(lock, grace, [&] { return served; })) {
      spdlog::warn("grace period over: cancelling the calls still in flight");
      d.cancel_calls();
    }
  }};
  d.run();
  {
    std::lock_guard<std::mutex> guard{served_mutex};
    served = true;
  }
  served_cv.notify_all();
  d.stop();
  if (signal_waiter.joinable()) {
    // run() may also end on its own (e.g. a socket error).
    pthread_kill(signal_waiter.native_handle(), SIGTERM);
    signal_waiter.join();
  }
  served_daemon.reset();
  spdlog::info("transitd stopped");
  return 0;
}
