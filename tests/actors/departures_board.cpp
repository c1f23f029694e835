// DEPARTURES_BOARD on the deterministic scheduler, with a stand-in
// TIMETABLE that implements the real interface.

#include "transitd/actors/departures_board.hpp"

#include <caf/exit_reason.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <catch2/catch.hpp>

#include "transitd/messages/time.hpp"
#include "support/deterministic.hpp"
#include "support/stand_ins.hpp"

using namespace transitd;

namespace {

/// A TIMETABLE that answers from a script and counts its queries.
struct scripted_timetable_state {
  static inline const char* name = "scripted_timetable";
  int queries = 0;
};

timetable_actor::behavior_type scripted_timetable(
  timetable_actor::stateful_pointer<scripted_timetable_state> self,
  std::shared_ptr<int> counter, caf::error fail_with) {
  return {
    [self, counter, fail_with](const stop_departures_query& query)
      -> caf::result<stop_departures> {
      ++*counter;
      if (fail_with)
        return fail_with;
      stop_departures d;
      d.stop_id = query.stop_id;
      d.stop_name = "Kamppi";
      d.timezone = "Europe/Helsinki";
      stop_time t;
      t.line = "550";
      t.headsign = "Itäkeskus";
      t.scheduled_departure = query.start_time + 120;
      t.realtime_departure = query.start_time + 200;
      t.realtime = true;
      d.stop_times.push_back(t);
      d.fetched_ms = query.start_time * 1000;
      return d;
    },
    [](const nearby_stops_query&) -> caf::result<nearby_stops> {
      return make_error(ec::internal_error, "not used by the board");
    },
  };
}

/// A TIMETABLE that never answers (a hung upstream).
timetable_actor::behavior_type silent_timetable() {
  return {
    [](const stop_departures_query&) -> caf::result<stop_departures> {
      return caf::skip;
    },
    [](const nearby_stops_query&) -> caf::result<nearby_stops> {
      return caf::skip;
    },
  };
}

get_departures_request valid_request() {
  get_departures_request r;
  r.context.correlation_id = "11111111-1111-4111-8111-111111111111";
  r.context.received_ms = 1757930400000;
  r.stop = {stop_ref::kind::id, "HSL:1040129"};
  return r;
}

struct fixture : test::deterministic_fixture {
  std::shared_ptr<int> counter = std::make_shared<int>(0);

  departures_board_actor board(caf::error fail_with = {},
                               departures_board_options options = {}) {
    auto timetable = sys.spawn(scripted_timetable, counter, fail_with);
    return sys.spawn(departures_board, timetable, sys.spawn(test::label_store),
                     options);
  }
};

} // namespace

TEST_CASE_METHOD(fixture, "a valid request is answered from the timetable",
                 "[departures_board][actor]") {
  departures_board_options options;
  options.standing_warnings.push_back({"demo-data", "demo"});
  auto b = board({}, options);
  self->send(b, valid_request());
  sched.run();
  bool answered = false;
  self->receive(
    [&](get_departures_reply& reply) {
      answered = true;
      CHECK(reply.stop_id == "HSL:1040129");
      CHECK(reply.correlation_id == "11111111-1111-4111-8111-111111111111");
      REQUIRE(reply.departures.size() == 1);
      CHECK(reply.departures[0].status == departure_status::delayed);
      REQUIRE(reply.warnings.size() == 1);
      CHECK(reply.warnings[0].code == "demo-data");
    },
    [&](caf::error& err) { FAIL(caf::to_string(err)); });
  CHECK(answered);
  CHECK(*counter == 1);
}

TEST_CASE_METHOD(fixture, "invalid requests never reach the timetable",
                 "[departures_board][actor][validation]") {
  auto b = board();
  auto r = valid_request();
  r.limit = 0;
  self->send(b, r);
  sched.run();
  self->receive([&](get_departures_reply&) { FAIL("expected an error"); },
                [&](caf::error& err) {
                  auto f = to_failure(err);
                  CHECK(f.code == ec::validation_error);
                  CHECK_THAT(f.message, Catch::Contains("limit"));
                });
  CHECK(*counter == 0);
}

TEST_CASE_METHOD(fixture, "a stop label resolves through the store (D16)",
                 "[departures_board][actor][labels]") {
  auto b = board();
  auto r = valid_request();
  r.stop = {stop_ref::kind::label, "work"};
  self->send(b, r);
  sched.run();
  self->receive(
    [&](get_departures_reply& reply) { CHECK(reply.stop_id == "HSL:2222"); },
    [&](caf::error& err) { FAIL(caf::to_string(err)); });
  CHECK(*counter == 1);
}

