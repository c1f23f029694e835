#pragma once
// An httplib server on a free port of 127.0.0.1, serving in the
// background until the test ends: register routes on `server`, then
// start().

#include <string>
#include <thread>

#include <catch2/catch.hpp>
#include <httplib.h>

namespace transitd::test {

struct local_http_server {
  httplib::Server server;
  std::thread thread;
  int port = 0;

  void start() {
    port = server.bind_to_any_port("127.0.0.1");
    REQUIRE(port > 0);
    thread = std::thread{[this] { server.listen_after_bind(); }};
    while (!server.is_running())
      std::this_thread::yield();
  }

  ~local_http_server() {
    server.stop();
    if (thread.joinable())
      thread.join();
  }

  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port) + path;
  }
};

} // namespace transitd::test
