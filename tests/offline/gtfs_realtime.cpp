// The realtime layer: the recorded Caltrain and BART trip updates applied
// to their timetables (every absolute time a feed gives shows in the
// departures), the rules by hand (cancelled, skipped, delayed into the
// window, added, unmatched), the plan legs' two times, and when a stale
// source stops counting. RAPTOR on realtime is checked against the
// reference in tests/offline/raptor.cpp.

#include "transitd/offline/gtfs_realtime.hpp"

#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include <catch2/catch.hpp>

#include "transitd/offline/gtfs_answers.hpp"
#include "transitd/providers/gtfs_feed_actor.hpp"
#include "transitd/offline/gtfs_reader.hpp"
#include "support/fixture_feeds.hpp"

using namespace transitd;
using namespace transitd::gtfs;

namespace {

std::shared_ptr<const timetable> load(const std::string& path) {
  return test::load_fixture_feed(path);
}

gtfs_rt::feed decode_file(const std::string& path) {
  std::ifstream in{std::string{TRANSITD_FIXTURES_DIR} + "/gtfs/" + path,
                   std::ios::binary};
  REQUIRE(in);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  auto feed = gtfs_rt::decode(bytes.str());
  REQUIRE(feed);
  return std::move(*feed);
}

stop_departures board(const timetable& tt, const realtime_layer* rt,
                      const std::string& stop, int64_t from, int32_t range) {
  stop_departures_query q;
  q.stop_id = "t:" + stop;
  q.start_time = from;
  q.time_range_seconds = range;
  q.max_departures = 100;
  auto answer = departures_at(tt, q, rt);
  REQUIRE(answer);
  return std::move(*answer);
}

/// Caltrain trip 124 on 2023-11-07 (the recording's day): its calls.
struct caltrain_trip {
  std::shared_ptr<const timetable> tt;
  uint32_t trip = none;
  const pattern* p = nullptr;
  uint32_t rank = 0;
  int64_t origin = 0;
  int32_t day = 0;

  int64_t departs(uint32_t i) const {
    return origin + tt->time_at(*p, rank, i).departure;
  }
  int64_t arrives(uint32_t i) const {
    return origin + tt->time_at(*p, rank, i).arrival;
  }
  const std::string& stop(uint32_t i) const {
    return tt->stops[tt->pattern_stops[p->stops_begin + i].stop].id;
  }
  uint32_t sequence(uint32_t i) const {
    return tt->pattern_stops[p->stops_begin + i].sequence;
  }
};

caltrain_trip trip_124() {
  caltrain_trip t;
  t.tt = load("caltrain-2023-09/caltrain-gtfs.zip");
  auto trip = t.tt->find_trip("124");
  REQUIRE(trip);
  t.trip = *trip;
  t.p = &t.tt->patterns[t.tt->trip_pattern[*trip]];
  t.rank = t.tt->trip_rank[*trip];
  t.day = *parse_service_date("20231107") - t.tt->first_day;
  REQUIRE(t.tt->runs_on(t.p->service, t.day));
  t.origin = t.tt->origin(t.p->zone, t.day);
  REQUIRE(t.p->stop_count > 4);
  return t;
}

gtfs_rt::trip_update update_of(const std::string& trip_id) {
  gtfs_rt::trip_update u;
  u.trip.trip_id = trip_id;
  u.trip.start_date = "20231107";
  return u;
}

/// The departure of `line` at `scheduled` on a board, or null.
const transitd::stop_time* find_departure(const stop_departures& b,
                                          int64_t scheduled) {
  for (const auto& t : b.stop_times)
    if (t.scheduled_departure == scheduled)
      return &t;
  return nullptr;
}

} // namespace

TEST_CASE("realtime: service dates and clock times as GTFS-realtime writes "
          "them",
          "[realtime]") {
  CHECK(parse_service_date("19700101") == 0);
  CHECK(parse_service_date("20231107") == 19668);
  CHECK(parse_service_date("20240229") == 19782);
  CHECK_FALSE(parse_service_date("20230229")); // a common year
  CHECK_FALSE(parse_service_date("20231131"));
  CHECK_FALSE(parse_service_date("2023-11-07"));
  CHECK_FALSE(parse_service_date("20231300"));
  CHECK_FALSE(parse_service_date(""));
  CHECK(parse_clock_time("15:37:00") == 15 * 3600 + 37 * 60);
  CHECK(parse_clock_time("7:05:09") == 7 * 3600 + 5 * 60 + 9);
  CHECK(parse_clock_time("25:10:00") == 25 * 3600 + 600);
  CHECK(parse_clock_time("15:60:00") == -1);
  CHECK(parse_clock_time("15:37") == -1);
  CHECK(parse_clock_time("ab:cd:ef") == -1);
  CHECK(parse_clock_time("") == -1);
}

