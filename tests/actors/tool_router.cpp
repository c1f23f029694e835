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

} // namespace

TEST_CASE_METHOD(test::deterministic_fixture,
                 "the router stamps calls that arrive without an id",
                 "[tool_router][actor]") {
  auto router = sys.spawn(tool_router, sys.spawn(echo_board));
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
  auto router = sys.spawn(tool_router, sys.spawn(echo_board));
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
