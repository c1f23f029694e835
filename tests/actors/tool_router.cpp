#include "transitd/actors/tool_router.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <catch2/catch.hpp>

#include "transitd/actors/rate_limiter.hpp"
#include "support/deterministic.hpp"

using namespace transitd;

namespace {

/// A DEPARTURES_BOARD that echoes the context it received.
departures_board_actor::behavior_type echo_board() {
  return {
    [](const get_departures_request& request) {
      get_departures_reply reply;
      reply.correlation_id = request.context.correlation_id;
      reply.data_freshness = std::to_string(request.context.received_ms);
      reply.stop_id = request.stop.value;
      return reply;
    },
  };
}

/// A STOP_FINDER that echoes the correlation id.
stop_finder_actor::behavior_type echo_finder() {
  return {
    [](const find_stops_request& request) {
      return find_stops_reply{{}, request.context.correlation_id, {}};
    },
  };
}

/// A VEHICLE_TRACKER and an ALERT_BOARD that echo the correlation id.
vehicle_tracker_actor::behavior_type echo_tracker() {
  return {
    [](const vehicle_positions_request& request) {
      vehicle_positions_reply reply;
      reply.correlation_id = request.context.correlation_id;
      return reply;
    },
  };
}

alert_board_actor::behavior_type echo_alerts() {
  return {
    [](const service_alerts_request& request) {
      service_alerts_reply reply;
      reply.correlation_id = request.context.correlation_id;
      return reply;
    },
  };
}

trip_viewer_actor::behavior_type echo_trips() {
  return {
    [](const get_trip_request& request) {
      get_trip_reply reply;
      reply.correlation_id = request.context.correlation_id;
      return reply;
    },
  };
}

reach_finder_actor::behavior_type echo_reach() {
  return {
    [](const reachable_request& request) {
      reachable_reply reply;
      reply.correlation_id = request.context.correlation_id;
      return reply;
    },
  };
}

coverage_board_actor::behavior_type echo_coverage() {
  return {
    [](const transit_coverage_request& request) {
      transit_coverage_reply reply;
      reply.correlation_id = request.context.correlation_id;
      return reply;
    },
  };
}

line_viewer_actor::behavior_type echo_lines() {
  return {
    [](const get_route_request& request) {
      get_route_reply reply;
      reply.correlation_id = request.context.correlation_id;
      return reply;
    },
  };
}

status_board_actor::behavior_type echo_status() {
  return {
    [](const line_status_request& request) {
      line_status_reply reply;
      reply.correlation_id = request.context.correlation_id;
      return reply;
    },
  };
}

/// An ADDRESS_GEOCODER that echoes the correlation id.
address_geocoder_actor::behavior_type echo_geocoder() {
  return {
    [](const geocode_request& request) {
      geocode_reply reply;
      reply.correlation_id = request.context.correlation_id;
      return reply;
    },
  };
}

/// A TRIP_PLANNER that echoes the correlation id.
trip_planner_actor::behavior_type echo_planner() {
  return {
    [](const plan_trip_request& request) {
      plan_trip_reply reply;
      reply.correlation_id = request.context.correlation_id;
      return reply;
    },
  };
}

/// A STATION_TOILETS stand-in that echoes the correlation id.
station_toilets_actor::behavior_type echo_toilets() {
  return {
    [](const station_toilets_request& request) {
      station_toilets_reply reply;
      reply.correlation_id = request.context.correlation_id;
      return reply;
    },
    [](get_counters) { return counters{}; },
  };
}

/// A LONDON_JOURNEYS stand-in that echoes the correlation id.
london_journey_actor::behavior_type echo_journeys() {
  return {
    [](const journey_plan_request& request) {
      journey_plan_reply reply;
      reply.correlation_id = request.context.correlation_id;
      return reply;
    },
  };
}

/// A VARIABLE_STORE that answers every call with an empty reply.
variable_store_actor::behavior_type empty_store() {
  return {
    [](const save_variable_request& r) {
      return save_variable_reply{r.variable, false, r.context.correlation_id};
    },
    [](const get_variables_request& r) {
      return get_variables_reply{{}, r.context.correlation_id};
    },
    [](const delete_variable_request& r) {
      return delete_variable_reply{r.key, false, r.context.correlation_id};
    },
    [](const resolve_label&) -> caf::result<user_variable> {
      return make_error(ec::validation_error, "none");
    },
  };
}

tool_router_targets targets(caf::actor_system& sys,
                            tool_settings_map tools = {}) {
  tool_router_targets t;
  t.serve<get_departures_request>(sys.spawn(echo_board));
  t.serve<find_stops_request>(sys.spawn(echo_finder));
  t.serve<geocode_request>(sys.spawn(echo_geocoder));
  t.serve<plan_trip_request>(sys.spawn(echo_planner));
  t.serve<station_toilets_request>(sys.spawn(echo_toilets));
  t.serve<journey_plan_request>(sys.spawn(echo_journeys));
  auto store = sys.spawn(empty_store);
  t.serve<save_variable_request>(store);
  t.serve<get_variables_request>(store);
  t.serve<delete_variable_request>(store);
  t.serve<vehicle_positions_request>(sys.spawn(echo_tracker));
  t.serve<service_alerts_request>(sys.spawn(echo_alerts));
  t.serve<get_trip_request>(sys.spawn(echo_trips));
  t.serve<reachable_request>(sys.spawn(echo_reach));
  t.serve<transit_coverage_request>(sys.spawn(echo_coverage));
  t.serve<get_route_request>(sys.spawn(echo_lines));
  t.serve<line_status_request>(sys.spawn(echo_status));
  t.limiter = sys.spawn(rate_limiter, tool_limits(tools));
  t.tools = std::move(tools);
  return t;
}

/// A cancel listener that records what it was told.
struct cancel_log_state {
  std::vector<std::string> ids;
};
cancel_listener_actor::behavior_type
cancel_log(cancel_listener_actor::stateful_pointer<cancel_log_state>,
           std::shared_ptr<std::vector<std::string>> out) {
  return {
    [out](const cancel_call& c) { out->push_back(c.correlation_id); },
  };
}

} // namespace