TEST_CASE("realtime: every time the recorded Caltrain and BART updates give "
          "shows on the departure boards",
          "[realtime]") {
  struct recording {
    const char* timetable;
    const char* updates;
  };
  for (auto r : {recording{"caltrain-2023-09/caltrain-gtfs.zip",
                           "caltrain-2023-09/caltrain-trip-updates-2023-11-07.pb"},
                 recording{"bart-2019/bart-gtfs.zip",
                           "bart-2019/bart-trip-updates-2019-08-07.pb"}}) {
    INFO(r.updates);
    auto tt = load(r.timetable);
    auto feed = decode_file(r.updates);
    auto now = static_cast<int64_t>(*feed.timestamp);
    auto layer = build_realtime(tt, feed.trip_updates, now);
    const auto& c = layer->counts;
    CHECK(c.trip_updates == feed.trip_updates.size());
    CHECK(c.matched + c.added + c.unmatched_trips + c.not_applied
          == c.trip_updates);
    CHECK(c.matched * 2 > c.trip_updates);
    // Every departure the feed predicts, at a stop that is not its trip's
    // last, is on that stop's board at that time.
    int checked = 0;
    for (const auto& u : feed.trip_updates) {
      auto trip = tt->find_trip(u.trip.trip_id);
      if (!trip || u.trip.relationship != gtfs_rt::trip_relationship::scheduled)
        continue;
      const auto& p = tt->patterns[tt->trip_pattern[*trip]];
      auto position = [&](const std::string& stop) {
        for (uint32_t i = 0; i < p.stop_count; ++i)
          if (tt->stops[tt->pattern_stops[p.stops_begin + i].stop].id == stop)
            return i;
        return none;
      };
      // Times the feed gives in trip order; one earlier than a call
      // before it would have the vehicle go back in time (BART's feed has
      // a few): the layer keeps the trip moving forward instead.
      std::map<uint32_t, int64_t> latest;
      for (const auto& s : u.stops)
        for (const auto& e : {s.arrival, s.departure})
          if (e && e->time && position(s.stop_id) != none) {
            auto& t = latest[position(s.stop_id)];
            t = std::max(t, *e->time);
          }
      for (const auto& s : u.stops) {
        auto i = position(s.stop_id);
        if (!s.departure || !s.departure->time || i == none
            || i + 1 == p.stop_count)
          continue;
        auto at = *s.departure->time;
        bool forward = std::all_of(
          latest.begin(), latest.lower_bound(i),
          [&](const auto& earlier) { return earlier.second <= at; });
        if (!forward)
          continue;
        auto b = board(*tt, layer.get(), s.stop_id, at - 60, 120);
        INFO("trip " << u.trip.trip_id << " at " << s.stop_id << " " << at);
        CHECK(std::any_of(b.stop_times.begin(), b.stop_times.end(),
                          [&](const transitd::stop_time& t) {
                            return t.realtime && t.realtime_departure == at;
                          }));
        ++checked;
      }
    }
    CHECK(checked > 30);
    CHECK(board(*tt, layer.get(), tt->stops[0].id, now, 60)
            .last_realtime_update_ms
          == layer->newest * 1000);
  }
}

