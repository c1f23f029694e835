// Resilience end to end against the mock upstream over real HTTP: request
// coalescing, cancellation, the breaker, every injectable fault with
// recovery, and a mixed fault run whose figures docs/reliability.md quotes.

#include <atomic>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <caf/scoped_actor.hpp>
#include <catch2/catch.hpp>

#include <httplib.h>

#include "transitd/actors/tool_router.hpp"
#include "transitd/actors/trip_rules.hpp"
#include "support/daemon_harness.hpp"

namespace json = boost::json;
using namespace transitd;
using namespace std::chrono_literals;
using test::daemon_harness;
using test::mcp_client;
using test::departures_args;

namespace {

std::map<std::string, int64_t> counters_of(daemon_harness& daemon,
                                           const counters_actor& source) {
  caf::scoped_actor self{daemon.system()};
  std::map<std::string, int64_t> out;
  self->request(source, 5s, get_counters{})
    .receive(
      [&](counters& c) {
        for (auto& [name, value] : c.values)
          out[name] = value;
      },
      [](caf::error&) {});
  return out;
}

/// The code of a tool result: "ok" or the error's code.
std::string code_of(const json::object& result) {
  if (!result.at("isError").as_bool())
    return "ok";
  auto text = result.at("content").as_array().at(0).at("text").as_string();
  return std::string{
    json::parse(text).at("error").at("code").as_string()};
}

/// Deadlines long enough to outlast a 5-s upstream hang.
test::harness_options hang_tolerant() {
  test::harness_options options;
  options.tool_timeout_ms = 8000;
  options.upstream_timeout_ms = 6000;
  return options;
}

/// Every routing request hangs for 5 s.
void hang_routing(daemon_harness& daemon) {
  mock::fault_settings hang;
  hang.fault = "hang";
  hang.error_rate = 1;
  hang.hang_ms = 5000;
  daemon.mock().set_faults(hang);
}

/// Polls the routing gate's counters until `done` holds, for up to ~2 s.
template <class Done>
bool poll_routing_gate(daemon_harness& daemon, Done done) {
  auto gate = counters_actor{daemon.engine().gate("digitransit-routing")};
  for (int i = 0; i < 100; ++i) {
    auto c = counters_of(daemon, gate);
    if (done(c))
      return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

/// One attempt is at a routing worker.
bool attempt_in_flight(daemon_harness& daemon) {
  return poll_routing_gate(daemon, [](auto& c) {
    return c["digitransit-routing.in_flight"] == 1;
  });
}

/// The attempt was aborted and its worker is free.
bool attempt_cancelled(daemon_harness& daemon) {
  return poll_routing_gate(daemon, [](auto& c) {
    return c["digitransit-routing.in_flight"] == 0
           && c["digitransit-routing.cancelled"] == 1;
  });
}

} // namespace

TEST_CASE("e2e: 1000 concurrent identical get_departures make one upstream "
          "request",
          "[e2e][cache][single_flight]") {
  test::harness_options options;
  options.cache = true;
  daemon_harness daemon{options};
  mock::fault_settings slow;
  slow.latency_ms = 300; // every call arrives while the first is in flight
  daemon.mock().set_faults(slow);
  caf::scoped_actor self{daemon.system()};
  for (int i = 0; i < 1000; ++i) {
    get_departures_request r;
    r.stop = {stop_ref::kind::id, "HSL:1040129"};
    r.limit = 5;
    self->send(daemon.engine().router, std::move(r));
  }
  std::set<std::string> ids;
  std::set<std::string> freshness;
  int answered = 0;
  self->receive_for(answered, 1000)(
    [&](get_departures_reply& reply) {
      ids.insert(reply.correlation_id);
      freshness.insert(reply.data_freshness);
    },
    [&](caf::error& err) { FAIL_CHECK(to_failure(err).message); });
  CHECK(answered == 1000);
  CHECK(daemon.mock().stats().requests == 1);
  // Every call is its own call: its own correlation id; all report the
  // time of the one upstream answer they were built from.
  CHECK(ids.size() == 1000);
  CHECK(freshness.size() == 1);
  auto c = counters_of(daemon, daemon.engine().timetable_cache);
  CHECK(c["timetable.departures.misses"] == 1);
  CHECK(c["timetable.departures.coalesced"] == 999);
}

TEST_CASE("e2e: a cached answer over MCP keeps its upstream freshness and "
          "gets a new correlation id",
          "[e2e][cache]") {
  test::harness_options options;
  options.cache = true;
  daemon_harness daemon{options};
  mcp_client client{daemon.port()};
  client.initialize();
  auto first = test::structured(
    client.call_tool("get_departures", departures_args()));
  std::this_thread::sleep_for(1100ms);
  auto second = test::structured(
    client.call_tool("get_departures", departures_args()));
  CHECK(daemon.mock().stats().requests == 1);
  CHECK(second.at("correlationId") != first.at("correlationId"));
  CHECK(second.at("dataFreshness") == first.at("dataFreshness"));
  // Stops and geocoding are cached too (longer TTLs).
  json::object center{{"lat", 60.1699}, {"lon", 24.9384}};
  client.call_tool("find_stops", json::object{{"coordinate", center}});
  client.call_tool("find_stops", json::object{{"coordinate", center}});
  client.call_tool("geocode_address", json::object{{"text", "kamppi"}});
  client.call_tool("geocode_address", json::object{{"text", "kamppi"}});
  CHECK(daemon.mock().stats().requests == 3);
}

TEST_CASE("e2e: notifications/cancelled stops the upstream call it started",
          "[e2e][cancel]") {
  daemon_harness daemon{hang_tolerant()};
  hang_routing(daemon);
  mcp_client client{daemon.port()};
  client.initialize();
  std::atomic<int> status{0};
  std::thread caller{[&] {
    mcp_client second{daemon.port()};
    second.session_id = client.session_id;
    auto res = second.post(json::object{
      {"jsonrpc", "2.0"},
      {"id", "slow-1"},
      {"method", "tools/call"},
      {"params", json::object{{"name", "get_departures"},
                              {"arguments", departures_args()}}}});
    status = res.status;
  }};
  // Wait until the attempt is in flight at a worker.
  auto gate = counters_actor{daemon.engine().gate("digitransit-routing")};
  REQUIRE(attempt_in_flight(daemon));
  auto started = std::chrono::steady_clock::now();
  auto note = client.post(json::object{
    {"jsonrpc", "2.0"},
    {"method", "notifications/cancelled"},
    {"params", json::object{{"requestId", "slow-1"}, {"reason", "test"}}}});
  CHECK(note.status == 202);
  // The worker is free long before the 5 s hang ends: the call was aborted.
  CHECK(attempt_cancelled(daemon));
  CHECK(std::chrono::steady_clock::now() - started < 2s);
  caller.join();
  CHECK(status == 200);
  // One attempt, not retried after the abort.
  CHECK(counters_of(daemon, gate)["digitransit-routing.attempts"] == 1);
}

TEST_CASE("e2e: a client that disconnects stops the upstream call it "
          "started",
          "[e2e][cancel]") {
  daemon_harness daemon{hang_tolerant()};
  hang_routing(daemon);
  mcp_client client{daemon.port()};
  client.initialize();
  // A raw connection, so the test can hang up mid-call.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(daemon.port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr))
          == 0);
  auto body = json::serialize(json::object{
    {"jsonrpc", "2.0"},
    {"id", 7},
    {"method", "tools/call"},
    {"params", json::object{{"name", "get_departures"},
                            {"arguments", departures_args()}}}});
  auto request = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                 "Content-Type: application/json\r\n"
                 "Accept: application/json, text/event-stream\r\n"
                 "Mcp-Session-Id: "
                 + client.session_id
                 + "\r\nMCP-Protocol-Version: 2025-11-25\r\n"
                   "Content-Length: "
                 + std::to_string(body.size()) + "\r\n\r\n" + body;
  REQUIRE(::send(fd, request.data(), request.size(), 0)
          == static_cast<ssize_t>(request.size()));
  auto gate = counters_actor{daemon.engine().gate("digitransit-routing")};
  REQUIRE(attempt_in_flight(daemon));
  auto started = std::chrono::steady_clock::now();
  ::close(fd);
  // The worker is freed long before the 5 s hang ends.
  CHECK(attempt_cancelled(daemon));
  CHECK(std::chrono::steady_clock::now() - started < 2s);
  CHECK(counters_of(daemon, gate)["digitransit-routing.attempts"] == 1);
  // The session and the server carry on.
  mock::fault_settings healthy;
  daemon.mock().set_faults(healthy);
  auto result = client.call_tool("get_departures", departures_args());
  CHECK(code_of(result) == "ok");
}

TEST_CASE("e2e: the circuit breaker fails fast, then a probe closes it",
          "[e2e][breaker][faults]") {
  test::harness_options options;
  options.breaker_min_calls = 3;
  options.breaker_cooldown_ms = 800;
  options.max_attempts = 1;
  daemon_harness daemon{options};
  mock::fault_settings broken;
  broken.fault = "http503";
  broken.error_rate = 1;
  daemon.mock().set_faults(broken);
  mcp_client client{daemon.port()};
  client.initialize();
  // Three distinct calls fail (the breaker counts calls and queries, not
  // attempts): it opens.
  for (int i = 0; i < 3; ++i) {
    auto e = test::tool_error(client.call_tool(
      "get_departures", departures_args("HSL:104012" + std::to_string(i))));
    CHECK(e.at("code").as_string() == "upstream-error");
  }
  CHECK(daemon.mock().stats().requests == 3);
  // Open: answered at once, without a request.
  auto fast = test::tool_error(
    client.call_tool("get_departures", departures_args("HSL:1040125")));
  CHECK(fast.at("code").as_string() == "upstream-error");
  CHECK_THAT(std::string{fast.at("hint").as_string()},
             Catch::Contains("retry in about"));
  CHECK(daemon.mock().stats().requests == 3);
  // The upstream recovers; after the cooldown the probe succeeds.
  daemon.mock().set_faults(mock::fault_settings{});
  std::this_thread::sleep_for(900ms);
  test::structured(client.call_tool("get_departures", departures_args()));
  test::structured(client.call_tool("get_departures", departures_args()));
  CHECK(daemon.mock().stats().requests == 5);
}

TEST_CASE("e2e: every injectable fault gets its code within the deadline, "
          "and the next good call works",
          "[e2e][faults]") {
  test::harness_options options;
  options.tool_timeout_ms = 3000;
  options.upstream_timeout_ms = 1000;
  daemon_harness daemon{options};
  mcp_client client{daemon.port()};
  client.initialize();
  struct fault_case {
    const char* fault;
    int latency_ms;
    const char* code;
  };
  for (auto [fault, latency, code] :
       {fault_case{"none", 300, "ok"},
        fault_case{"http500", 0, "upstream-error"},
        fault_case{"http503", 0, "upstream-error"},
        fault_case{"malformed", 0, "upstream-error"},
        fault_case{"truncated", 0, "upstream-error"},
        fault_case{"graphql-error", 0, "upstream-error"},
        fault_case{"hang", 0, "upstream-timeout"},
        fault_case{"http429", 0, "rate-limited"}}) {
    INFO(fault);
    mock::fault_settings faults;
    faults.fault = fault;
    faults.error_rate = std::string{fault} == "none" ? 0 : 1;
    faults.latency_ms = latency;
    faults.retry_after = 1;
    faults.hang_ms = 4000;
    daemon.mock().set_faults(faults);
    auto started = std::chrono::steady_clock::now();
    auto result = client.call_tool("get_departures", departures_args());
    auto elapsed = std::chrono::steady_clock::now() - started;
    CHECK(code_of(result) == code);
    CHECK(elapsed < std::chrono::milliseconds{options.tool_timeout_ms + 500});
    if (std::string{code} == "rate-limited")
      CHECK(test::tool_error(result).at("retryAfter").as_int64() == 1);
    daemon.mock().set_faults(mock::fault_settings{});
    if (std::string{fault} == "http429")
      std::this_thread::sleep_for(1100ms); // its Retry-After
    test::structured(client.call_tool("get_departures", departures_args()));
  }
  // A refused connection (nothing listens on port 1) is network-error; the
  // daemon stays healthy for the other upstreams.
  test::harness_options refused;
  refused.routing_url = "http://127.0.0.1:1/routing/v2/hsl/gtfs/v1";
  daemon_harness closed{refused};
  mcp_client other{closed.port()};
  other.initialize();
  CHECK(code_of(other.call_tool("get_departures", departures_args()))
        == "network-error");
  test::structured(
    other.call_tool("geocode_address", json::object{{"text", "kamppi"}}));
}

TEST_CASE("e2e: fault run: mixed faults, every call answered, none lost",
          "[e2e][faults][fault_run]") {
  test::harness_options options;
  options.tool_timeout_ms = 2500;
  options.upstream_timeout_ms = 800;
  options.breaker_min_calls = 5;
  options.breaker_cooldown_ms = 300;
  options.http_workers = 8;
  daemon_harness daemon{options};
  const std::vector<std::pair<std::string, json::object>> calls{
    {"get_departures", departures_args()},
    {"find_stops",
     json::object{{"coordinate", json::object{{"lat", 60.1699},
                                              {"lon", 24.9384}}}}},
    {"geocode_address", json::object{{"text", "kamppi"}}},
    {"plan_trip",
     json::object{
       {"origin", json::object{{"type", "coords"},
                               {"value", json::object{{"lat", 60.1699},
                                                      {"lon", 24.9384}}}}},
       {"destination",
        json::object{{"type", "coords"},
                     {"value", json::object{{"lat", 60.2055},
                                            {"lon", 24.6559}}}}}}},
  };
  const std::vector<std::string> faults{"http500", "http503", "malformed",
                                        "truncated", "hang", "http429",
                                        "graphql-error", "none"};
  std::map<std::string, int> by_code;
  int made = 0;
  int answered = 0;
  auto slowest = std::chrono::milliseconds{0};
  std::mutex mutex;
  for (const auto& fault : faults) {
    mock::fault_settings f;
    f.fault = fault;
    f.error_rate = fault == "none" ? 0 : 0.5;
    f.latency_ms = 20;
    f.retry_after = 1;
    f.hang_ms = 1500;
    daemon.mock().set_faults(f);
    // 4 clients in parallel, 10 calls each across the tools.
    // Sessions opened here: Catch's assertions are for this thread only,
    // so the client threads only post and count.
    std::vector<std::unique_ptr<mcp_client>> sessions;
    for (int t = 0; t < 4; ++t) {
      sessions.push_back(std::make_unique<mcp_client>(daemon.port()));
      sessions.back()->initialize();
    }
    std::vector<std::thread> clients;
    for (int t = 0; t < 4; ++t) {
      clients.emplace_back([&, t] {
        auto& client = *sessions[static_cast<std::size_t>(t)];
        for (int i = 0; i < 10; ++i) {
          const auto& [tool, args] = calls[(t + i) % calls.size()];
          auto started = std::chrono::steady_clock::now();
          auto res = client.post(json::object{
            {"jsonrpc", "2.0"},
            {"id", i + 10},
            {"method", "tools/call"},
            {"params", json::object{{"name", tool}, {"arguments", args}}}});
          auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::steady_clock::now() - started);
          std::lock_guard<std::mutex> guard{mutex};
          ++made;
          slowest = std::max(slowest, elapsed);
          if (res.status != 200)
            continue;
          auto body = json::parse(res.body).as_object();
          if (!body.contains("result"))
            continue;
          ++answered;
          ++by_code[code_of(body.at("result").as_object())];
        }
      });
    }
    for (auto& c : clients)
      c.join();
  }
  auto stats = daemon.mock().stats();
  std::cout << "fault run: " << made << " calls, " << answered
            << " answered, upstream requests " << stats.requests
            << ", faults injected " << stats.faults_injected
            << ", slowest answer " << slowest.count() << " ms\n";
  for (const auto& [code, n] : by_code)
    std::cout << "  " << code << ": " << n << "\n";
  auto gate = counters_of(daemon, daemon.engine().gate("digitransit-routing"));
  std::cout << "  routing gate: attempts " << gate["digitransit-routing.attempts"]
            << ", retries " << gate["digitransit-routing.retries"]
            << ", breaker opened " << gate["digitransit-routing.breaker_opened"]
            << ", failed fast " << gate["digitransit-routing.rejected_breaker_open"]
            << "\n";
  // Nothing lost: every call (8 fault settings x 4 clients x 10) answered.
  CHECK(answered == 320);
  CHECK(slowest < std::chrono::milliseconds{options.tool_timeout_ms + 1000});
  CHECK(stats.faults_injected > 0);
  CHECK(by_code["ok"] > 0);
  for (const auto& [code, n] : by_code) {
    INFO(code);
    CHECK((code == "ok" || code == "upstream-error"
           || code == "upstream-timeout" || code == "rate-limited"));
  }
  // Healthy afterwards.
  daemon.mock().set_faults(mock::fault_settings{});
  std::this_thread::sleep_for(1100ms);
  mcp_client after{daemon.port()};
  after.initialize();
  for (const auto& [tool, args] : calls)
    test::structured(after.call_tool(tool, args));
}