TEST_CASE_METHOD(test::deterministic_fixture,
                 "the router sends variable calls to the store, stamped",
                 "[tool_router][actor]") {
  auto router = sys.spawn(tool_router, targets(sys));
  self->send(router, get_variables_request{});
  sched.run();
  self->receive([&](get_variables_reply& reply) {
    CHECK(reply.correlation_id.size() == 36);
  });
  self->send(router, find_stops_request{});
  sched.run();
  self->receive([&](find_stops_reply& reply) {
    CHECK(reply.correlation_id.size() == 36);
  });
}

TEST_CASE_METHOD(test::deterministic_fixture,
                 "the router stamps calls that arrive without an id",
                 "[tool_router][actor]") {
  auto router = sys.spawn(tool_router, targets(sys));
  get_departures_request r;
  r.stop = {stop_ref::kind::id, "HSL:1"};
  self->send(router, r);
  sched.run();
  self->receive([&](get_departures_reply& reply) {
    CHECK(reply.stop_id == "HSL:1");
    CHECK(reply.correlation_id.size() == 36);
    CHECK(reply.data_freshness != "0");
  });
}

TEST_CASE_METHOD(test::deterministic_fixture,
                 "the router keeps an id the caller chose",
                 "[tool_router][actor]") {
  auto router = sys.spawn(tool_router, targets(sys));
  get_departures_request r;
  r.context.correlation_id = "mine";
  r.context.received_ms = 42;
  self->send(router, r);
  sched.run();
  self->receive([&](get_departures_reply& reply) {
    CHECK(reply.correlation_id == "mine");
    CHECK(reply.data_freshness == "42");
  });
}

TEST_CASE("stamp fills only what is missing", "[tool_router]") {
  call_context ctx;
  stamp(ctx, 8000);
  CHECK(ctx.correlation_id.size() == 36);
  CHECK(ctx.received_ms > 0);
  CHECK(ctx.deadline_ms == ctx.received_ms + 8000);
  auto before = ctx;
  stamp(ctx, 1);
  CHECK(ctx.correlation_id == before.correlation_id);
  CHECK(ctx.received_ms == before.received_ms);
  CHECK(ctx.deadline_ms == before.deadline_ms);
}