TEST_CASE("realtime: a cancelled trip is cancelled on the board and never "
          "boarded",
          "[realtime]") {
  auto t = trip_124();
  auto u = update_of("124");
  u.trip.relationship = gtfs_rt::trip_relationship::canceled;
  auto layer = build_realtime(t.tt, {u}, t.departs(0));
  CHECK(layer->counts.cancelled == 1);
  auto b = board(*t.tt, layer.get(), t.stop(1), t.departs(1), 60);
  const auto* d = find_departure(b, t.departs(1));
  REQUIRE(d);
  CHECK(d->cancelled);
  CHECK_FALSE(d->realtime);
  // Without realtime it runs.
  auto plain = board(*t.tt, nullptr, t.stop(1), t.departs(1), 60);
  REQUIRE(find_departure(plain, t.departs(1)));
  CHECK_FALSE(find_departure(plain, t.departs(1))->cancelled);
  // From its second stop to its third at its time: RAPTOR takes it
  // without realtime, and another trip with it.
  raptor router{*t.tt};
  journey_request rq;
  rq.from = t.tt->stops[t.tt->pattern_stops[t.p->stops_begin + 1].stop].position;
  rq.to = t.tt->stops[t.tt->pattern_stops[t.p->stops_begin + 2].stop].position;
  rq.time = t.departs(1);
  rq.max_walk_meters = 100;
  auto rides_124 = [&](const std::vector<journey>& found) {
    for (const auto& j : found)
      for (const auto& l : j.legs)
        if (l.transit && l.pattern < t.tt->patterns.size()
            && t.tt->pattern_trips[t.tt->patterns[l.pattern].trips_begin
                                   + l.trip_rank]
                 == t.trip
            && l.start >= t.origin && l.start < t.origin + 2 * 86400)
          return true;
    return false;
  };
  CHECK(rides_124(router.route(rq)));
  rq.realtime = layer.get();
  auto found = router.route(rq);
  CHECK_FALSE(found.empty());
  CHECK_FALSE(rides_124(found));
  for (const auto& j : found)
    CHECK(j.departure >= rq.time);
}

TEST_CASE("realtime: a delay moves the trip on the board and in the plan, "
          "the schedule stays beside it",
          "[realtime]") {
  auto t = trip_124();
  auto u = update_of("124");
  gtfs_rt::stop_time_update s;
  s.stop_sequence = t.sequence(1);
  s.departure = gtfs_rt::stop_time_event{600, std::nullopt, std::nullopt};
  u.stops.push_back(s);
  auto layer = build_realtime(t.tt, {u}, t.departs(0));
  REQUIRE(layer->counts.matched == 1);
  CHECK(layer->max_delay == 600);
  // Scheduled at the window's start - 5 minutes, running 5 minutes into
  // it: listed, by its realtime time.
  auto b = board(*t.tt, layer.get(), t.stop(1), t.departs(1) + 300, 600);
  const auto* d = find_departure(b, t.departs(1));
  REQUIRE(d);
  CHECK(d->realtime);
  CHECK(d->realtime_departure == t.departs(1) + 600);
  // Its later stops inherit the delay (propagation); its first keeps the
  // schedule (no prediction before the first update).
  auto later = board(*t.tt, layer.get(), t.stop(2), t.departs(2), 900);
  REQUIRE(find_departure(later, t.departs(2)));
  CHECK(find_departure(later, t.departs(2))->realtime_departure
        == t.departs(2) + 600);
  auto first = board(*t.tt, layer.get(), t.stop(0), t.departs(0), 60);
  REQUIRE(find_departure(first, t.departs(0)));
  CHECK_FALSE(find_departure(first, t.departs(0))->realtime);
  // Not listed once its realtime time leaves the window.
  auto before = board(*t.tt, layer.get(), t.stop(1), t.departs(1), 300);
  CHECK_FALSE(find_departure(before, t.departs(1)));

  // A plan boarding it at its second stop: both times on the leg.
  raptor router{*t.tt};
  trip_plan_query q;
  q.from = t.tt->stops[t.tt->pattern_stops[t.p->stops_begin + 1].stop].position;
  q.to = t.tt->stops[t.tt->pattern_stops[t.p->stops_begin + 3].stop].position;
  q.time = t.departs(1) + 500;
  q.max_walking_distance = 100;
  q.max_transfers = 0;
  q.first = 1;
  auto plans = plan_trips(router, *t.tt, q, nullptr, layer.get());
  REQUIRE_FALSE(plans.itineraries.empty());
  const trip_leg* ride = nullptr;
  for (const auto& l : plans.itineraries[0].legs)
    if (l.transit)
      ride = &l;
  REQUIRE(ride);
  CHECK(ride->scheduled_start == t.departs(1));
  REQUIRE(ride->realtime_start);
  CHECK(*ride->realtime_start == t.departs(1) + 600);
  CHECK(ride->scheduled_end == t.arrives(3));
  REQUIRE(ride->realtime_end);
  CHECK(*ride->realtime_end == t.arrives(3) + 600);
}

