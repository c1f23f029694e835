// Realtime times of one trip: the GTFS-realtime propagation rules, each on
// its own, and the specification's own example.

#include "transitd/offline/gtfs_rt_trip.hpp"

#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>
#include <google/protobuf/text_format.h>

#include "gtfs_realtime.pb.h"

using namespace transitd;
using namespace transitd::gtfs_rt;

namespace {

constexpr int64_t origin = 1'700'000'000; // the service day's origin

/// Calls 1..n, ten minutes apart, dwelling 30 s.
std::vector<scheduled_call> schedule(uint32_t n) {
  std::vector<scheduled_call> out;
  for (uint32_t i = 1; i <= n; ++i)
    out.push_back(scheduled_call{i, "S" + std::to_string(i),
                                 static_cast<int32_t>(36000 + 600 * i),
                                 static_cast<int32_t>(36030 + 600 * i)});
  return out;
}

stop_time_update at(uint32_t sequence, std::optional<int32_t> arrival_delay,
                    std::optional<int32_t> departure_delay = {}) {
  stop_time_update u;
  u.stop_sequence = sequence;
  if (arrival_delay)
    u.arrival = stop_time_event{arrival_delay, {}, {}};
  if (departure_delay)
    u.departure = stop_time_event{departure_delay, {}, {}};
  return u;
}

std::vector<int32_t> arrival_delays(const applied_trip& t) {
  std::vector<int32_t> out;
  for (const auto& c : t.calls)
    out.push_back(c.status == call_status::predicted
                      || c.status == call_status::skipped
                    ? c.arrival_delay
                    : -9999);
  return out;
}

} // namespace

TEST_CASE("GTFS-RT apply: a delay propagates until the next update; calls "
          "before the first keep their schedule",
          "[gtfs_rt][apply]") {
  trip_update u;
  u.stops = {at(3, 60), at(6, -30)};
  auto t = apply(u, schedule(8), origin);
  CHECK(arrival_delays(t) == std::vector<int32_t>{-9999, -9999, 60, 60, 60,
                                                  -30, -30, -30});
  CHECK(t.calls[0].status == call_status::scheduled);
  CHECK(t.calls[0].arrival == 36600);
  CHECK(t.calls[3].arrival == 36000 + 600 * 4 + 60);
  CHECK(t.unmatched == 0);
}

TEST_CASE("GTFS-RT apply: absolute times win, departures follow arrivals",
          "[gtfs_rt][apply]") {
  trip_update u;
  stop_time_update s;
  s.stop_id = "S2"; // matched by stop id
  s.arrival = stop_time_event{{}, origin + 36000 + 1200 + 90, {}};
  u.stops = {s};
  auto t = apply(u, schedule(4), origin);
  CHECK(t.calls[1].arrival_delay == 90);
  CHECK(t.calls[1].departure_delay == 90); // no departure event: the arrival's
  CHECK(t.calls[1].departure == 36000 + 1200 + 30 + 90);
  CHECK(t.calls[3].arrival_delay == 90);
  // A departure's own delay is what later calls inherit.
  u.stops = {at(2, 120, 150)};
  t = apply(u, schedule(4), origin);
  CHECK(t.calls[1].arrival_delay == 120);
  CHECK(t.calls[1].departure_delay == 150);
  CHECK(t.calls[2].arrival_delay == 150);
  // Both given, leaving before arriving (the 30 s dwell cannot absorb 60 s):
  // the departure waits for the arrival, and the delays say so.
  u.stops = {at(2, 120, 60)};
  t = apply(u, schedule(4), origin);
  CHECK(t.calls[1].departure == t.calls[1].arrival);
  CHECK(t.calls[1].departure - schedule(4)[1].departure
        == t.calls[1].departure_delay);
  CHECK(t.calls[2].arrival_delay == t.calls[1].departure_delay);
}

TEST_CASE("GTFS-RT apply: skipped, no-data, cancelled, unmatched, trip delay",
          "[gtfs_rt][apply]") {
  trip_update u;
  auto skip = at(3, {});
  skip.relationship = stop_relationship::skipped;
  u.stops = {at(2, 120), skip};
  auto t = apply(u, schedule(5), origin);
  CHECK(t.calls[2].status == call_status::skipped);
  CHECK(t.calls[3].arrival_delay == 120); // the delay passes the skipped stop
  auto none = at(3, {});
  none.relationship = stop_relationship::no_data;
  u.stops = {at(2, 120), none, at(5, 10)};
  t = apply(u, schedule(6), origin);
  CHECK(arrival_delays(t) == std::vector<int32_t>{-9999, 120, -9999, -9999, 10, 10});
  CHECK(t.calls[2].status == call_status::no_data);
  u.stops = {at(42, 5), at(2, 5)};
  t = apply(u, schedule(3), origin);
  CHECK(t.unmatched == 1);
  u.stops.clear();
  u.delay_s = 300;
  t = apply(u, schedule(3), origin);
  CHECK(arrival_delays(t) == std::vector<int32_t>{300, 300, 300});
  u.trip.relationship = trip_relationship::canceled;
  t = apply(u, schedule(3), origin);
  CHECK(t.cancelled);
  for (const auto& c : t.calls)
    CHECK(c.status == call_status::cancelled);
}