TEST_CASE_METHOD(fixture, "wrong-typed and unknown labels name the label",
                 "[departures_board][actor][labels][validation]") {
  auto b = board();
  for (std::string label : {"home", "nowhere"}) {
    auto r = valid_request();
    r.stop = {stop_ref::kind::label, label};
    self->send(b, r);
    sched.run();
    self->receive([&](get_departures_reply&) { FAIL("expected an error"); },
                  [&](caf::error& err) {
                    auto f = to_failure(err);
                    CHECK(f.code == ec::validation_error);
                    CHECK_THAT(f.message, Catch::Contains(label));
                  });
  }
  CHECK(*counter == 0);
}

TEST_CASE_METHOD(fixture, "upstream failures reach the caller unchanged",
                 "[departures_board][actor]") {
  auto b = board(make_error(ec::rate_limited, "throttled", "", 3));
  self->send(b, valid_request());
  sched.run();
  self->receive([&](get_departures_reply&) { FAIL("expected an error"); },
                [&](caf::error& err) {
                  auto f = to_failure(err);
                  CHECK(f.code == ec::rate_limited);
                  CHECK(f.retry_after == 3);
                });
}

TEST_CASE_METHOD(fixture, "a silent timetable ends in upstream-timeout",
                 "[departures_board][actor]") {
  departures_board_options options;
  options.timeout_ms = 600000; // ten minutes of virtual time
  auto silent = sys.spawn(silent_timetable);
  auto b = sys.spawn(departures_board, silent, sys.spawn(test::label_store),
                     options);
  self->send(b, valid_request());
  sched.run();
  // Nothing yet: the board waits for its timetable.
  CHECK(self->mailbox().empty());
  REQUIRE(sched.trigger_timeouts() > 0);
  sched.run();
  self->receive([&](get_departures_reply&) { FAIL("expected a timeout"); },
                [&](caf::error& err) {
                  CHECK(to_failure(err).code == ec::upstream_timeout);
                });
  // The skipped query (and its sender) would otherwise stay in the silent
  // timetable's mailbox forever.
  caf::anon_send_exit(silent, caf::exit_reason::user_shutdown);
}

TEST_CASE_METHOD(fixture,
                 "with DEADLINES a silent timetable still ends in "
                 "upstream-timeout",
                 "[departures_board][actor][deadline_keeper]") {
  departures_board_options options;
  options.timeout_ms = 600000;
  options.deadlines = spawn_deadline_keeper(sys);
  auto silent = sys.spawn(silent_timetable);
  auto b = sys.spawn(departures_board, silent, sys.spawn(test::label_store),
                     options);
  self->send(b, valid_request());
  sched.run();
  CHECK(self->mailbox().empty());
  // The keeper's one timer, not a CAF request timeout, ends the wait.
  REQUIRE(sched.clock().schedule().size() == 1);
  REQUIRE(sched.trigger_timeouts() > 0);
  sched.run();
  self->receive([&](get_departures_reply&) { FAIL("expected a timeout"); },
                [&](caf::error& err) {
                  CHECK(to_failure(err).code == ec::upstream_timeout);
                });
  caf::anon_send_exit(silent, caf::exit_reason::user_shutdown);
}

TEST_CASE_METHOD(fixture,
                 "with DEADLINES answered calls leave no timeouts behind",
                 "[departures_board][actor][deadline_keeper]") {
  // CAF 0.17 keeps a request's timeout until it fires, answered or not:
  // every call left one in the clock. The keeper unbooks answered ones and
  // keeps a single timer.
  auto run_calls = [&](departures_board_options options) {
    auto b = board({}, options);
    for (int i = 0; i < 20; ++i) {
      self->send(b, valid_request());
      sched.run();
      self->receive([](get_departures_reply&) {},
                    [&](caf::error& err) { FAIL(caf::to_string(err)); });
    }
    auto pending = sched.clock().schedule().size();
    while (sched.trigger_timeouts() > 0)
      sched.run();
    return pending;
  };
  departures_board_options kept;
  kept.deadlines = spawn_deadline_keeper(sys);
  CHECK(run_calls(kept) <= 1);
  CHECK(*counter == 20);
  // Without the keeper, CAF's clock: one left per call.
  CHECK(run_calls(departures_board_options{}) == 20);
}

TEST_CASE("remaining_ms honours the call's deadline", "[departures_board]") {
  call_context ctx;
  CHECK(remaining_ms(ctx, 1234) == 1234);
  ctx.deadline_ms = now_ms() + 60000;
  auto left = remaining_ms(ctx, 1234);
  CHECK(left > 50000);
  CHECK(left <= 60000);
  ctx.deadline_ms = now_ms() - 5;
  CHECK(remaining_ms(ctx, 1234) == 1);
}
