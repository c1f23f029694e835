// The mock upstream over real HTTP: GraphQL shapes and each fault control.

#include "transitd/providers/mock/mock_upstream.hpp"

#include <chrono>

#include <catch2/catch.hpp>
#include <httplib.h>

namespace json = boost::json;
using namespace transitd;

namespace {

const std::string departures_body
  = R"({"operationName":"StopDepartures","query":"query StopDepartures { stop { stoptimes: stoptimesWithoutPatterns { serviceDay } } }",
       "variables":{"id":"HSL:1","startTime":1757930400,"timeRange":3600,
       "numberOfDepartures":5}})";

struct mock_fixture {
  mock::mock_upstream upstream;
  std::unique_ptr<httplib::Client> client;

  mock_fixture() {
    upstream.start();
    client = std::make_unique<httplib::Client>("127.0.0.1", upstream.port());
    client->set_read_timeout(5, 0);
  }

  httplib::Result graphql(const std::string& body = departures_body) {
    return client->Post("/routing/v2/hsl/gtfs/v1", body, "application/json");
  }

  void faults(const std::string& body) {
    auto res = client->Post("/__mock/faults", body, "application/json");
    REQUIRE(res);
    REQUIRE(res->status == 200);
  }
};

} // namespace

TEST_CASE_METHOD(mock_fixture, "the mock answers departures in GraphQL shape",
                 "[mock][http]") {
  auto res = graphql();
  REQUIRE(res);
  CHECK(res->status == 200);
  auto body = json::parse(res->body);
  CHECK(body.at("data").at("stop").at("gtfsId").as_string() == "HSL:1");
  CHECK(body.at("data").at("stop").at("stoptimes").as_array().size() == 5);
  CHECK(upstream.stats().requests == 1);
  CHECK(upstream.stats().by_operation.at("StopDepartures") == 1);
}

TEST_CASE_METHOD(mock_fixture, "faults: 5xx, 429, malformed, GraphQL errors",
                 "[mock][http][faults]") {
  faults(R"({"fault":"http503"})");
  CHECK(graphql()->status == 503);
  faults(R"({"fault":"http500"})");
  CHECK(graphql()->status == 500);
  faults(R"({"fault":"http429","retryAfter":9})");
  auto throttled = graphql();
  CHECK(throttled->status == 429);
  CHECK(throttled->get_header_value("Retry-After") == "9");
  faults(R"({"fault":"malformed"})");
  json::error_code ec;
  json::parse(graphql()->body, ec);
  CHECK(ec);
  faults(R"({"fault":"truncated"})");
  json::parse(graphql()->body, ec);
  CHECK(ec);
  faults(R"({"fault":"graphql-error"})");
  auto errors = json::parse(graphql()->body);
  CHECK(errors.at("errors").as_array().size() == 1);
  CHECK(errors.at("data").is_null());
  CHECK(upstream.stats().faults_injected == 6);
}

TEST_CASE_METHOD(mock_fixture, "faults: a bounded count, then healthy again",
                 "[mock][http][faults]") {
  faults(R"({"fault":"http500","faultCount":2})");
  CHECK(graphql()->status == 500);
  CHECK(graphql()->status == 500);
  CHECK(graphql()->status == 200);
}

TEST_CASE_METHOD(mock_fixture, "faults: an error rate injects a share",
                 "[mock][http][faults]") {
  faults(R"({"fault":"http500","errorRate":0.3})");
  int failed = 0;
  for (int i = 0; i < 100; ++i)
    failed += graphql()->status == 500 ? 1 : 0;
  CHECK(failed > 15);
  CHECK(failed < 45);
}

TEST_CASE_METHOD(mock_fixture, "faults: added latency and hanging",
                 "[mock][http][faults]") {
  faults(R"({"latencyMs":150})");
  CHECK(graphql()->status == 200);
  // The answer waited its 150 ms before it went out.
  CHECK(upstream.stats().latency_added_ms == 150);
  faults(R"({"fault":"hang","hangMs":60000})");
  client->set_read_timeout(0, 300000);
  auto hung = graphql();
  CHECK_FALSE(hung); // the client gave up first
}

TEST_CASE_METHOD(mock_fixture, "controls reject bad input and reset",
                 "[mock][http]") {
  auto bad = client->Post("/__mock/faults", R"({"fault":"meteor"})",
                          "application/json");
  CHECK(bad->status == 400);
  CHECK_THAT(bad->body, Catch::Contains("meteor"));
  auto typo = client->Post("/__mock/faults", R"({"latency":5})",
                           "application/json");
  CHECK(typo->status == 400);
  graphql();
  client->Post("/__mock/reset", "", "application/json");
  CHECK(upstream.stats().requests == 0);
  auto stats = client->Get("/__mock/stats");
  CHECK(json::parse(stats->body).at("requests").as_int64() == 0);
}

TEST_CASE_METHOD(mock_fixture,
                 "the last upstream request is kept verbatim, controls aside",
                 "[mock][http]") {
  auto none = client->Get("/__mock/last-request");
  REQUIRE(none);
  CHECK(none->status == 404);

  graphql();
  auto search = client->Get("/geocoding/v1/search?text=kamppi&size=3");
  REQUIRE(search);
  CHECK(search->status == 200);
  faults(R"({"latencyMs":0})"); // a control request is not recorded
  auto last = client->Get("/__mock/last-request");
  REQUIRE(last);
  CHECK(last->status == 200);
  CHECK(last->get_header_value("X-Mock-Method") == "GET");
  CHECK(last->get_header_value("X-Mock-Target")
        == "/geocoding/v1/search?text=kamppi&size=3");
  CHECK(last->body.empty());

  graphql();
  last = client->Get("/__mock/last-request");
  CHECK(last->get_header_value("X-Mock-Method") == "POST");
  CHECK(last->get_header_value("X-Mock-Target") == "/routing/v2/hsl/gtfs/v1");
  CHECK(last->body == departures_body);
  REQUIRE(upstream.last_request());
  CHECK(upstream.last_request()->body == departures_body);

  client->Post("/__mock/reset", "", "application/json");
  CHECK_FALSE(upstream.last_request());
  CHECK(client->Get("/__mock/last-request")->status == 404);
}

TEST_CASE_METHOD(mock_fixture, "non-GraphQL bodies get OTP's 400",
                 "[mock][http]") {
  CHECK(graphql("not json")->status == 400);
  auto unknown = graphql(R"({"query":"{ agencies { name } }"})");
  CHECK(unknown->status == 200);
  CHECK(json::parse(unknown->body).at("errors").is_array());
}
