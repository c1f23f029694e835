// The get_departures contract, rule by rule, on pure functions.

#include "transitd/actors/departures_rules.hpp"

#include <catch2/catch.hpp>

#include "transitd/messages/time.hpp"

using namespace transitd;

namespace {

// 2025-09-15T10:00:00Z
constexpr int64_t now = 1757930400;

get_departures_request request(int32_t window = 30, int32_t limit = 10) {
  get_departures_request r;
  r.context.correlation_id = "00000000-0000-4000-8000-000000000000";
  r.context.received_ms = now * 1000;
  r.stop = {stop_ref::kind::id, "HSL:1234"};
  r.window_minutes = window;
  r.limit = limit;
  return r;
}

stop_time scheduled(int64_t offset, std::string line = "7") {
  stop_time t;
  t.line = std::move(line);
  t.mode = transit_mode::tram;
  t.headsign = "Pasila";
  t.scheduled_departure = now + offset;
  t.realtime_departure = now + offset;
  return t;
}

stop_time realtime(int64_t offset, int64_t delay, std::string line = "7") {
  auto t = scheduled(offset, std::move(line));
  t.realtime = true;
  t.realtime_departure = now + offset + delay;
  return t;
}

stop_departures upstream(std::vector<stop_time> times) {
  stop_departures d;
  d.stop_id = "HSL:1234";
  d.stop_name = "Kamppi";
  d.timezone = ""; // unknown zone: UTC with Z
  d.stop_times = std::move(times);
  d.fetched_ms = now * 1000;
  return d;
}

} // namespace

TEST_CASE("basic departure list", "[get_departures][contract]") {
  auto reply = build_departures_board(
    request(), upstream({scheduled(300), realtime(600, 30)}), now);
  REQUIRE(reply.stop_id == "HSL:1234");
  REQUIRE(reply.stop_name == std::optional<std::string>{"Kamppi"});
  REQUIRE(reply.correlation_id == "00000000-0000-4000-8000-000000000000");
  REQUIRE(reply.departures.size() == 2);
  const auto& first = reply.departures[0];
  CHECK(first.line == "7");
  CHECK(first.mode == transit_mode::tram);
  CHECK(first.destination == "Pasila");
  CHECK(first.scheduled_time == "2025-09-15T10:05:00Z");
  CHECK_FALSE(first.realtime_time);
  CHECK(first.status == departure_status::scheduled_only);
  CHECK(reply.departures[1].realtime_time
        == std::optional<std::string>{"2025-09-15T10:10:30Z"});
  CHECK(reply.warnings.empty());
}

TEST_CASE("cancellation mapping", "[get_departures][contract]") {
  auto cancelled = realtime(300, 400);
  cancelled.cancelled = true;
  auto reply = build_departures_board(request(), upstream({cancelled}), now);
  REQUIRE(reply.departures.size() == 1);
  // Rule 2: cancelled wins over the 400 s delay.
  CHECK(reply.departures[0].status == departure_status::cancelled);
  // Rule 3: a cancellation flag alone makes the board realtime.
  CHECK(reply.realtime_used);
}

TEST_CASE("delay over 60 s maps to delayed", "[get_departures][contract]") {
  auto reply = build_departures_board(
    request(), upstream({realtime(300, 61), realtime(400, 60)}), now);
  REQUIRE(reply.departures.size() == 2);
  CHECK(reply.departures[0].status == departure_status::delayed);
  CHECK(reply.departures[0].delay_seconds == 61);
  // Exactly 60 s is still on time (abs delay <= 60).
  CHECK(reply.departures[1].status == departure_status::on_time);
  CHECK(reply.departures[1].delay_seconds == 60);
}

TEST_CASE("a prediction without a timetable claims no delay (D23)",
          "[get_departures][contract]") {
  auto predicted = realtime(300, 0);
  predicted.prediction_only = true;
  auto board = upstream({predicted});
  board.timezone = "Europe/London";
  auto reply = build_departures_board(request(), board, now);
  REQUIRE(reply.departures.size() == 1);
  const auto& d = reply.departures[0];
  CHECK(d.scheduled_time == "2025-09-15T11:05:00+01:00");
  CHECK(d.realtime_time == d.scheduled_time);
  CHECK_FALSE(d.delay_seconds);
  CHECK(d.status == departure_status::on_time);
  CHECK(reply.realtime_used);
}

TEST_CASE("early departure below -60 s maps to delayed (D7)",
          "[get_departures][contract]") {
  auto reply = build_departures_board(
    request(), upstream({realtime(600, -61), realtime(900, -60)}), now);
  REQUIRE(reply.departures.size() == 2);
  CHECK(reply.departures[0].status == departure_status::delayed);
  CHECK(reply.departures[0].delay_seconds == -61);
  CHECK(reply.departures[1].status == departure_status::on_time);
}

TEST_CASE("window limit enforcement (D8)", "[get_departures][contract]") {
  auto reply = build_departures_board(
    request(10),
    upstream({scheduled(-30),          // already gone
              scheduled(599),          // inside
              scheduled(600),          // on the edge: inside
              scheduled(601),          // outside
              realtime(500, 200),      // late into 11:40 → outside
              realtime(700, -120)}),   // early into the window → inside
    now);
  std::vector<std::string> times;
  for (const auto& d : reply.departures)
    times.push_back(d.realtime_time.value_or(d.scheduled_time));
  CHECK(times
        == std::vector<std::string>{"2025-09-15T10:09:40Z",
                                    "2025-09-15T10:09:59Z",
                                    "2025-09-15T10:10:00Z"});
}