TEST_CASE("realtime: a skipped stop is neither boarded nor left",
          "[realtime]") {
  auto t = trip_124();
  auto u = update_of("124");
  gtfs_rt::stop_time_update s;
  s.stop_sequence = t.sequence(2);
  s.relationship = gtfs_rt::stop_relationship::skipped;
  u.stops.push_back(s);
  auto layer = build_realtime(t.tt, {u}, t.departs(0));
  auto b = board(*t.tt, layer.get(), t.stop(2), t.departs(2), 60);
  REQUIRE(find_departure(b, t.departs(2)));
  CHECK(find_departure(b, t.departs(2))->cancelled);
  // Its other stops are served.
  auto other = board(*t.tt, layer.get(), t.stop(1), t.departs(1), 60);
  REQUIRE(find_departure(other, t.departs(1)));
  CHECK_FALSE(find_departure(other, t.departs(1))->cancelled);
  // The layer's copy of the trip: no boarding, no alighting there.
  REQUIRE(layer->patterns.size() == 1);
  const auto& ps = layer->pattern_stops[layer->patterns[0].stops_begin + 2];
  CHECK_FALSE(ps.pickup);
  CHECK_FALSE(ps.drop_off);
}

TEST_CASE("realtime: a trip the feed adds runs where it says",
          "[realtime]") {
  auto t = trip_124();
  gtfs_rt::trip_update u;
  u.trip.trip_id = "extra-1";
  u.trip.route_id = t.tt->routes[t.tt->trips[t.trip].route].id;
  u.trip.relationship = gtfs_rt::trip_relationship::added;
  auto at = t.departs(1) + 120;
  for (uint32_t i = 1; i <= 3; ++i) {
    gtfs_rt::stop_time_update s;
    s.stop_id = t.stop(i);
    s.arrival = gtfs_rt::stop_time_event{std::nullopt,
                                         at + (i - 1) * 300, std::nullopt};
    s.departure = s.arrival;
    u.stops.push_back(s);
  }
  auto layer = build_realtime(t.tt, {u}, at);
  CHECK(layer->counts.added == 1);
  auto b = board(*t.tt, layer.get(), t.stop(1), at, 60);
  auto added = std::find_if(b.stop_times.begin(), b.stop_times.end(),
                            [&](const auto& d) {
                              return d.realtime && d.realtime_departure == at;
                            });
  REQUIRE(added != b.stop_times.end());
  CHECK(added->headsign == t.tt->stops[*t.tt->find_stop(t.stop(3))].name);
  // Its last stop is no departure.
  auto end = board(*t.tt, layer.get(), t.stop(3), at + 600, 60);
  CHECK(std::none_of(end.stop_times.begin(), end.stop_times.end(),
                     [&](const auto& d) { return d.realtime; }));
  // Too thin to run: no route, or one stop.
  auto thin = u;
  thin.trip.route_id = "no-such-route";
  auto none_layer = build_realtime(t.tt, {thin}, at);
  CHECK(none_layer->counts.added == 0);
  CHECK(none_layer->counts.unmatched_trips == 1);
  thin = u;
  thin.stops.resize(1);
  CHECK(build_realtime(t.tt, {thin}, at)->counts.unmatched_trips == 1);
}

TEST_CASE("realtime: unknown trips, days the trip does not run and "
          "unmatched stops are counted, not applied",
          "[realtime]") {
  auto t = trip_124();
  auto unknown = update_of("no-such-trip");
  auto wrong_day = update_of("124");
  wrong_day.trip.start_date = "20231111"; // a Saturday: weekday trip 124
  auto bad_date = update_of("124");
  bad_date.trip.start_date = "2023-11-07";
  auto stray = update_of("124");
  gtfs_rt::stop_time_update s;
  s.stop_id = "not-a-stop-of-124";
  s.departure = gtfs_rt::stop_time_event{60, std::nullopt, std::nullopt};
  stray.stops.push_back(s);
  auto layer
    = build_realtime(t.tt, {unknown, wrong_day, bad_date}, t.departs(0));
  CHECK(layer->counts.unmatched_trips == 3);
  CHECK(layer->counts.matched == 0);
  CHECK(layer->patterns.empty());
  CHECK(layer->find(t.trip, t.day) == nullptr);
  auto strays = build_realtime(t.tt, {stray}, t.departs(0));
  CHECK(strays->counts.unmatched_stops == 1);
  CHECK(strays->counts.matched == 1);
  auto replacement = update_of("124");
  replacement.trip.relationship = gtfs_rt::trip_relationship::replacement;
  auto replaced = build_realtime(t.tt, {replacement}, t.departs(0));
  CHECK(replaced->counts.not_applied == 1);
  CHECK(replaced->find(t.trip, t.day) == nullptr);
}

