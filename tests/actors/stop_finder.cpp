// STOP_FINDER on the deterministic scheduler with a stand-in TIMETABLE.

#include "transitd/actors/stop_finder.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <catch2/catch.hpp>

#include "support/deterministic.hpp"

using namespace transitd;

namespace {

timetable_actor::behavior_type stops_timetable(std::shared_ptr<int> calls) {
  return {
    [](const stop_departures_query&) -> caf::result<stop_departures> {
      return make_error(ec::internal_error, "not used");
    },
    [calls](const nearby_stops_query& q) -> caf::result<nearby_stops> {
      ++*calls;
      nearby_stops n;
      for (int i = 0; i < 3; ++i) {
        stop_summary s;
        s.id = "HSL:" + std::to_string(i);
        s.name = "Stop " + std::to_string(i);
        s.distance = std::min(q.radius, 10 * (3 - i));
        s.modes = {transit_mode::bus};
        n.stops.push_back(s);
      }
      return n;
    },
  };
}

} // namespace

TEST_CASE_METHOD(test::deterministic_fixture,
                 "find_stops answers sorted stops with standing warnings",
                 "[stop_finder][actor]") {
  auto calls = std::make_shared<int>(0);
  tool_options options;
  options.standing_warnings.push_back({"demo-data", "demo"});
  auto finder = sys.spawn(stop_finder, sys.spawn(stops_timetable, calls),
                          options);
  find_stops_request r;
  r.center = {60.17, 24.94};
  self->send(finder, r);
  sched.run();
  self->receive(
    [&](find_stops_reply& reply) {
      REQUIRE(reply.stops.size() == 3);
      CHECK(reply.stops.front().id == "HSL:2");
      REQUIRE(reply.warnings.size() == 1);
      CHECK(reply.warnings[0].code == "demo-data");
    },
    [&](caf::error& err) { FAIL(caf::to_string(err)); });
  r.radius = 5000;
  self->send(finder, r);
  sched.run();
  self->receive([&](find_stops_reply&) { FAIL("expected an error"); },
                [&](caf::error& err) {
                  CHECK(to_failure(err).code == ec::validation_error);
                });
  CHECK(*calls == 1);
}
