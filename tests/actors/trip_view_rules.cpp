// get_trip's rules without actors: the request's checks, the query, the
// reply.

#include "transitd/actors/trip_view_rules.hpp"

#include <catch2/catch.hpp>

using namespace transitd;

TEST_CASE("get_trip: serviceDate is a calendar day, tripId is bounded",
          "[get_trip][rules]") {
  CHECK(parse_service_day("2026-10-14") == 20740);
  CHECK(parse_service_day("20261014") == 20740);
  CHECK_FALSE(parse_service_day("2026-02-30"));
  CHECK_FALSE(parse_service_day("2026-10-1"));
  CHECK_FALSE(parse_service_day("tomorrow"));
  CHECK_FALSE(parse_service_day("2026-1O-14"));
  get_trip_request r;
  r.trip_id = "nyc:1";
  CHECK_FALSE(validate(r));
  r.service_date = "14.10.2026";
  auto bad_date = validate(r);
  REQUIRE(bad_date);
  CHECK(bad_date->code == ec::validation_error);
  CHECK_THAT(bad_date->message, Catch::Contains("serviceDate")
                                  && Catch::Contains("14.10.2026"));
  r.service_date.clear();
  r.trip_id.clear();
  auto empty = validate(r);
  REQUIRE(empty);
  CHECK_THAT(empty->message, Catch::Contains("tripId"));
  r.trip_id = std::string(trip_id_length.max + 1, 'x');
  CHECK(validate(r));
}

TEST_CASE("get_trip: the query and the reply", "[get_trip][rules]") {
  get_trip_request r;
  r.context.correlation_id = "cid";
  r.trip_id = "nyc:1";
  r.service_date = "2026-10-14";
  auto q = make_query(r, 1791981000);
  CHECK(q.service_day == 20740);
  CHECK(q.time == 1791981000);
  CHECK(q.trip_id == "nyc:1");
  trip_details d;
  d.fetched_ms = 1791981000000;
  d.calls.resize(2);
  auto scheduled = build_trip_reply(r, d, 1791981000);
  CHECK_FALSE(scheduled.realtime_used);
  CHECK(scheduled.data_freshness == "2026-10-14T12:30:00Z");
  CHECK(scheduled.correlation_id == "cid");
  d.calls[1].realtime_departure = 1791981060;
  d.realtime_ms = 1791981030000;
  auto live = build_trip_reply(r, d, 1791981000);
  CHECK(live.realtime_used);
  CHECK(live.data_freshness == "2026-10-14T12:30:30Z");
  d = trip_details{};
  d.state = "cancelled";
  CHECK(build_trip_reply(r, d, 1791981000).realtime_used);
}