TEST_CASE("GTFS-RT apply: what the feed does not give is never invented",
          "[gtfs_rt][apply]") {
  // A skipped first stop: no delay to carry, none created.
  trip_update u;
  auto skip = at(2, {});
  skip.relationship = stop_relationship::skipped;
  u.stops = {skip};
  auto t = apply(u, schedule(4), origin);
  CHECK(t.calls[1].status == call_status::skipped);
  CHECK(t.calls[2].status == call_status::scheduled);
  CHECK(t.calls[3].status == call_status::scheduled);
  // A departure-only update after a 300 s delay: that departure stands,
  // the arrival is the earlier of the two.
  u.stops = {at(1, 300), at(3, {}, 60)};
  t = apply(u, schedule(4), origin);
  CHECK(t.calls[2].departure_delay == 60);
  CHECK(t.calls[2].arrival_delay == 60);
  CHECK(t.calls[3].arrival_delay == 60);
  // An event with neither time nor delay (only its uncertainty): no data.
  stop_time_update vague;
  vague.stop_sequence = 2;
  vague.arrival = stop_time_event{{}, {}, 30};
  u.stops = {at(1, 90), vague};
  t = apply(u, schedule(3), origin);
  CHECK(t.calls[0].arrival_delay == 90);
  CHECK(t.calls[1].status == call_status::no_data);
  CHECK(t.calls[2].status == call_status::scheduled);
  // Two updates for one call: the last wins.
  u.stops = {at(2, 10), at(2, 20)};
  t = apply(u, schedule(3), origin);
  CHECK(t.calls[1].arrival_delay == 20);
  // Absurd delays and times are clamped, never overflow.
  u.stops = {at(1, INT32_MAX)};
  stop_time_update far;
  far.stop_sequence = 2;
  far.arrival = stop_time_event{{}, INT64_MIN, {}};
  u.stops.push_back(far);
  t = apply(u, schedule(3), origin);
  CHECK(t.calls[0].arrival_delay == 2 * 86400);
  CHECK(t.calls[1].arrival_delay == -2 * 86400);
  // An ADDED trip does not run on this schedule.
  u.trip.relationship = trip_relationship::added;
  t = apply(u, schedule(3), origin);
  CHECK_FALSE(t.applicable);
  CHECK(t.calls[0].status == call_status::scheduled);
}

TEST_CASE("GTFS-RT apply: the specification's example trip",
          "[gtfs_rt][apply]") {
  std::ifstream in{std::string{TRANSITD_FIXTURES_DIR}
                     + "/gtfs/gtfs-realtime-spec/trip-updates-full.asciipb"};
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  pb::FeedMessage message;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text.str(),
                                                        &message));
  std::string bytes;
  REQUIRE(message.SerializeToString(&bytes));
  auto feed = decode(bytes);
  REQUIRE(feed);
  REQUIRE(feed->trip_updates.size() == 2);
  // trip-1: 5 s from stop 3, 1 s from stop 8, and from stop 10 an
  // unspecified delay (the reference's example 2: unknown from there).
  auto t = apply(feed->trip_updates[0], schedule(12), origin);
  CHECK(arrival_delays(t) == std::vector<int32_t>{-9999, -9999, 5, 5, 5, 5, 5,
                                                  1, 1, -9999, -9999, -9999});
  CHECK(t.calls[9].status == call_status::no_data);
  // The frequency-based trip: 2 s early from stop 1, unknown from 9.
  CHECK(feed->trip_updates[1].trip.start_time == "11:15:35");
  t = apply(feed->trip_updates[1], schedule(10), origin);
  CHECK(t.calls[0].arrival_delay == -2);
  CHECK(t.calls[7].arrival_delay == -2);
  CHECK(t.calls[8].status == call_status::no_data);
}

TEST_CASE("GTFS-RT apply: a stop_sequence naming another stop than the "
          "update's stop_id: the stop wins",
          "[gtfs_rt][apply]") {
  // BART's feed numbers its calls one lower than its timetable does.
  trip_update u;
  auto first = at(3, 120);
  first.stop_id = "S4";
  auto second = at(4, 60);
  second.stop_id = "S5";
  u.stops = {first, second};
  auto t = apply(u, schedule(6), origin);
  CHECK(arrival_delays(t) == std::vector<int32_t>{-9999, -9999, -9999, 120,
                                                  60, 60});
  CHECK(t.unmatched == 0);
  // A sequence that agrees with its stop_id, or comes alone, is used.
  auto agree = at(3, 30);
  agree.stop_id = "S3";
  u.stops = {agree};
  CHECK(arrival_delays(apply(u, schedule(4), origin))
        == std::vector<int32_t>{-9999, -9999, 30, 30});
  // Neither the sequence nor the stop is the trip's: unmatched.
  auto stray = at(3, 30);
  stray.stop_id = "elsewhere";
  u.stops = {stray};
  CHECK(apply(u, schedule(4), origin).unmatched == 1);
}