TEST_CASE_METHOD(test::deterministic_fixture,
                 "the router gives a call without a deadline its tool's",
                 "[tool_router][actor][deadline]") {
  auto t = targets(sys);
  t.default_timeout_ms = 10000;
  t.tools = {{tool_of<plan_trip_request>(), {"trips", 8000, 0}}};
  // Echo the deadline through a planner that reports it.
  t.serve<plan_trip_request>(sys.spawn([]() -> trip_planner_actor::behavior_type {
    return {[](const plan_trip_request& r) {
      plan_trip_reply reply;
      reply.correlation_id = std::to_string(r.context.deadline_ms
                                            - r.context.received_ms);
      return reply;
    }};
  }));
  t.serve<get_departures_request>(sys.spawn([]() -> departures_board_actor::behavior_type {
    return {[](const get_departures_request& r) {
      get_departures_reply reply;
      reply.correlation_id = std::to_string(r.context.deadline_ms
                                            - r.context.received_ms);
      return reply;
    }};
  }));
  auto router = sys.spawn(tool_router, t);
  self->send(router, plan_trip_request{});
  sched.run();
  self->receive([](plan_trip_reply& r) { CHECK(r.correlation_id == "8000"); });
  self->send(router, get_departures_request{});
  sched.run();
  self->receive(
    [](get_departures_reply& r) { CHECK(r.correlation_id == "10000"); });
}

TEST_CASE_METHOD(test::deterministic_fixture,
                 "inbound limits: per tool, isolated, refilled over time",
                 "[tool_router][actor][rate_limit]") {
  auto router = sys.spawn(tool_router,
                          targets(sys, {{tool_of<journey_plan_request>(),
                                         {"journeys", 0, 2}},
                                        {tool_of<station_toilets_request>(),
                                         {"", 0, 1}}}));
  auto journey = [&] {
    self->send(router, journey_plan_request{});
    sched.run();
    std::optional<failure> refused;
    self->receive([](journey_plan_reply&) {},
                  [&](caf::error& e) { refused = to_failure(e); });
    return refused;
  };
  auto toilets = [&] {
    self->send(router, station_toilets_request{});
    sched.run();
    std::optional<failure> refused;
    self->receive([](station_toilets_reply&) {},
                  [&](caf::error& e) { refused = to_failure(e); });
    return refused;
  };
  CHECK_FALSE(journey());
  CHECK_FALSE(journey());
  auto third = journey();
  REQUIRE(third);
  CHECK(third->code == ec::rate_limited);
  CHECK(third->retry_after == 1);
  CHECK_THAT(third->message, Catch::StartsWith("journeys is limited"));
  // planJourney's exhaustion leaves stationToilets alone, and unlimited
  // tools never ask.
  CHECK_FALSE(toilets());
  CHECK(toilets());
  self->send(router, find_stops_request{});
  sched.run();
  self->receive([](find_stops_reply&) {}, [](caf::error&) { FAIL(); });
  // Half a second at 2/s refills one planJourney token.
  sched.advance_time(std::chrono::milliseconds{500});
  CHECK_FALSE(journey());
  CHECK(journey());
}

TEST_CASE_METHOD(test::deterministic_fixture,
                 "the router tells every cancel listener about a cancellation",
                 "[tool_router][actor][cancel]") {
  auto t = targets(sys);
  auto a = std::make_shared<std::vector<std::string>>();
  auto b = std::make_shared<std::vector<std::string>>();
  t.cancel_listeners = {sys.spawn(cancel_log, a), sys.spawn(cancel_log, b)};
  auto router = sys.spawn(tool_router, t);
  self->send(router, cancel_call{"c-1"});
  sched.run();
  CHECK(*a == std::vector<std::string>{"c-1"});
  CHECK(*b == std::vector<std::string>{"c-1"});
}

TEST_CASE_METHOD(test::deterministic_fixture,
                 "a tool the engine wired no actor for is an internal error, "
                 "not a hang",
                 "[tool_router][actor]") {
  auto t = targets(sys);
  CHECK(unserved_tools(t).empty());
  t.tool_actors.erase(tool_of<find_stops_request>());
  // Found before any call (the engine refuses to start with it)...
  CHECK(unserved_tools(t)
        == std::vector<std::string>{"transitd::find_stops_request"});
  // ...and a router spawned anyway answers, never hangs.
  auto router = sys.spawn(tool_router, t);
  self->send(router, find_stops_request{});
  sched.run();
  bool failed = false;
  self->receive([](find_stops_reply&) {},
                [&](caf::error& err) {
                  failed = true;
                  CHECK(to_failure(err).code == ec::internal_error);
                  CHECK_THAT(to_failure(err).message,
                             Catch::Contains("transitd::find_stops_request"));
                });
  CHECK(failed);
}
