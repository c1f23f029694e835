// FEED's search flags: a cancel_call stops a search in flight in one of
// its routers (on the deterministic scheduler), and only ids in flight are
// held.

#include "transitd/providers/gtfs_feed_actor.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "transitd/offline/gtfs_snapshot.hpp"

#include "support/deterministic.hpp"

using namespace transitd;

namespace {

/// A line A-B in Helsinki, 08:00 to 08:10 every day of 2026.
std::shared_ptr<const gtfs::timetable> one_line() {
  std::vector<std::unique_ptr<gtfs::feed_files>> sources;
  sources.push_back(gtfs::in_memory_feed({
    {"agency.txt", "agency_name,agency_url,agency_timezone\n"
                   "A,http://a.example,Europe/Helsinki\n"},
    {"stops.txt", "stop_id,stop_name,stop_lat,stop_lon\n"
                  "A,A,60.100,24.900\n"
                  "B,B,60.150,24.900\n"},
    {"routes.txt", "route_id,route_short_name,route_type\n1,1,3\n"},
    {"trips.txt", "route_id,service_id,trip_id\n1,S,x\n"},
    {"stop_times.txt", "trip_id,arrival_time,departure_time,stop_id,"
                       "stop_sequence\n"
                       "x,08:00:00,08:00:00,A,1\n"
                       "x,08:10:00,08:10:00,B,2\n"},
    {"calendar.txt", "service_id,monday,tuesday,wednesday,thursday,friday,"
                     "saturday,sunday,start_date,end_date\n"
                     "S,1,1,1,1,1,1,1,20260101,20261231\n"},
  }));
  auto tt = gtfs::load_timetable("t", std::move(sources));
  if (!tt)
    FAIL(tt.error().message);
  return *tt;
}

trip_plan_query a_to_b(std::string id) {
  trip_plan_query q;
  q.from = {60.100, 24.900};
  q.to = {60.150, 24.900};
  q.time = 1781064000; // 2026-06-10 07:00 in Helsinki
  q.context.correlation_id = std::move(id);
  return q;
}

struct fixture : test::deterministic_fixture {
  /// A feed of `routers` routers; `realtime`: with a realtime source (one
  /// that never answers: only whether the feed has one matters here).
  explicit fixture(std::size_t routers = 1, bool realtime = false) {
    gtfs_feed_options options;
    options.name = "t";
    options.preloaded = one_line();
    options.routers = routers;
    if (realtime)
      options.realtime = {"/nonexistent/transitd-test/trip-updates.pb"};
    slot = std::make_shared<feed_slot>("t");
    feed = spawn_gtfs_feed(sys, options, slot);
    sched.run();
  }
  ~fixture() {
    caf::anon_send_exit(feed, caf::exit_reason::user_shutdown);
    sched.run();
  }

  caf::expected<trip_plans> answer() {
    caf::expected<trip_plans> out{caf::error{}};
    self->receive([&](trip_plans& plans) { out = std::move(plans); },
                  [&](caf::error& err) { out = std::move(err); });
    return out;
  }

  /// FEED's counter `feed.t.NAME` (-1: none).
  int64_t count(const std::string& name) {
    self->send(feed, get_counters{});
    sched.run();
    int64_t n = -1;
    self->receive([&](counters& c) {
      for (const auto& [key, value] : c.values)
        if (key == "feed.t." + name)
          n = value;
    });
    return n;
  }
  int64_t cancelled_plans() { return count("cancelled_plans"); }
  /// Searches run.
  int64_t plans() { return count("plans"); }

  /// Sends plan query `q` and its call's relaxed query, as a planner does,
  /// and runs what they start.
  void send_with_relaxed(trip_plan_query q) {
    auto relaxed = q;
    relaxed.context.correlation_id = relaxed_id(q.context.correlation_id);
    self->send(feed, std::move(q));
    self->send(feed, std::move(relaxed));
    sched.run();
  }

  /// A content planner cancels the waiting search `id`: it is answered
  /// at once, as cancelled.
  void check_cancelled(const std::string& id) {
    self->send(feed, cancel_call{id});
    sched.run();
    auto cancelled = answer();
    REQUIRE_FALSE(cancelled);
    CHECK(to_failure(cancelled.error()).code == ec::cancelled);
  }