TEST_CASE("realtime: without a start date, the day the trip runs nearest "
          "to now; the later of two updates for one trip wins",
          "[realtime]") {
  auto t = trip_124();
  auto u = update_of("124");
  u.trip.start_date.clear();
  u.delay_s = 120;
  auto v = u;
  v.delay_s = 240;
  auto layer = build_realtime(t.tt, {u, v}, t.departs(0) - 1800);
  const auto* e = layer->find(t.trip, t.day);
  REQUIRE(e);
  auto b = board(*t.tt, layer.get(), t.stop(1), t.departs(1), 600);
  REQUIRE(find_departure(b, t.departs(1)));
  CHECK(find_departure(b, t.departs(1))->realtime_departure
        == t.departs(1) + 240);
  // A day later the same update means the next weekday's run.
  auto next = build_realtime(t.tt, {u}, t.departs(0) + 86400 - 1800);
  CHECK(next->find(t.trip, t.day) == nullptr);
  CHECK(next->find(t.trip, t.day + 1) != nullptr);
}

TEST_CASE("realtime: a trip named by route, direction and start time (as "
          "HSL's feed names them, without trip ids)",
          "[realtime]") {
  auto t = trip_124();
  const auto& trip = t.tt->trips[t.trip];
  gtfs_rt::trip_update u;
  u.trip.route_id = t.tt->routes[trip.route].id;
  u.trip.direction_id = trip.direction;
  auto first = t.tt->time_at(*t.p, t.rank, 0).departure;
  char start[16];
  std::snprintf(start, sizeof start, "%02d:%02d:%02d", first / 3600,
                first / 60 % 60, first % 60);
  u.trip.start_time = start;
  u.trip.start_date = "20231107";
  u.delay_s = 180;
  auto layer = build_realtime(t.tt, {u}, t.departs(0));
  CHECK(layer->counts.matched == 1);
  CHECK(layer->find(t.trip, t.day) != nullptr);
  // The other direction, or another start time: no such trip.
  auto other = u;
  other.trip.direction_id = 1 - trip.direction;
  CHECK(build_realtime(t.tt, {other}, t.departs(0))->find(t.trip, t.day)
        == nullptr);
  other = u;
  other.trip.start_time = "03:01:00";
  CHECK(build_realtime(t.tt, {other}, t.departs(0))->counts.unmatched_trips
        == 1);
}

TEST_CASE("realtime: a stale source is not applied and answers say so",
          "[realtime]") {
  auto t = trip_124();
  feed_slot slot{"t"};
  slot.publish(t.tt, 0);
  auto u = update_of("124");
  u.delay_s = 60;
  auto layer = build_realtime(t.tt, {u}, t.departs(0));
  layer->oldest = layer->newest = t.departs(0);
  realtime_status status;
  gtfs_rt::source_status source;
  source.name = "https://example.org/rt";
  source.timestamp = t.departs(0);
  status.sources.push_back(source);
  slot.publish_realtime(layer, status);

  auto fresh = slot.realtime_for(*t.tt, t.departs(0) + 300, 300);
  CHECK(fresh.layer == layer);
  CHECK(fresh.warnings.empty());

  auto stale = slot.realtime_for(*t.tt, t.departs(0) + 301, 300);
  CHECK(stale.layer == nullptr);
  REQUIRE(stale.warnings.size() == 1);
  CHECK(stale.warnings[0].code == "realtime-stale");
  CHECK(stale.warnings[0].message.find("https://example.org/rt")
        != std::string::npos);
  CHECK(stale.warnings[0].message.find("301 s") != std::string::npos);

  // A layer of another timetable is never used.
  auto other = load("caltrain-2023-09/caltrain-gtfs.zip");
  CHECK(slot.realtime_for(*other, t.departs(0), 300).layer == nullptr);

  // A source that never sent anything usable says why.
  source.timestamp = 0;
  source.last_error = "HTTP status 503";
  slot.set_realtime_status({source});
  auto nothing = slot.realtime_for(*t.tt, t.departs(0), 300);
  REQUIRE(nothing.warnings.size() == 1);
  CHECK(nothing.warnings[0].message.find("HTTP status 503")
        != std::string::npos);
  // No realtime configured: nothing to say.
  feed_slot plain{"p"};
  plain.publish(t.tt, 0);
  CHECK(plain.realtime_for(*t.tt, t.departs(0), 300).warnings.empty());
}