TEST_CASE("truncation warning when more than limit",
          "[get_departures][contract]") {
  auto reply = build_departures_board(
    request(30, 2),
    upstream({scheduled(100), scheduled(200), scheduled(300)}), now);
  REQUIRE(reply.departures.size() == 2);
  REQUIRE(reply.warnings.size() == 1);
  CHECK(reply.warnings[0].code == "truncated-results");
  // Exactly the limit: no warning.
  auto exact = build_departures_board(
    request(30, 3),
    upstream({scheduled(100), scheduled(200), scheduled(300)}), now);
  CHECK(exact.warnings.empty());
}

TEST_CASE("rule 1: delaySeconds only when both times are present",
          "[get_departures]") {
  auto reply = build_departures_board(
    request(), upstream({scheduled(100), realtime(200, 75)}), now);
  CHECK_FALSE(reply.departures[0].delay_seconds);
  CHECK(reply.departures[1].delay_seconds == 75);
}

TEST_CASE("rule 3: realtimeUsed is false without realtime data",
          "[get_departures]") {
  auto reply = build_departures_board(
    request(), upstream({scheduled(100), scheduled(200)}), now);
  CHECK_FALSE(reply.realtime_used);
  auto mixed = build_departures_board(
    request(), upstream({scheduled(100), realtime(200, 0)}), now);
  CHECK(mixed.realtime_used);
}

TEST_CASE("rule 4: sorted by realtime else scheduled, limit after sorting",
          "[get_departures]") {
  // Scheduled order B(100) A(200) C(300); realtime moves B behind C.
  auto reply = build_departures_board(
    request(30, 2),
    upstream({realtime(100, 250, "B"), scheduled(200, "A"),
              scheduled(300, "C")}),
    now);
  REQUIRE(reply.departures.size() == 2);
  CHECK(reply.departures[0].line == "A");
  CHECK(reply.departures[1].line == "C");
}

TEST_CASE("rule 6: dataFreshness is the newest realtime stamp or fetch time",
          "[get_departures]") {
  auto data = upstream({scheduled(100)});
  data.fetched_ms = (now + 5) * 1000;
  CHECK(build_departures_board(request(), data, now).data_freshness
        == "2025-09-15T10:00:05Z");
  data.last_realtime_update_ms = (now + 9) * 1000;
  CHECK(build_departures_board(request(), data, now).data_freshness
        == "2025-09-15T10:00:09Z");
  // Without upstream stamps the request time stands.
  data.fetched_ms = 0;
  data.last_realtime_update_ms = 0;
  CHECK(build_departures_board(request(), data, now).data_freshness
        == "2025-09-15T10:00:00Z");
}

TEST_CASE("times carry the stop's UTC offset", "[get_departures]") {
  auto data = upstream({scheduled(300)});
  data.timezone = "Europe/Helsinki";
  auto reply = build_departures_board(request(), data, now);
  CHECK(reply.departures[0].scheduled_time == "2025-09-15T13:05:00+03:00");
}

TEST_CASE("validation: stop reference, window, limit, language",
          "[get_departures][validation]") {
  CHECK_FALSE(validate(request()));
  auto missing = request();
  missing.stop.value.clear();
  REQUIRE(validate(missing));
  CHECK(validate(missing)->code == ec::validation_error);
  CHECK_THAT(validate(missing)->message, Catch::Contains("stop id missing"));
  for (int32_t window : {0, 121, -5}) {
    auto r = request(window);
    REQUIRE(validate(r));
    CHECK_THAT(validate(r)->message, Catch::Contains("window_minutes"));
  }
  for (int32_t window : {1, 120})
    CHECK_FALSE(validate(request(window)));
  for (int32_t limit : {0, 51}) {
    auto r = request(30, limit);
    REQUIRE(validate(r));
    CHECK_THAT(validate(r)->message, Catch::Contains("limit"));
  }
  for (int32_t limit : {1, 50})
    CHECK_FALSE(validate(request(30, limit)));
  // Any language tag: the provider says whether it has texts in it (D24).
  auto german = request();
  german.language = "de";
  CHECK_FALSE(validate(german));
  german.language = "pt-BR";
  CHECK_FALSE(validate(german));
  for (const char* bad : {"deutsch", "d", "de_DE", "en-", "1en",
                          "en-toolongsubtag"}) {
    german.language = bad;
    REQUIRE(validate(german));
    CHECK_THAT(validate(german)->message, Catch::Contains("language"));
  }
}

TEST_CASE("the upstream query covers the window and more than the limit",
          "[get_departures]") {
  auto r = request(20, 5);
  r.language = "fi";
  auto q = make_query(r, now);
  CHECK(q.stop_id == "HSL:1234");
  CHECK(q.start_time == now);
  CHECK(q.time_range_seconds == 1200);
  CHECK(q.max_departures > 5);
  CHECK(q.language == "fi");
  CHECK(q.context.correlation_id == r.context.correlation_id);
}
