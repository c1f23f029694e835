// transit-mock-upstream: the mock upstream as a standalone process.
//
//   transit-mock-upstream [--port N] [--bind ADDR] [--threads N]
//                         [--latency-ms N] [--fault NAME] [--error-rate R]

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include <spdlog/spdlog.h>

#include "transitd/providers/mock/mock_upstream.hpp"

namespace {

volatile std::sig_atomic_t stop_requested = 0;

void on_signal(int) {
  stop_requested = 1;
}

void usage() {
  std::cout
    << "usage: transit-mock-upstream [options]\n"
       "  --port N         port on 127.0.0.1 (default 0 = any free; printed)\n"
       "  --bind ADDR      address to bind (default 127.0.0.1)\n"
       "  --threads N      server threads (default 64)\n"
       "  --latency-ms N   added latency per upstream request\n"
       "  --fault NAME     none|http500|http503|http429|hang|malformed|\n"
       "                   truncated|graphql-error\n"
       "  --error-rate R   share of requests (0..1) that get the fault\n"
       "Controls at runtime: POST /__mock/faults, GET /__mock/stats,\n"
       "POST /__mock/reset.\n";
}

} // namespace

int main(int argc, char** argv) {
  using transitd::mock::fault_settings;
  std::string bind = "127.0.0.1";
  int port = 0;
  std::size_t threads = 64;
  fault_settings faults;
  bool rate_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "transit-mock-upstream: " << flag << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    try {
      if (flag == "--help" || flag == "-h") {
        usage();
        return 0;
      } else if (flag == "--port") {
        port = std::stoi(value());
      } else if (flag == "--bind") {
        bind = value();
      } else if (flag == "--threads") {
        threads = static_cast<std::size_t>(std::stoul(value()));
      } else if (flag == "--latency-ms") {
        faults.latency_ms = std::stoi(value());
      } else if (flag == "--fault") {
        faults.fault = value();
      } else if (flag == "--error-rate") {
        faults.error_rate = std::stod(value());
        rate_given = true;
      } else {
        std::cerr << "transit-mock-upstream: unknown option " << flag << "\n";
        usage();
        return 2;
      }
    } catch (const std::exception&) {
      std::cerr << "transit-mock-upstream: bad value for " << flag << "\n";
      return 2;
    }
  }
  if (faults.fault != "none" && !rate_given)
    faults.error_rate = 1.0;
  transitd::mock::mock_upstream mock;
  mock.set_faults(faults);
  try {
    port = mock.start(bind, port, threads);
  } catch (const std::exception& ex) {
    std::cerr << "transit-mock-upstream: " << ex.what() << "\n";
    return 1;
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  // The port on stdout, alone on the first line, for scripts.
  std::cout << port << std::endl;
  spdlog::info("mock upstream listening on http://{}:{}", bind, port);
  while (!stop_requested)
    std::this_thread::sleep_for(std::chrono::milliseconds{50});
  mock.stop();
  return 0;
}