TEST_CASE("realtime vehicles: the recorded Caltrain positions by line and "
          "near a point, resolved to the timetable",
          "[realtime][vehicles]") {
  auto tt = load("caltrain-2023-09/caltrain-gtfs.zip");
  auto feed = decode_file("caltrain-2023-09/caltrain-vehicle-positions-2023-11-07.pb");
  auto layer = build_realtime(tt, {}, static_cast<int64_t>(*feed.timestamp));
  layer->newest = static_cast<int64_t>(*feed.timestamp);
  layer->vehicles = feed.vehicles;

  vehicles_query all;
  all.route = "L1";
  auto locals = vehicles_of(*tt, layer.get(), all);
  REQUIRE(locals);
  REQUIRE_FALSE(locals->vehicles.empty());
  for (const auto& v : locals->vehicles) {
    CHECK(v.line == "L1");
    CHECK(v.route_id == "t:L1");
    CHECK(v.mode == transit_mode::rail);
    CHECK_FALSE(v.headsign.empty());
    CHECK(v.timestamp == 1699405549);
  }
  // Train 124 is where the recording has it.
  auto train = std::find_if(locals->vehicles.begin(), locals->vehicles.end(),
                            [](const auto& v) { return v.trip_id == "124"; });
  REQUIRE(train != locals->vehicles.end());
  CHECK(train->position.lat == Approx(37.37046));
  CHECK(train->position.lon == Approx(-121.99604));
  // The same line by its route id, and any case.
  all.route = "t:L1";
  CHECK(vehicles_of(*tt, layer.get(), all)->vehicles.size()
        == locals->vehicles.size());
  all.route = "l1";
  CHECK(vehicles_of(*tt, layer.get(), all)->vehicles.size()
        == locals->vehicles.size());

  // Near train 124: it first, every one within the radius, nearest first.
  vehicles_query near;
  near.center = coordinate{37.3700, -121.9960};
  near.radius = 20000;
  auto around = vehicles_of(*tt, layer.get(), near);
  REQUIRE(around);
  REQUIRE_FALSE(around->vehicles.empty());
  CHECK(around->vehicles[0].trip_id == "124");
  for (std::size_t i = 0; i < around->vehicles.size(); ++i) {
    REQUIRE(around->vehicles[i].distance);
    CHECK(*around->vehicles[i].distance <= 20000);
    if (i > 0)
      CHECK(*around->vehicles[i - 1].distance
            <= *around->vehicles[i].distance);
  }
  CHECK(around->vehicles.size() < feed.vehicles.size());

  // Unknown lines and routes are named back.
  all.route = "X9";
  auto unknown = vehicles_of(*tt, layer.get(), all);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().code == ec::validation_error);
  CHECK(unknown.error().message.find("X9") != std::string::npos);
  all.route = "t:nope";
  CHECK_FALSE(vehicles_of(*tt, layer.get(), all));
  // No layer (stale, or none yet): no vehicles, no failure.
  all.route = "L1";
  auto none_yet = vehicles_of(*tt, nullptr, all);
  REQUIRE(none_yet);
  CHECK(none_yet->vehicles.empty());
}

