// The daemon open to a crowd, on 127.0.0.1 with two HTTP worker threads:
// idle keep-alive connections, slowloris clients and tool calls waiting on a
// slow upstream hold no worker, so /healthz and a cached tools/call are
// still answered; requests framed ambiguously are refused and closed; a
// client over its connection cap is told so. Counts and waits are bounded
// (each read by the client's own timeout).

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>
#include <httplib.h>

#include "support/daemon_harness.hpp"
#include "support/raw_client.hpp"

using namespace transitd;
using test::daemon_harness;
using test::mcp_client;
using test::raw_client;
using Catch::Contains;
namespace json = boost::json;

namespace {

/// GET /healthz on a fresh connection; 0 when no answer came within
/// `seconds`.
int health(int port, int seconds = 5) {
  httplib::Client client{"127.0.0.1", port};
  client.set_connection_timeout(seconds, 0);
  client.set_read_timeout(seconds, 0);
  auto res = client.Get("/healthz");
  return res ? res->status : 0;
}

/// A keep-alive connection that made one request and then sits idle.
std::unique_ptr<raw_client> idle_connection(int port) {
  auto c = std::make_unique<raw_client>(port);
  REQUIRE(c->send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  CHECK_THAT(c->receive(), Contains("200 OK"));
  return c;
}

/// A slowloris client: the start of a head, more of it now and then.
std::unique_ptr<raw_client> slowloris(int port) {
  auto c = std::make_unique<raw_client>(port);
  REQUIRE(c->send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a"));
  return c;
}

test::harness_options two_workers() {
  test::harness_options options;
  options.http_threads = 2;
  return options;
}

} // namespace

TEST_CASE("e2e: idle keep-alive and slowloris connections hold no worker: "
          "/healthz and a cached tools/call are answered",
          "[e2e][http][connections]") {
  auto options = two_workers();
  options.cache = true;
  daemon_harness daemon{options};
  mcp_client agent{daemon.port()};
  agent.initialize();
  test::structured(agent.call_tool("get_departures", test::departures_args()));
  std::vector<std::unique_ptr<raw_client>> crowd;
  for (int i = 0; i < 200; ++i)
    crowd.push_back(idle_connection(daemon.port()));
  for (int i = 0; i < 100; ++i)
    crowd.push_back(slowloris(daemon.port()));
  // With a worker per connection, both would be held for the keep-alive
  // timeout (30 s) and nothing below would be answered in time.
  for (int i = 0; i < 20; ++i) {
    for (std::size_t j = 200; j < crowd.size(); j += 10)
      crowd[j]->send("b"); // the slowloris keep trickling
    CHECK(health(daemon.port()) == 200);
    test::structured(
      agent.call_tool("get_departures", test::departures_args()));
  }
  // The crowd is still connected (idle ones within keep-alive).
  CHECK(crowd.front()->send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  CHECK_THAT(crowd.front()->receive(), Contains("200 OK"));
}

namespace {

/// Twelve tool calls wait on a slow upstream (3 s) while the daemon has two
/// HTTP workers; `streamed`: each asks for progress, so its reply is an SSE
/// stream whose events come while it waits. /healthz answers meanwhile.
void slow_calls_leave_workers_free(bool streamed) {
  auto options = two_workers();
  options.tool_timeout_ms = 8000;
  options.upstream_timeout_ms = 6000;
  options.http_workers = 16;
  daemon_harness daemon{options};
  mock::fault_settings slow;
  slow.latency_ms = 3000;
  daemon.mock().set_faults(slow);
  // Sessions opened here: Catch's assertions are for this thread only, so
  // the callers below only post and count.
  std::vector<std::unique_ptr<mcp_client>> agents;
  for (int i = 0; i < 12; ++i) {
    agents.push_back(std::make_unique<mcp_client>(daemon.port()));
    agents.back()->initialize();
  }
  std::atomic<int> answered{0};
  std::atomic<int> progressed{0};
  std::vector<std::thread> callers;
  for (int i = 0; i < 12; ++i)
    callers.emplace_back([&, i] {
      // Distinct stops: no cache or single flight shares their work.
      json::object params{
        {"name", "get_departures"},
        {"arguments",
         test::departures_args("HSL:10401" + std::to_string(10 + i))}};
      if (streamed)
        params["_meta"] = json::object{{"progressToken", i}};
      auto res = agents[static_cast<std::size_t>(i)]->post(
        json::object{{"jsonrpc", "2.0"},
                     {"id", 7},
                     {"method", "tools/call"},
                     {"params", params}});
      if (res.status == 200
          && res.body.find("structuredContent") != std::string::npos)
        ++answered;
      if (res.body.find("notifications/progress") != std::string::npos)
        ++progressed;
    });
  // While the twelve wait (3 s), the two workers are free: /healthz
  // answers well within the upstream's delay.
  std::this_thread::sleep_for(std::chrono::milliseconds{500});
  CHECK(health(daemon.port(), 2) == 200);
  if (streamed) {
    // The twelve streams are the event loop's, not the workers'.
    mcp_client observer{daemon.port()};
    CHECK_THAT(observer.get("/metrics").body,
               Contains("transitd_http_connections{phase=\"streaming\"} 12"));
  }
  for (auto& t : callers)
    t.join();
  CHECK(answered == 12);
  CHECK(progressed == (streamed ? 12 : 0));
}

} // namespace

TEST_CASE("e2e: tool calls waiting on a slow upstream hold no worker",
          "[e2e][http][connections]") {
  slow_calls_leave_workers_free(false);
}

TEST_CASE("e2e: streamed tool calls (SSE, with progress) waiting on a slow "
          "upstream hold no worker",
          "[e2e][http][connections][sse]") {
  slow_calls_leave_workers_free(true);
}

TEST_CASE("e2e: ambiguous framing is refused and the connection closed; a "
          "too-long Authorization line gets 431 with the Bearer challenge",
          "[e2e][http][connections][security]") {
  test::harness_options options;
  auto tokens = std::make_shared<token_table>();
  REQUIRE_FALSE(tokens->add("alice", "alice-token-0123456789abcdef"));
  options.tokens = tokens;
  daemon_harness daemon{options};
  auto exchange = [&](const std::string& bytes) {
    raw_client c{daemon.port()};
    c.send(bytes);
    return c.read_to_close();
  };
  auto two = exchange("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      "Content-Length: 2\r\nContent-Length: 40\r\n\r\n{}");
  CHECK_THAT(two, Contains("HTTP/1.1 400"));
  CHECK_THAT(two, Contains("more than one Content-Length"));
  CHECK_THAT(two, Contains("Connection: close"));
  auto smuggled = exchange(
    "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n"
    "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /metrics HTTP/1.1\r\n"
    "Host: 127.0.0.1\r\n\r\n");
  CHECK_THAT(smuggled, Contains("HTTP/1.1 400"));
  // Nothing after it was served: one reply, then the close.
  CHECK(smuggled.find("HTTP/1.1", 5) == std::string::npos);
  auto long_auth = exchange("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                            "Authorization: Bearer "
                            + std::string(9000, 'a') + "\r\n\r\n");
  CHECK_THAT(long_auth, Contains("HTTP/1.1 431"));
  CHECK_THAT(long_auth, Contains("WWW-Authenticate: Bearer realm="));
  auto long_other = exchange("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             "X-Long: "
                             + std::string(9000, 'a') + "\r\n\r\n");
  CHECK_THAT(long_other, Contains("HTTP/1.1 431"));
  CHECK(long_other.find("WWW-Authenticate") == std::string::npos);
  CHECK(health(daemon.port()) == 200);
}

TEST_CASE("e2e: a client over max-connections-per-client is told so and "
          "closed; its other connections go on",
          "[e2e][http][connections]") {
  auto options = two_workers();
  options.max_connections_per_client = 3;
  daemon_harness daemon{options};
  std::vector<std::unique_ptr<raw_client>> held;
  for (int i = 0; i < 3; ++i)
    held.push_back(idle_connection(daemon.port()));
  raw_client fourth{daemon.port()};
  auto refused = fourth.read_to_close();
  CHECK_THAT(refused, Contains("HTTP/1.1 503"));
  CHECK_THAT(refused, Contains("too many connections"));
  CHECK(held[0]->send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  CHECK_THAT(held[0]->receive(), Contains("200 OK"));
  // They close: room again (once the daemon has seen the closes).
  held.clear();
  int status = 0;
  for (int i = 0; i < 100 && status != 200; ++i) {
    raw_client probe{daemon.port()};
    probe.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    auto reply = probe.receive();
    status = reply.rfind("HTTP/1.1 200", 0) == 0 ? 200 : 0;
    if (status != 200)
      std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  CHECK(status == 200);
  mcp_client agent{daemon.port()};
  auto metrics = agent.get("/metrics");
  REQUIRE(metrics.status == 200);
  // The fourth, and any probe that came before the closes were seen.
  auto at = metrics.body.find("\ntransitd_http_connections_refused_total ");
  REQUIRE(at != std::string::npos);
  CHECK(std::stoi(metrics.body.substr(at + 41)) >= 1);
  CHECK_THAT(metrics.body, Contains("transitd_http_connections{phase=\"idle\"}"));
}