  std::shared_ptr<feed_slot> slot;
  feed_actor feed;
};

} // namespace

TEST_CASE("search flags: held only while a search is in flight",
          "[gtfs][feed]") {
  search_flags flags;
  // An empty id cannot be cancelled.
  CHECK(flags.open("") == nullptr);
  CHECK(flags.in_flight() == 0);
  auto a = flags.open("a");
  REQUIRE(a);
  CHECK_FALSE(a->load());
  // Two searches of one id share a flag, and both stop.
  auto again = flags.open("a");
  CHECK(again == a);
  CHECK(flags.find("a") == a);
  CHECK(flags.cancel("a"));
  CHECK(a->load());
  flags.close("a");
  CHECK(flags.in_flight() == 1);
  flags.close("a");
  CHECK(flags.in_flight() == 0);
  CHECK(flags.find("a") == nullptr);
  // A cancel for a finished (or unknown) search holds nothing.
  CHECK_FALSE(flags.cancel("a"));
  CHECK(flags.in_flight() == 0);
  // An id opened anew starts down.
  auto b = flags.open("a");
  CHECK_FALSE(b->load());
  // Cancelling a call stops its sub-queries too, not a shared flight.
  auto relaxed = flags.open("a:relaxed");
  auto shared = flags.open("a:shared");
  auto other = flags.open("ab");
  CHECK(flags.cancel("a"));
  CHECK(b->load());
  CHECK(relaxed->load());
  CHECK_FALSE(shared->load());
  CHECK_FALSE(other->load());
  // A new search under an id cancelled while still running starts down;
  // the running one stays stopped.
  auto fresh = flags.open("a");
  CHECK_FALSE(fresh->load());
  CHECK(b->load());
}

TEST_CASE_METHOD(fixture,
                 "FEED: a cancel reaching a search in flight stops it",
                 "[gtfs][feed][actor]") {
  self->send(feed, a_to_b("c1"));
  sched.run_once(); // FEED hands the query to its router
  self->send(feed, cancel_call{"c1"});
  // FEED reads the cancel before the router starts the search.
  REQUIRE(sched.prioritize(feed));
  sched.run_once();
  sched.run();
  auto out = answer();
  REQUIRE_FALSE(out);
  CHECK(to_failure(out.error()).code == ec::cancelled);
  CHECK(cancelled_plans() == 1);
}

TEST_CASE_METHOD(fixture, "FEED: a cancel after the answer changes nothing",
                 "[gtfs][feed][actor]") {
  self->send(feed, a_to_b("c2"));
  sched.run();
  auto out = answer();
  REQUIRE(out);
  REQUIRE(out->itineraries.size() == 1);
  CHECK(out->itineraries[0].legs.size() == 1);
  self->send(feed, cancel_call{"c2"});
  sched.run();
  CHECK(cancelled_plans() == 0);
  // The same id asked again is not stopped by the late cancel.
  self->send(feed, a_to_b("c2"));
  sched.run();
  auto again = answer();
  REQUIRE(again);
  CHECK(again->itineraries.size() == 1);
}

TEST_CASE("feed slot: while loading, calls are told to retry and when; a "
          "failed first load is not retryable",
          "[gtfs][feed]") {
  feed_slot slot{"t"};
  slot.start_loading();
  auto loading = slot.unavailable();
  REQUIRE(loading);
  CHECK(loading->code == ec::data_not_available);
  CHECK(is_retryable(*loading));
  CHECK(loading->retry_after >= 1);
  CHECK_THAT(loading->message,
             Catch::Contains("feed t is loading, retry in about "));
  CHECK_THAT(loading->hint, Catch::StartsWith("retry in about "));
  // A build from the sources takes a few seconds; a snapshot of the same
  // sources is read in one, and a call is told so.
  CHECK(loading->retry_after == build_estimate_s);
  slot.expect_load_in(snapshot_estimate_s);
  auto reading = slot.unavailable();
  REQUIRE(reading);
  CHECK(reading->retry_after == 1);
  CHECK_THAT(reading->message,
             Catch::Contains("feed t is loading, retry in about 1 s"));
  slot.expect_load_in(build_estimate_s);
  CHECK(slot.unavailable()->retry_after == 5);
  // A failure code alone would not say so: data-not-available is
  // retryable only with a time to retry at.
  CHECK_FALSE(is_retryable(ec::data_not_available));
  slot.fail("no stops.txt");
  auto failed = slot.unavailable();
  REQUIRE(failed);
  CHECK(failed->code == ec::data_not_available);
  CHECK_FALSE(is_retryable(*failed));
  CHECK_THAT(failed->message, Catch::Contains("no stops.txt"));
  slot.publish(one_line(), 12);
  CHECK_FALSE(slot.unavailable());
}