TEST_CASE("realtime alerts: in force at the time, about the stop, its "
          "routes or everything, in the language asked, in the feed's order",
          "[realtime][alerts]") {
  auto tt = load("caltrain-2023-09/caltrain-gtfs.zip");
  auto feed = decode_file("caltrain-2023-09/caltrain-alerts-2023-11-07.pb");
  REQUIRE(feed.alerts.size() == 4);
  auto now = static_cast<int64_t>(*feed.timestamp);
  auto layer = build_realtime(tt, {}, now);
  layer->newest = now;
  layer->alerts = feed.alerts;
  auto ids = [](const alert_list& list) {
    std::vector<std::string> out;
    for (const auto& a : list.alerts)
      out.push_back(a.id);
    return out;
  };

  alerts_query all;
  all.time = now;
  auto everything = alerts_of(*tt, layer.get(), all);
  REQUIRE(everything);
  // In the feed's order (the tool sorts); yesterday's is over.
  CHECK(ids(*everything)
        == std::vector<std::string>{"platform-moved", "signal-delays",
                                    "masks"});
  const auto& moved = everything->alerts[0];
  CHECK(moved.header.rfind("Mountain View: northbound", 0) == 0);
  CHECK(moved.language == "en");
  CHECK(moved.description.find("temporary platform") != std::string::npos);
  CHECK(moved.url == "https://www.caltrain.com/alerts");
  CHECK(moved.cause == "construction");
  CHECK(moved.effect == "stop-moved");
  CHECK(moved.severity == "warning");
  REQUIRE(moved.subjects.size() == 1);
  CHECK(moved.subjects[0].type == "stop");
  CHECK(moved.subjects[0].id == "t:70211");
  CHECK(moved.subjects[0].name == "Mountain View Caltrain Station");
  REQUIRE(moved.periods.size() == 1);
  CHECK(moved.periods[0].start == 1699400000);
  CHECK(moved.periods[0].end == 1699450000);
  CHECK(everything->alerts[1].subjects[0].name == "L1");

  // Spanish where given, English where not (the asked language first).
  all.language = "es";
  auto spanish = alerts_of(*tt, layer.get(), all);
  CHECK(spanish->alerts[0].header.rfind("Mountain View: los trenes", 0) == 0);
  CHECK(spanish->alerts[0].language == "es");
  CHECK(spanish->alerts[1].language == "en");
  // The untagged text when nothing matches.
  CHECK(spanish->alerts[2].header == "Bikes are welcome on every train");
  CHECK(spanish->alerts[2].language.empty());

  // At the other platform of the station: its stop alert, the routes
  // calling there, and the agency's.
  alerts_query stop;
  stop.time = now;
  stop.stop_id = "t:70212";
  CHECK(ids(*alerts_of(*tt, layer.get(), stop))
        == std::vector<std::string>{"platform-moved", "signal-delays",
                                    "masks"});
  // A route: its alerts and the agency's, not the stop's.
  alerts_query route;
  route.time = now;
  route.route_id = "L1";
  CHECK(ids(*alerts_of(*tt, layer.get(), route))
        == std::vector<std::string>{"signal-delays", "masks"});
  route.route_id = "t:L5";
  CHECK(ids(*alerts_of(*tt, layer.get(), route))
        == std::vector<std::string>{"masks"});
  // A trip: its route's alerts and the agency's.
  alerts_query trip;
  trip.time = now;
  trip.trip_id = "t:124";
  CHECK(ids(*alerts_of(*tt, layer.get(), trip))
        == std::vector<std::string>{"signal-delays", "masks"});
  trip.trip_id = "t:no-such-trip";
  auto no_trip = alerts_of(*tt, layer.get(), trip);
  REQUIRE_FALSE(no_trip);
  CHECK(no_trip.error().code == ec::validation_error);
  // Yesterday: only yesterday's, and the one without periods.
  all.time = 1699305000;
  all.language = "en";
  CHECK(ids(*alerts_of(*tt, layer.get(), all))
        == std::vector<std::string>{"yesterday", "masks"});
  // Unknown stops and routes are named back.
  stop.stop_id = "t:nope";
  auto bad = alerts_of(*tt, layer.get(), stop);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == ec::validation_error);
}

