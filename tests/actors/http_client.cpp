// An HTTP_CLIENT worker against a local server on 127.0.0.1: what it sends,
// and the bounds httplib's client lacks (a response's size, a whole
// attempt's time).

#include "transitd/actors/http_client.hpp"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <catch2/catch.hpp>
#include <httplib.h>

#include "transitd/messages/caf_glue.hpp"
#include "transitd/messages/error.hpp"
#include "support/local_http_server.hpp"
#include "support/moving_clock.hpp"

using namespace transitd;
using namespace std::chrono_literals;

namespace {

/// The upstream under test, on a free 127.0.0.1 port.
struct local_server {
  // Before the server: its handlers use them until it has stopped.
  std::atomic<bool> stopping{false};
  /// The clock of the clients under test (see /trickle).
  test::moving_clock clock;
  test::local_http_server http;
  httplib::Server& server = http.server;
  int port = 0;

  local_server() {
    server.Post("/echo", [](const httplib::Request& req,
                            httplib::Response& res) {
      res.set_content(req.get_header_value("Content-Type") + "|" + req.body,
                      "text/plain");
    });
    server.Get("/big", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(4096, 'b'), "application/json");
    });
    // One byte at a time without end: each byte moves the client's clock
    // 100 ms on (an upstream sending a byte every 100 ms, each wait well
    // inside the read timeout), until the client goes.
    server.Get("/trickle", [this](const httplib::Request&,
                                  httplib::Response& res) {
      res.set_chunked_content_provider(
        "application/json", [this](std::size_t offset, httplib::DataSink& sink) {
          if (stopping || offset >= 100000 || !sink.is_writable()) {
            sink.done();
            return true;
          }
          clock.advance(100ms);
          return sink.write("t", 1);
        });
    });
    http.start();
    port = http.port;
  }
  ~local_server() {
    stopping = true;
  }
};

struct client_fixture {
  local_server upstream;
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;

  client_fixture() {
    cfg.set("scheduler.max-threads", size_t{2});
    add_message_types(cfg);
    sys = std::make_unique<caf::actor_system>(cfg);
  }

  http_call call(std::string method, std::string target) const {
    http_call c;
    c.context.correlation_id = "test";
    c.method = std::move(method);
    c.origin = "http://127.0.0.1:" + std::to_string(upstream.port);
    c.target = std::move(target);
    c.timeout_ms = 1000;
    return c;
  }

  caf::expected<http_response> send(const http_worker& worker,
                                     http_call c) {
    caf::expected<http_response> out{caf::error{}};
    caf::scoped_actor self{*sys};
    self->request(worker.actor, 30s, std::move(c))
      .receive([&](http_response& r) { out = std::move(r); },
               [&](caf::error& e) { out = std::move(e); });
    return out;
  }
};

} // namespace

TEST_CASE_METHOD(client_fixture,
                 "http_client: a POST carries its body and content type",
                 "[http_client][actor]") {
  auto worker = spawn_http_client(*sys);
  auto c = call("POST", "/echo");
  c.body = "{\"query\":1}";
  c.content_type = "application/json";
  auto r = send(worker, c);
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->body == "application/json|{\"query\":1}");
}

TEST_CASE_METHOD(client_fixture,
                 "http_client: a response over the size cap is an upstream "
                 "error, one within it arrives whole",
                 "[http_client][actor][security]") {
  SECTION("over the cap") {
    auto worker = spawn_http_client(*sys, 1024);
    auto r = send(worker, call("GET", "/big"));
    REQUIRE_FALSE(r);
    auto f = to_failure(r.error());
    CHECK(f.code == ec::upstream_error);
    CHECK_THAT(f.message, Catch::Contains("over 1024 bytes"));
  }
  SECTION("within it") {
    auto worker = spawn_http_client(*sys, 4096);
    auto r = send(worker, call("GET", "/big"));
    REQUIRE(r);
    CHECK(r->body.size() == 4096);
  }
}

TEST_CASE_METHOD(client_fixture,
                 "http_client: an upstream trickling its body is cut off at "
                 "the attempt's timeout",
                 "[http_client][actor][timeout]") {
  auto worker = spawn_http_client(*sys, default_max_response_bytes,
                                  upstream.clock.function());
  // Each byte comes within the 1-s read timeout, and the body never ends:
  // on the client's clock, the attempt's 1 s runs out after about ten.
  auto r = send(worker, call("GET", "/trickle"));
  REQUIRE_FALSE(r);
  CHECK(to_failure(r.error()).code == ec::upstream_timeout);
  CHECK_THAT(to_failure(r.error()).message,
             Catch::Contains("did not answer within 1000 ms"));
  // (Without the attempt's own deadline the body would end after 100,000
  // bytes, well within the size cap, and the call succeed.)
}
