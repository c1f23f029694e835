// get_route's rules without actors.

#include "transitd/actors/line_viewer.hpp"

#include <catch2/catch.hpp>

using namespace transitd;

TEST_CASE("get_route: a route or a stop, bounded; the query",
          "[get_route][rules]") {
  get_route_request r;
  auto neither = validate(r);
  REQUIRE(neither);
  CHECK(neither->code == ec::validation_error);
  CHECK_THAT(neither->message, Catch::Contains("route")
                                 && Catch::Contains("stop"));
  r.route = "7";
  CHECK_FALSE(validate(r));
  r.route = std::string(route_name_length.max + 1, 'x');
  CHECK_THAT(validate(r)->message, Catch::Contains("route"));
  r.route.clear();
  r.stop = "nyc:127";
  CHECK_FALSE(validate(r));
  r.near = coordinate{95, 0};
  CHECK_THAT(validate(r)->message, Catch::Contains("near"));
  r.near = coordinate{40.75, -73.98};
  auto q = make_query(r, 1791981000);
  CHECK(q.stop == "nyc:127");
  CHECK(q.time == 1791981000);
  CHECK(q.near->lat == Approx(40.75));
}
