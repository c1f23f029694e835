// Security and operations end to end over real HTTP(S): bearer tokens and
// principal isolation of saved variables, TLS with a certificate the test
// makes, /metrics and /readyz.

#include <atomic>
#include <filesystem>
#include <thread>

#include <catch2/catch.hpp>
#include <httplib.h>

#include "support/daemon_harness.hpp"
#include "support/test_issuer.hpp"
#include "transitd/messages/time.hpp"

namespace json = boost::json;
using namespace transitd;
using test::daemon_harness;
using test::mcp_client;
using Catch::Contains;

namespace {

const std::string alice_token = "alice-e2e-token-0123456789";
const std::string bob_token = "bob-e2e-token-0123456789ab";

std::shared_ptr<const token_table> two_principals() {
  auto tokens = std::make_shared<token_table>();
  REQUIRE_FALSE(tokens->add("alice", alice_token));
  REQUIRE_FALSE(tokens->add("bob", bob_token));
  return tokens;
}

json::object save_home() {
  return json::object{
    {"key", "home"},
    {"type", "location"},
    {"value", json::object{{"lat", 60.17}, {"lon", 24.94}}}};
}

std::string scratch_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path()
             / ("transitd-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

} // namespace

TEST_CASE("e2e: one principal cannot read, list, change or delete "
          "another's variables",
          "[e2e][security][auth]") {
  test::harness_options options;
  options.tokens = two_principals();
  daemon_harness daemon{options};
  mcp_client anonymous{daemon.port()};
  CHECK(anonymous
          .post(json::object{{"jsonrpc", "2.0"},
                             {"id", 1},
                             {"method", "initialize"},
                             {"params", json::object{{"protocolVersion",
                                                      "2025-11-25"}}}})
          .status
        == 401);
  mcp_client alice{daemon.port()};
  alice.bearer = alice_token;
  alice.initialize();
  CHECK_FALSE(alice.call_tool("save_user_variable", save_home())
                .at("isError")
                .as_bool());
  mcp_client bob{daemon.port()};
  bob.bearer = bob_token;
  bob.initialize();
  // Read and list: nothing of alice's.
  CHECK(test::structured(bob.call_tool("get_user_variables", json::object{}))
          .at("variables")
          .as_array()
          .empty());
  CHECK(test::structured(bob.call_tool("get_user_variables",
                                       json::object{{"key", "home"}}))
          .at("variables")
          .as_array()
          .empty());
  // Use a label: alice's resolves for her, and is unknown to bob.
  json::object to_home{
    {"origin", json::object{{"type", "coords"},
                            {"value", json::object{{"lat", 60.1699},
                                                   {"lon", 24.9384}}}}},
    {"destination", json::object{{"type", "label"}, {"value", "home"}}}};
  CHECK(test::structured(alice.call_tool("plan_trip", to_home))
          .at("destination")
          .at("label")
          .as_string()
        == "home");
  auto label = test::tool_error(bob.call_tool("plan_trip", to_home));
  CHECK(label.at("code") == "validation-error");
  CHECK_THAT(std::string{label.at("message").as_string()},
             Catch::Contains("home"));
  // Change: bob's save makes bob's own variable, alice's is untouched.
  auto bobs = save_home();
  bobs["value"] = json::object{{"lat", 60.2}, {"lon", 25.0}};
  bob.call_tool("save_user_variable", bobs);
  // Delete: bob deletes his own, not alice's.
  CHECK(test::structured(bob.call_tool("delete_user_variable",
                                       json::object{{"key", "home"}}))
          .at("deleted")
          .as_bool());
  CHECK_FALSE(test::structured(bob.call_tool("delete_user_variable",
                                             json::object{{"key", "home"}}))
                .at("deleted")
                .as_bool());
  // Alice, in a new session with the same token, still has hers.
  mcp_client alice_again{daemon.port()};
  alice_again.bearer = alice_token;
  alice_again.initialize();
  auto mine = test::structured(
    alice_again.call_tool("get_user_variables", json::object{}));
  REQUIRE(mine.at("variables").as_array().size() == 1);
  CHECK(mine.at("variables").at(0).at("value").at("lat").to_number<double>()
        == Approx(60.17));
  // A session id is not an authenticator: alice's session with bob's token
  // is refused.
  mcp_client thief{daemon.port()};
  thief.bearer = bob_token;
  thief.session_id = alice.session_id;
  auto stolen = thief.post(json::object{
    {"jsonrpc", "2.0"},
    {"id", 9},
    {"method", "tools/call"},
    {"params", json::object{{"name", "get_user_variables"},
                            {"arguments", json::object{}}}}});
  CHECK(stolen.status == 403);
  CHECK(stolen.body.find("60.17") == std::string::npos);
  CHECK(thief.del().status == 403);
}

TEST_CASE("e2e: TLS with a self-signed certificate", "[e2e][security][tls]") {
  auto dir = scratch_dir("tls");
  auto [cert, key] = test::write_self_signed_certificate(dir);
  test::harness_options options;
  options.tls_cert = cert;
  options.tls_key = key;
  daemon_harness daemon{options};
  mcp_client client{daemon.port(), true};
  client.initialize();
  auto result = client.call_tool("get_departures", test::departures_args());
  CHECK_FALSE(result.at("isError").as_bool());
  // Plain HTTP to the TLS port gets no MCP answer.
  mcp_client plain{daemon.port()};
  CHECK(plain.get("/healthz").status != 200);
  std::filesystem::remove_all(dir);
}

TEST_CASE("e2e: a TLS key that does not load stops the server with a clear "
          "error",
          "[e2e][security][tls]") {
  auto dir = scratch_dir("badtls");
  test::harness_options options;
  options.tls_cert = dir + "/missing-cert.pem";
  options.tls_key = dir + "/missing-key.pem";
  CHECK_THROWS_WITH(daemon_harness{options}, Contains("missing-cert.pem"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("e2e: /metrics counts calls, upstream work and sessions",
          "[e2e][ops][metrics]") {
  test::harness_options options;
  options.cache = true;
  daemon_harness daemon{options};
  mcp_client client{daemon.port()};
  client.initialize();
  client.call_tool("get_departures", test::departures_args());
  client.call_tool("get_departures", test::departures_args());
  client.call_tool("get_departures", json::object{{"stop", 5}});
  auto metrics = client.get("/metrics");
  REQUIRE(metrics.status == 200);
  CHECK_THAT(metrics.header("Content-Type"), Contains("text/plain"));
  const auto& m = metrics.body;
  CHECK_THAT(m, Contains("transitd_sessions_open 1\n"));
  CHECK_THAT(m, Contains("transitd_tool_calls_total{tool=\"get_departures\","
                         "code=\"ok\"} 2\n"));
  CHECK_THAT(m, Contains("transitd_tool_calls_total{tool=\"get_departures\","
                         "code=\"validation-error\"} 1\n"));
  CHECK_THAT(m, Contains("transitd_tool_call_duration_seconds_count{tool="
                         "\"get_departures\"} 3\n"));
  CHECK_THAT(m, Contains("transitd_upstream_calls_total{upstream="
                         "\"digitransit-routing\"} 1\n"));
  CHECK_THAT(m, Contains("transitd_cache_hits_total{cache=\"timetable."
                         "departures\"} 1\n"));
  CHECK_THAT(m, Contains("transitd_cache_misses_total{cache=\"timetable."
                         "departures\"} 1\n"));
  CHECK_THAT(m, Contains("transitd_tool_calls_in_flight 0\n"));
  CHECK_THAT(m, Contains("transitd_station_data_loaded 1\n"));
}

TEST_CASE("e2e: /metrics is behind authentication when tokens are on",
          "[e2e][ops][metrics][auth]") {
  test::harness_options options;
  options.tokens = two_principals();
  daemon_harness daemon{options};
  mcp_client client{daemon.port()};
  CHECK(client.get("/metrics").status == 401);
  client.bearer = "wrong-token-0123456789abcdef";
  CHECK(client.get("/metrics").status == 401);
  client.bearer = alice_token;
  CHECK(client.get("/metrics").status == 200);
  // Liveness and readiness stay open for probes.
  client.bearer.clear();
  CHECK(client.get("/healthz").status == 200);
  CHECK(client.get("/readyz").status == 200);
}

TEST_CASE("e2e: /readyz reports station data, store and providers",
          "[e2e][ops][ready]") {
  {
    daemon_harness daemon;
    mcp_client client{daemon.port()};
    auto ready = client.get("/readyz");
    REQUIRE(ready.status == 200);
    auto body = ready.json().as_object();
    CHECK(body.at("status") == "ready");
    CHECK_THAT(std::string{body.at("checks").at("stationData").as_string()},
               Contains("ok"));
    CHECK(body.at("checks").at("store") == "ok");
    CHECK(body.at("checks").at("providers").at("digitransit-routing")
          == "live");
  }
  {
    test::harness_options options;
    options.station_data = scratch_dir("no-stations");
    daemon_harness daemon{options};
    mcp_client client{daemon.port()};
    auto ready = client.get("/readyz");
    CHECK(ready.status == 503);
    auto body = ready.json().as_object();
    CHECK(body.at("status") == "not ready");
    CHECK(body.at("checks").at("stationData") == "not loaded");
    CHECK(body.at("checks").at("store") == "ok");
    std::filesystem::remove_all(options.station_data);
  }
}

TEST_CASE("e2e: OAuth access tokens: protected-resource metadata, 401 with "
          "its URL, two subjects kept apart, scopes gate the variable tools",
          "[e2e][security][oauth]") {
  testing::test_issuer issuer;
  issuer.add_key("k1", "ES256");
  test::harness_options options;
  options.oauth_issuers = {issuer.url()};
  options.oauth_resource = "http://127.0.0.1/mcp";
  daemon_harness daemon{options};
  mcp_client anonymous{daemon.port()};
  // RFC 9728 metadata, at the root and with the resource's path.
  for (auto path : {"/.well-known/oauth-protected-resource",
                    "/.well-known/oauth-protected-resource/mcp"}) {
    auto metadata = anonymous.get(path);
    REQUIRE(metadata.status == 200);
    auto body = metadata.json().as_object();
    CHECK(body.at("resource") == "http://127.0.0.1/mcp");
    CHECK(body.at("authorization_servers").at(0).as_string() == issuer.url());
  }
  // Every route obeys allowed-hosts: a rebound name gets 403, not the
  // metadata, the metrics or the readiness report; a too-large head 431.
  {
    httplib::Client raw{"127.0.0.1", daemon.port()};
    httplib::Headers foreign{{"Host", "attacker.example"}};
    for (auto path : {"/.well-known/oauth-protected-resource",
                      "/.well-known/oauth-protected-resource/mcp",
                      "/metrics", "/readyz"}) {
      auto r = raw.Get(path, foreign);
      REQUIRE(r);
      CHECK(r->status == 403);
      CHECK_THAT(r->body, Contains("attacker.example"));
    }
    httplib::Headers many;
    for (int i = 0; i < 80; ++i)
      many.emplace("X-Pad-" + std::to_string(i), "x");
    auto r = raw.Get("/readyz", many);
    REQUIRE(r);
    CHECK(r->status == 431);
    // /healthz is a liveness probe and stays open to any Host.
    auto live = raw.Get("/healthz", foreign);
    REQUIRE(live);
    CHECK(live->status == 200);
  }
  auto refused = anonymous.post(json::object{
    {"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
    {"params", json::object{{"protocolVersion", "2025-11-25"}}}});
  CHECK(refused.status == 401);
  CHECK_THAT(refused.header("WWW-Authenticate"),
             Contains("resource_metadata=\"http://127.0.0.1/.well-known/"
                      "oauth-protected-resource/mcp\""));
  auto now = std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
               .count();
  auto token = [&](const std::string& subject, const std::string& scope) {
    return issuer.sign("k1", json::object{{"iss", issuer.url()},
                                          {"sub", subject},
                                          {"aud", "http://127.0.0.1/mcp"},
                                          {"exp", now + 600},
                                          {"scope", scope}});
  };
  mcp_client alice{daemon.port()};
  alice.bearer = token("alice", "variables:read variables:write");
  alice.initialize();
  CHECK_FALSE(alice.call_tool("save_user_variable", save_home())
                .at("isError")
                .as_bool());
  mcp_client bob{daemon.port()};
  bob.bearer = token("bob", "variables:read variables:write");
  bob.initialize();
  CHECK(test::structured(bob.call_tool("get_user_variables", json::object{}))
          .at("variables")
          .as_array()
          .empty());
  CHECK_FALSE(test::structured(bob.call_tool("delete_user_variable",
                                             json::object{{"key", "home"}}))
                .at("deleted")
                .as_bool());
  CHECK(test::structured(alice.call_tool("get_user_variables",
                                         json::object{}))
          .at("variables")
          .as_array()
          .size()
        == 1);
  // A read-only token may list, not save: 403 naming the scope.
  mcp_client reader{daemon.port()};
  reader.bearer = token("alice", "variables:read");
  reader.initialize();
  CHECK(test::structured(reader.call_tool("get_user_variables",
                                          json::object{}))
          .at("variables")
          .as_array()
          .size()
        == 1);
  auto save = reader.post(json::object{
    {"jsonrpc", "2.0"}, {"id", 9}, {"method", "tools/call"},
    {"params", json::object{{"name", "save_user_variable"},
                            {"arguments", save_home()}}}});
  CHECK(save.status == 403);
  CHECK_THAT(save.header("WWW-Authenticate"),
             Contains("scope=\"variables:write\""));
  // A session opened with one subject's token is not usable with another's.
  mcp_client crossed{daemon.port()};
  crossed.bearer = bob.bearer;
  crossed.session_id = alice.session_id;
  CHECK(crossed
          .post(json::object{{"jsonrpc", "2.0"}, {"id", 10},
                             {"method", "ping"}})
          .status
        == 403);
}

TEST_CASE("e2e: a slow key fetch for a forged kid stalls nobody: cached-key "
          "tokens are answered, other unknown kids refused at once; "
          "refusals are counted",
          "[e2e][security][oauth][keys]") {
  testing::test_issuer issuer;
  issuer.add_key("k1", "ES256");
  test::harness_options options;
  options.oauth_issuers = {issuer.url()};
  options.oauth_resource = "http://127.0.0.1/mcp";
  options.oauth_refresh_interval_s = 0;
  options.http_threads = 2;
  daemon_harness daemon{options};
  auto token = [&](const std::string& kid) {
    return issuer.sign(kid, json::object{{"iss", issuer.url()},
                                         {"sub", "alice"},
                                         {"aud", "http://127.0.0.1/mcp"},
                                         {"exp", now_ms() / 1000 + 300}});
  };
  mcp_client alice{daemon.port()};
  alice.bearer = token("k1");
  alice.initialize(); // the keys are fetched once here
  // The issuer turns slow; a forged token names a kid nobody published.
  issuer.delay_jwks(3000);
  issuer.add_key("forged", "ES256", false);
  // Catch's assertions are for this thread only: the forger just posts.
  mcp_client mallory{daemon.port()};
  mallory.bearer = token("forged");
  std::atomic<int> forged_status{0};
  std::thread forger{[&] {
    auto refused = mallory.post(json::object{
      {"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
      {"params", json::object{{"protocolVersion", "2025-11-25"}}}});
    forged_status = refused.status;
  }};
  for (int i = 0; i < 2000 && issuer.jwks_fetches() < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds{1});
  CHECK(issuer.jwks_fetches() == 2);
  // While that fetch runs (3 s), alice's calls go on, and another forged
  // kid is refused at once, without a fetch of its own.
  for (int i = 0; i < 5; ++i)
    test::structured(
      alice.call_tool("get_departures", test::departures_args()));
  mcp_client eve{daemon.port()};
  issuer.add_key("forged-2", "ES256", false);
  eve.bearer = token("forged-2");
  auto quick = eve.post(json::object{
    {"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
    {"params", json::object{{"protocolVersion", "2025-11-25"}}}});
  CHECK(quick.status == 401);
  CHECK_THAT(quick.body, Contains("being fetched"));
  forger.join();
  CHECK(forged_status == 401);
  CHECK(issuer.jwks_fetches() == 2);
  auto metrics = alice.get("/metrics");
  REQUIRE(metrics.status == 200);
  CHECK_THAT(metrics.body,
             Contains("transitd_http_auth_refusals_total{status=\"401\"} 2"));
}

TEST_CASE("e2e: with authentication, one agent sending ten times a tool's "
          "limit gets rate-limited; another keeps its share",
          "[e2e][security][share]") {
  test::harness_options options;
  options.tokens = two_principals();
  options.station_toilets_tps = 8; // stationToilets: 8 a second in all
  daemon_harness daemon{options};
  mcp_client alice{daemon.port()};
  alice.bearer = alice_token;
  alice.initialize();
  mcp_client bob{daemon.port()};
  bob.bearer = bob_token;
  bob.initialize();
  auto toilets = json::object{{"stationName", "Abbey Wood"}};
  int alice_ok = 0;
  int alice_limited = 0;
  for (int i = 0; i < 80; ++i) {
    auto r = alice.call_tool("stationToilets", toilets);
    if (r.contains("isError") && r.at("isError").as_bool()) {
      CHECK_THAT(json::serialize(r), Contains("RATE_LIMIT_EXCEEDED"));
      ++alice_limited;
    } else {
      ++alice_ok;
    }
  }
  // Alone, she has the whole 8 a second (its burst at once), and no more.
  CHECK(alice_ok >= 8);
  CHECK(alice_limited > 0);
  // Bob appears: the two now share the 8 (4 a second each); his share is
  // his own, whatever Alice has taken of the whole.
  int bob_ok = 0;
  for (int i = 0; i < 4; ++i) {
    auto r = bob.call_tool("stationToilets", toilets);
    if (!(r.contains("isError") && r.at("isError").as_bool()))
      ++bob_ok;
  }
  CHECK(bob_ok == 4);
}
