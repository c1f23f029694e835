#include "actors/tool_router.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <catch2/catch.hpp>

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

} // namespace

TEST_CASE_METHOD(test::deterministic_fixture,
                 "the router sends variable calls to the store, stamped",
                 "[tool_router][actor]") {
  auto router = sys.spawn(tool_router, sys.spawn(echo_board),
                          sys.spawn(echo_finder), sys.spawn(echo_geocoder),
                          sys.spawn(echo_planner), sys.spawn(echo_toilets),
                          sys.spawn(echo_journeys), sys.spawn(empty_store));
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
  auto router = sys.spawn(tool_router, sys.spawn(echo_board),
                          sys.spawn(echo_finder), sys.spawn(echo_geocoder),
                          sys.spawn(echo_planner), sys.spawn(echo_toilets),
                          sys.spawn(echo_journeys), sys.spawn(empty_store));
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
  auto router = sys.spawn(tool_router, sys.spawn(echo_board),
                          sys.spawn(echo_finder), sys.spawn(echo_geocoder),
                          sys.spawn(echo_planner), sys.spawn(echo_toilets),
                          sys.spawn(echo_journeys), sys.spawn(empty_store));
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
  stamp(ctx);
  CHECK(ctx.correlation_id.size() == 36);
  CHECK(ctx.received_ms > 0);
  auto before = ctx;
  stamp(ctx);
  CHECK(ctx.correlation_id == before.correlation_id);
  CHECK(ctx.received_ms == before.received_ms);
}