TEST_CASE("realtime of a merged source: its ids the merge renamed are "
          "renamed too",
          "[realtime][gtfs][merge]") {
  // Two agencies, each with a stop "T" (kilometres apart) and a route "R"
  // (another line), and a stop "S" they share (the same place).
  auto source = [](const char* route_name, const char* t_at) {
    return in_memory_feed(
      {{"agency.txt", "agency_id,agency_name,agency_url,agency_timezone\n"
                      "A,Agency,http://a.example,Europe/Helsinki\n"},
       {"stops.txt", std::string{"stop_id,stop_name,stop_lat,stop_lon\n"
                                 "S,Shared,60.17,24.94\n"
                                 "T,Its own,"}
                       + t_at + "\n"},
       {"routes.txt", std::string{"route_id,route_short_name,"
                                  "route_long_name,route_type\n"
                                  "R,1,"}
                        + route_name + ",3\n"},
       {"trips.txt", "route_id,service_id,trip_id\nR,WK,t\nR,WK,f\n"},
       {"stop_times.txt", "trip_id,arrival_time,departure_time,stop_id,"
                          "stop_sequence\n"
                          "t,08:00:00,08:00:00,S,1\n"
                          "t,08:10:00,08:10:00,T,2\n"
                          "f,00:00:00,00:00:00,S,1\n"
                          "f,00:10:00,00:10:00,T,2\n"},
       // "f" every half hour from 07:00: trips f@25200 and f@27000.
       {"frequencies.txt", "trip_id,start_time,end_time,headway_secs\n"
                           "f,07:00:00,08:00:00,1800\n"},
       {"calendar.txt", "service_id,monday,tuesday,wednesday,thursday,"
                        "friday,saturday,sunday,start_date,end_date\n"
                        "WK,1,1,1,1,1,0,0,20260101,20261231\n"}});
  };
  std::vector<std::unique_ptr<feed_files>> sources;
  sources.push_back(source("One", "60.18,24.92"));
  sources.push_back(source("Another", "60.30,25.10"));
  auto loaded = load_timetable("x", std::move(sources));
  REQUIRE(loaded);
  const auto& tt = **loaded;
  REQUIRE(tt.find_stop("T~2"));
  REQUIRE(tt.find_route("R~2"));
  REQUIRE_FALSE(tt.find_stop("S~2"));

  auto message = [] {
    std::vector<gtfs_rt::trip_update> updates(1);
    updates[0].trip.route_id = "R";
    updates[0].trip.trip_id = "t";
    updates[0].stops.resize(2);
    updates[0].stops[0].stop_id = "S";
    updates[0].stops[1].stop_id = "T";
    std::vector<gtfs_rt::vehicle_position> vehicles(1);
    vehicles[0].trip = gtfs_rt::trip_descriptor{};
    vehicles[0].trip->route_id = "R";
    vehicles[0].trip->trip_id = "u";
    vehicles[0].stop_id = "T";
    std::vector<gtfs_rt::alert> alerts(1);
    alerts[0].informed.resize(2);
    alerts[0].informed[0].route_id = "R";
    alerts[0].informed[1].stop_id = "T";
    alerts[0].informed[1].trip = gtfs_rt::trip_descriptor{};
    alerts[0].informed[1].trip->route_id = "R";
    alerts[0].informed[1].trip->trip_id = "t";
    // A frequencies.txt trip, named with its start.
    alerts[0].informed.emplace_back();
    alerts[0].informed[2].trip = gtfs_rt::trip_descriptor{};
    alerts[0].informed[2].trip->trip_id = "f";
    alerts[0].informed[2].trip->start_time = "07:30:00";
    return std::make_tuple(updates, vehicles, alerts);
  };
  // Of the second source: its T, R and t are T~2, R~2 and t~2; the
  // shared stop stays, and so does a trip id only it uses.
  auto [updates, vehicles, alerts] = message();
  name_as_merged(tt, 2, updates, vehicles, alerts);
  CHECK(updates[0].trip.route_id == "R~2");
  CHECK(updates[0].trip.trip_id == "t~2");
  CHECK(vehicles[0].trip->trip_id == "u");
  CHECK(updates[0].stops[0].stop_id == "S");
  CHECK(updates[0].stops[1].stop_id == "T~2");
  CHECK(vehicles[0].trip->route_id == "R~2");
  CHECK(vehicles[0].stop_id == "T~2");
  CHECK(alerts[0].informed[0].route_id == "R~2");
  CHECK(alerts[0].informed[1].stop_id == "T~2");
  CHECK(alerts[0].informed[1].trip->route_id == "R~2");
  CHECK(alerts[0].informed[1].trip->trip_id == "t~2");
  CHECK(alerts[0].informed[2].trip->trip_id == "f~2");
  CHECK(tt.find_trip("f~2@27000"));
  // Of the first source, or of the feed as a whole (0): as they are.
  for (std::size_t rank : {0, 1}) {
    auto [u, v, a] = message();
    name_as_merged(tt, rank, u, v, a);
    CHECK(u[0].trip.route_id == "R");
    CHECK(u[0].trip.trip_id == "t");
    CHECK(a[0].informed[2].trip->trip_id == "f");
    CHECK(u[0].stops[1].stop_id == "T");
    CHECK(v[0].stop_id == "T");
    CHECK(a[0].informed[0].route_id == "R");
  }
  // The renamed ids find the second source's stop, route and trip.
  CHECK(tt.routes[*tt.find_route("R~2")].long_name == "Another");
  REQUIRE(tt.find_trip("t~2"));
  CHECK(tt.trips[*tt.find_trip("t~2")].route == *tt.find_route("R~2"));
}
