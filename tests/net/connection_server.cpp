// connection_server over real sockets on 127.0.0.1: what any server built
// on it (the daemon's listener, the mock upstream) gets from it without
// asking: the head budget ends with the headers, a handler_scope lifts the
// request deadline while its handler works, shut_down() ends idle
// keep-alive waits.

#include "transitd/net/connection_server.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include <catch2/catch.hpp>
#include <httplib.h>

#include "tests/support/moving_clock.hpp"

using namespace transitd;
using namespace std::chrono_literals;

namespace {

constexpr std::size_t big_reply = 32 * 1024 * 1024;


struct served {
  test::moving_clock clock;
  std::unique_ptr<connection_server> server;
  std::thread thread;
  int port = 0;

  served(connection_limits limits, std::chrono::milliseconds keep_alive) {
    limits.clock = clock.function();
    server = std::make_unique<connection_server>(limits, keep_alive);
    server->Post("/echo", [](const httplib::Request& req,
                             httplib::Response& res) {
      res.set_content(std::to_string(req.body.size()), "text/plain");
    });
    // Slow handlers with a reply too big for the socket buffers, so that
    // sending it has to wait, and the deadline decides.
    server->Get("/slow-scoped", [this](const httplib::Request&,
                                       httplib::Response& res) {
      handler_scope handling;
      clock.advance(60s); // the handler "takes" a minute
      res.set_content(std::string(big_reply, 'r'), "text/plain");
    });
    server->Get("/slow", [this](const httplib::Request&,
                                httplib::Response& res) {
      clock.advance(60s);
      res.set_content(std::string(big_reply, 'r'), "text/plain");
    });
    port = server->bind_to_any_port("127.0.0.1");
    REQUIRE(port > 0);
    thread = std::thread{[this] { server->listen_after_bind(); }};
    while (!server->is_running())
      std::this_thread::yield();
  }
  ~served() {
    if (thread.joinable()) {
      server->shut_down();
      thread.join();
    }
  }
};

connection_limits limits(std::chrono::milliseconds request_timeout,
                         std::size_t max_head_bytes = 24 * 1024) {
  connection_limits l;
  l.read_timeout = 5s;
  l.write_timeout = 5s;
  l.request_timeout = request_timeout;
  l.max_head_bytes = max_head_bytes;
  return l;
}

} // namespace

TEST_CASE("the head budget ends with the headers: a body beyond it is read",
          "[http][connection_server]") {
  served s{limits(5s, 1024), 5s};
  httplib::Client client{"127.0.0.1", s.port};
  client.set_read_timeout(10, 0);
  auto res = client.Post("/echo", std::string(10000, 'x'), "text/plain");
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(res->body == "10000");
  // The head itself is still bounded: 431, and the connection closes.
  httplib::Headers big{{"X-Filler", std::string(2000, 'h')}};
  auto refused = client.Post("/echo", big, "x", "text/plain");
  REQUIRE(refused);
  CHECK(refused->status == 431);
}

TEST_CASE("a handler_scope lets its handler outlast the request deadline",
          "[http][connection_server]") {
  // The handlers move the server's clock a minute on: past the request
  // deadline (30 s), while the reply's own 30 s leave real time to spare.
  served s{limits(30s), 5s};
  httplib::Client client{"127.0.0.1", s.port};
  client.set_read_timeout(60, 0);
  // The reply gets a deadline of its own (30 s) once the handler is done.
  auto scoped = client.Get("/slow-scoped");
  REQUIRE(scoped);
  CHECK(scoped->status == 200);
  CHECK(scoped->body.size() == big_reply);
  // Without one, the request's deadline has passed by the time the reply is
  // due: what the socket buffers take goes out, then the connection closes.
  auto unscoped = client.Get("/slow");
  CHECK_FALSE(unscoped);
}

TEST_CASE("shut_down() ends idle keep-alive waits at once",
          "[http][connection_server]") {
  served s{limits(5s), std::chrono::hours{1}};
  httplib::Client client{"127.0.0.1", s.port};
  client.set_keep_alive(true);
  auto res = client.Post("/echo", "abc", "text/plain");
  REQUIRE(res);
  CHECK(res->body == "3");
  // The connection now waits (for an hour) for its next request.
  s.server->shut_down();
  auto joined = std::async(std::launch::async, [&s] { s.thread.join(); });
  // A bound so that a regression fails instead of hanging the suite.
  REQUIRE(joined.wait_for(20s) == std::future_status::ready);
}
