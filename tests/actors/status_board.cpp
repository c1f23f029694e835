// line_status's rules without actors.

#include "transitd/actors/status_board.hpp"

#include <catch2/catch.hpp>

using namespace transitd;

TEST_CASE("line_status: bounded arguments, the query and the reply",
          "[line_status][rules]") {
  line_status_request r;
  r.context.correlation_id = "cid";
  CHECK_FALSE(validate(r)); // every line of the only feed
  r.feed = std::string(route_name_length.max + 1, 'f');
  CHECK_THAT(validate(r)->message, Catch::Contains("feed"));
  r.feed = "nyc";
  r.near = coordinate{0, 200};
  CHECK_THAT(validate(r)->message, Catch::Contains("near"));
  r.near.reset();
  r.route = "7";
  auto q = make_query(r, 1791981000);
  CHECK(q.feed == "nyc");
  CHECK(q.route == "7");
  CHECK(q.time == 1791981000);

  line_status_list judged;
  judged.realtime = true;
  judged.fetched_ms = 1791980990000;
  auto live = build_status_reply(r, judged, 1791981000);
  CHECK(live.warnings.empty());
  CHECK(live.data_freshness == "2026-10-14T12:29:50Z");
  CHECK(live.correlation_id == "cid");
  line_status_list blind;
  auto none = build_status_reply(r, blind, 1791981000);
  REQUIRE(none.warnings.size() == 1);
  CHECK(none.warnings[0].code == "no-realtime");
  CHECK(none.data_freshness == "2026-10-14T12:30:00Z");
}