TEST_CASE_METHOD(fixture,
                 "FEED: a subscriber hears the state at once and every "
                 "change after",
                 "[gtfs][feed][actor]") {
  self->send(feed, feed_subscribe{});
  sched.run();
  std::vector<feed_event> events;
  auto take = [&] {
    self->receive([&](feed_event& e) { events.push_back(std::move(e)); });
  };
  take();
  REQUIRE(events.size() == 1);
  CHECK(events[0].feed == "t");
  CHECK(events[0].state == feed_state::loaded);
  CHECK(events[0].serving);
  CHECK(events[0].stops == 2);
  CHECK(events[0].trips == 1);
  slot->fail("the source vanished");
  sched.run();
  take();
  REQUIRE(events.size() == 2);
  CHECK(events[1].state == feed_state::failed);
  CHECK(events[1].serving); // the last good timetable stays
  CHECK(events[1].error == "the source vanished");
  slot->publish(one_line(), 7);
  sched.run();
  take();
  REQUIRE(events.size() == 3);
  CHECK(events[2].state == feed_state::loaded);
  CHECK(events[2].error.empty());
  CHECK(events[2].load_ms == 7);
}

TEST_CASE("feed loads with snapshots: written fresh, read while the sources "
          "are unchanged, rebuilt when they change or the snapshot is "
          "corrupt or of another version",
          "[gtfs][feed][snapshot]") {
  namespace fs = std::filesystem;
  auto dir = fs::temp_directory_path()
             / ("transitd-feed-snapshot-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "feed");
  for (const auto& entry : fs::directory_iterator{
         std::string{TRANSITD_FIXTURES_DIR} + "/../gtfs/bilingual"})
    fs::copy_file(entry.path(), dir / "feed" / entry.path().filename());
  gtfs_feed_options options;
  options.name = "bi";
  options.sources = {(dir / "feed").string()};
  options.snapshot_dir = (dir / "snapshots").string();
  auto file = gtfs::snapshot_path(options.snapshot_dir, "bi");
  auto start = [&options] {
    auto slot = std::make_shared<feed_slot>("bi");
    load_feed(options, *slot);
    REQUIRE(slot->status().loaded);
    return slot;
  };
  // Fresh: built from the sources, then written.
  auto first = start();
  CHECK(first->status().snapshot == "written");
  CHECK_FALSE(first->status().from_snapshot);
  REQUIRE(fs::exists(file));
  // Reused: a restart reads it, and it answers as the build did.
  auto second = start();
  CHECK(second->status().snapshot == "read");
  CHECK(second->status().from_snapshot);
  CHECK(second->current()->stops.size() == first->current()->stops.size());
  CHECK(second->current()->find_stop(first->current()->stops[0].id) == 0u);
  // Stale: a source changed, so the snapshot is of other sources.
  {
    std::ofstream touch{dir / "feed" / "feed_info.txt", std::ios::app};
    touch << "\n";
  }
  auto third = start();
  CHECK_THAT(third->status().snapshot, Catch::Contains("written"));
  CHECK_FALSE(third->status().from_snapshot);
  CHECK(start()->status().from_snapshot);
  // Corrupt: cut short, it is refused saying so and rebuilt.
  fs::resize_file(file, fs::file_size(file) / 2);
  feed_slot corrupt{"bi"};
  // (load_feed notes the refusal, then the new snapshot it writes.)
  load_feed(options, corrupt);
  CHECK(corrupt.status().loaded);
  CHECK_FALSE(corrupt.status().from_snapshot);
  CHECK(corrupt.status().snapshot == "written");
  CHECK(start()->status().from_snapshot);
  // Another version: refused, rebuilt.
  {
    std::fstream f{file, std::ios::in | std::ios::out | std::ios::binary};
    f.seekp(19);
    uint32_t version = gtfs::snapshot_version + 7;
    f.write(reinterpret_cast<const char*>(&version), sizeof(version));
  }
  CHECK_FALSE(gtfs::read_snapshot(file, gtfs::source_key{}, 0).timetable);
  auto fourth = start();
  CHECK_FALSE(fourth->status().from_snapshot);
  CHECK(start()->status().from_snapshot);
  // Without a snapshot directory: no snapshot, nothing said.
  options.snapshot_dir.clear();
  CHECK(start()->status().snapshot.empty());
  fs::remove_all(dir);
}

TEST_CASE_METHOD(fixture,
                 "FEED: a speculative search waits for an idle router; the "
                 "cancel its healthy primary brings ends it unstarted",
                 "[gtfs][feed][actor][speculative]") {
  // One router: the primary takes it, the relaxed query waits.
  send_with_relaxed(a_to_b("c"));
  auto primary = answer();
  REQUIRE(primary);
  CHECK(primary->itineraries.size() == 1);
  // The primary answered: the relaxed one waits for its grace, unstarted.
  CHECK(self->mailbox().empty());
  CHECK(plans() == 1);
  // The planner, content with the primary, cancels it: answered at once.
  check_cancelled("c:relaxed");
  // Its grace ends with nothing left to run.
  sched.trigger_timeouts();
  sched.run();
  CHECK(self->mailbox().empty());
  CHECK(plans() == 1);
}

TEST_CASE_METHOD(fixture,
                 "FEED: a speculative search its call needs after all runs "
                 "once its grace ends; on an idle router one runs at once",
                 "[gtfs][feed][actor][speculative]") {
  send_with_relaxed(a_to_b("d"));
  REQUIRE(answer());
  CHECK(self->mailbox().empty());
  // No cancel (a disrupted primary): after the grace it runs.
  REQUIRE(sched.trigger_timeouts() > 0);
  sched.run();
  auto relaxed = answer();
  REQUIRE(relaxed);
  CHECK(relaxed->itineraries.size() == 1);
  CHECK(plans() == 2);
  // Without realtime, one whose primary is not running waits its grace
  // too (the primary answered already, or never came).
  self->send(feed, a_to_b("e:relaxed"));
  sched.run();
  CHECK(self->mailbox().empty());
  CHECK(plans() == 2);
  REQUIRE(sched.trigger_timeouts() > 0);
  sched.run();
  REQUIRE(answer());
  CHECK(plans() == 3);
}

namespace {

/// Two routers, without realtime.
struct two_routers : fixture {
  two_routers() : fixture(2, false) {}
};

/// Two routers, with a realtime source.
struct two_routers_realtime : fixture {
  two_routers_realtime() : fixture(2, true) {}
};

} // namespace

TEST_CASE_METHOD(two_routers,
                 "FEED without realtime: a speculative search waits for its "
                 "primary's answer, not for an idle router; an empty answer "
                 "starts it at once",
                 "[gtfs][feed][actor][speculative]") {
  // No itinerary of this feed can be disrupted: beside a healthy primary
  // the relaxed search is not run, though a router is idle.
  send_with_relaxed(a_to_b("f"));
  auto primary = answer();
  REQUIRE(primary);
  CHECK(primary->itineraries.size() == 1);
  CHECK(self->mailbox().empty());
  CHECK(plans() == 1);
  check_cancelled("f:relaxed");
  // A primary that finds nothing: its call needs the relaxed search, which
  // runs at once, without waiting for a grace.
  auto nowhere = a_to_b("g");
  nowhere.to = {61.500, 24.900}; // no stop within walking distance
  send_with_relaxed(nowhere);
  auto empty = answer();
  REQUIRE(empty);
  CHECK(empty->itineraries.empty());
  REQUIRE_FALSE(self->mailbox().empty()); // the relaxed one's answer too
  auto second = answer();
  REQUIRE(second);
  CHECK(plans() == 3);
}

TEST_CASE_METHOD(two_routers_realtime,
                 "FEED with realtime: a speculative search starts beside its "
                 "primary on an idle router",
                 "[gtfs][feed][actor][speculative]") {
  send_with_relaxed(a_to_b("h"));
  REQUIRE(answer());
  REQUIRE_FALSE(self->mailbox().empty()); // both ran, without a grace
  REQUIRE(answer());
  CHECK(plans() == 2);
}
