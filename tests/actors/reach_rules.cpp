// reachable's rules without actors.

#include "transitd/actors/reach_rules.hpp"

#include <catch2/catch.hpp>

using namespace transitd;

namespace {

reachable_request request() {
  reachable_request r;
  r.context.correlation_id = "cid";
  r.origin.position = {40.75, -73.98};
  return r;
}

} // namespace

TEST_CASE("reachable: ranges, time forms and origins are checked",
          "[reachable][rules]") {
  CHECK_FALSE(validate(request()));
  auto r = request();
  r.max_minutes = 0;
  REQUIRE(validate(r));
  CHECK_THAT(validate(r)->message, Catch::Contains("maxMinutes"));
  r = request();
  r.max_minutes = 121;
  CHECK(validate(r));
  r = request();
  r.limit = 201;
  CHECK_THAT(validate(r)->message, Catch::Contains("limit"));
  r = request();
  r.when = "half past eight";
  REQUIRE(validate(r));
  CHECK_THAT(validate(r)->hint, Catch::Contains("2026-10-14T08:00"));
  r = request();
  r.origin.position = {91, 0};
  CHECK(validate(r));
  r = request();
  r.origin.type = location_input::kind::stop;
  CHECK_THAT(validate(r)->message, Catch::Contains("origin.stop_id"));
  r.origin.stop_id = "nyc:127";
  CHECK_FALSE(validate(r));
}

TEST_CASE("reachable: the query from an origin, and the reply",
          "[reachable][rules]") {
  auto r = request();
  r.when = "2026-10-14T09:00";
  r.max_minutes = 20;
  auto origin = origin_of(r.origin);
  auto q = make_query(r, origin, 1791981000);
  CHECK(q.local_time); // no offset: the provider reads it at the origin
  CHECK(q.max_seconds == 1200);
  CHECK(q.from.lat == Approx(40.75));
  r.when = "now";
  CHECK(make_query(r, origin, 1791981000).time == 1791981000);
  CHECK_FALSE(make_query(r, origin, 1791981000).local_time);

  user_variable stop;
  stop.key = "home stop";
  stop.type = variable_type::stop;
  stop.stop_id = "nyc:127";
  auto from_stop = origin_of(stop);
  CHECK(from_stop.stop_id == "nyc:127");
  CHECK(from_stop.ref.raw_source == "variable");
  CHECK(make_query(r, from_stop, 0).from_stop == "nyc:127");

  reach_result result;
  result.time = 1791981000;
  result.timezone = "America/New_York";
  result.from = {40.7559, -73.9871};
  result.from_name = "Times Sq-42 St";
  result.fetched_ms = 1791981000000;
  auto reply = build_reach_reply(r, from_stop, result);
  CHECK(reply.requested_time == "2026-10-14T08:30:00-04:00");
  CHECK(reply.origin.name == std::optional<std::string>{"Times Sq-42 St"});
  CHECK(reply.origin.position.lat == Approx(40.7559));
  CHECK(reply.data_freshness == "2026-10-14T12:30:00Z");
  CHECK(reply.correlation_id == "cid");
}