namespace {

/// Hangs only the relaxed plan query (D12), recognised by its walk
/// reluctance: the relaxed query allows 5/4 of the default 1500 m.
void hang_relaxed_plan(daemon_harness& daemon) {
  mock::fault_settings hang;
  hang.fault = "hang";
  hang.error_rate = 1;
  hang.hang_ms = 20000;
  hang.match = "\"walkReluctance\":"
               + json::serialize(json::value(walk_reluctance_for(1875)));
  REQUIRE(hang.match
          != "\"walkReluctance\":"
               + json::serialize(json::value(walk_reluctance_for(1500))));
  daemon.mock().set_faults(hang);
}

} // namespace

TEST_CASE("e2e: a healthy plan_trip answers without its hanging relaxed "
          "query, which is cancelled",
          "[e2e][plan_trip][fanout]") {
  // The attempt timeout outlasts the call's deadline: a planner that waited
  // for the relaxed answer would end in upstream-timeout.
  test::harness_options options;
  options.tool_timeout_ms = 4000;
  options.upstream_timeout_ms = 10000;
  daemon_harness daemon{options};
  hang_relaxed_plan(daemon);
  mcp_client client{daemon.port()};
  client.initialize();
  auto result = client.call_tool("plan_trip", test::trip_args());
  REQUIRE(code_of(result) == "ok");
  CHECK_FALSE(test::structured(result).at("itineraries").as_array().empty());
  // Both queries went out; the relaxed one was aborted at the gate.
  CHECK(daemon.mock().stats().by_operation.at("PlanTrip") == 2);
  CHECK(attempt_cancelled(daemon));
  CHECK(daemon.mock().stats().faults_injected == 1);
}

TEST_CASE("e2e: a disrupted plan_trip still merges both answers",
          "[e2e][plan_trip][fanout]") {
  daemon_harness daemon;
  mock::fault_settings disrupted;
  disrupted.plan_disruption = "cancel";
  daemon.mock().set_faults(disrupted);
  mcp_client client{daemon.port()};
  client.initialize();
  auto plan = test::structured(client.call_tool("plan_trip", test::trip_args()));
  bool alternative = false;
  for (const auto& it : plan.at("itineraries").as_array())
    alternative = alternative
                  || it.as_object().contains("disruptionAlternative");
  CHECK(alternative);
  CHECK(counters_of(daemon, counters_actor{daemon.engine().gate("digitransit-routing")})
          ["digitransit-routing.cancelled"]
        == 0);
}

TEST_CASE("e2e: progress streams while the call runs",
          "[e2e][progress][sse]") {
  daemon_harness daemon;
  mock::fault_settings slow;
  slow.latency_ms = 1500;
  daemon.mock().set_faults(slow);
  mcp_client client{daemon.port()};
  client.initialize();
  httplib::Client raw{"127.0.0.1", daemon.port()};
  raw.set_read_timeout(std::chrono::seconds{10});
  httplib::Headers headers{{"Accept", "application/json, text/event-stream"},
                           {"Mcp-Session-Id", client.session_id},
                           {"MCP-Protocol-Version", "2025-11-25"}};
  auto body = json::serialize(json::object{
    {"jsonrpc", "2.0"},
    {"id", 7},
    {"method", "tools/call"},
    {"params",
     json::object{{"name", "get_departures"},
                  {"arguments", test::departures_args()},
                  {"_meta", json::object{{"progressToken", "tok"}}}}}});
  std::vector<std::string> parts;
  int64_t upstream_answers_at_first_part = -1;
  httplib::Request req;
  req.method = "POST";
  req.path = "/mcp";
  req.headers = headers;
  req.body = body;
  req.set_header("Content-Type", "application/json");
  req.content_receiver = [&](const char* data, std::size_t size, uint64_t,
                             uint64_t) {
    if (parts.empty())
      upstream_answers_at_first_part = daemon.mock().stats().requests;
    parts.emplace_back(data, size);
    return true;
  };
  auto res = raw.send(req);
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(res->get_header_value("Content-Type") == "text/event-stream");
  REQUIRE(parts.size() >= 3);
  // The first event is the call's acceptance, sent before the upstream had
  // been asked: the result did not exist yet.
  CHECK_THAT(parts.front(), Catch::Contains("notifications/progress"));
  CHECK_THAT(parts.front(), Catch::Contains("accepted"));
  CHECK(parts.front().find("\"result\"") == std::string::npos);
  CHECK(upstream_answers_at_first_part <= 1);
  std::string all;
  for (const auto& p : parts)
    all += p;
  // Then the upstream attempt, then the result, in that order.
  auto attempt = all.find("upstream attempt 1");
  auto result = all.find("\"result\"");
  REQUIRE(attempt != std::string::npos);
  REQUIRE(result != std::string::npos);
  CHECK(attempt < result);
  CHECK(parts.back().find("\"result\"") != std::string::npos);
}
