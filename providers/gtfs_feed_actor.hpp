#pragma once
// FEED: a named timetable from GTFS sources, served as TIMETABLE,
// JOURNEY_PLANNER and GEOCODING. Loading runs on a thread of its own, never
// on the CAF scheduler; the result is published into a `feed_slot` as an
// immutable snapshot, so a reload builds beside the old one and swaps it
// whole while calls in flight finish on the snapshot they took.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "transitd/messages/interfaces.hpp"
#include "transitd/providers/gtfs_fetch.hpp"
#include "transitd/offline/gtfs_reader.hpp"
#include "transitd/offline/gtfs_realtime.hpp"
#include "transitd/providers/gtfs_rt_source.hpp"

namespace transitd {

struct gtfs_feed_options {
  /// Stop ids are "NAME:stop_id".
  std::string name;
  /// GTFS zip files or folders, or http(s) URLs of zips, merged into one
  /// timetable.
  std::vector<std::string> sources;
  gtfs::load_options load;
  /// Where downloaded copies of URL sources live (NAME-INDEX.zip).
  std::string download_dir;
  /// Where the built timetable is kept as a snapshot (NAME.timetable), read
  /// at the next start instead of the sources when they have not changed;
  /// empty: no snapshots.
  std::string snapshot_dir;
  gtfs::fetch_options fetch;
  /// Check the sources again this often (URLs with conditional requests,
  /// files by modification time) and reload what changed; 0: never.
  int32_t refresh_s = 0;
  /// Searches run on this many routers side by side (each holds a RAPTOR's
  /// scratch space: a few arrays per stop and round), each sent to the
  /// least busy; a speculative one (a plan_trip's relaxed query) only to an
  /// idle router. The daemon gives a router per scheduler thread.
  std::size_t routers = 2;
  /// A timetable built already (by a test, or an application that reads
  /// its own data): published at once, `sources` are not read.
  std::shared_ptr<const gtfs::timetable> preloaded;
  /// GTFS-realtime sources (http(s) URLs or files), applied to the
  /// timetable on a thread of the feed's own.
  std::vector<std::string> realtime;
  /// Beside `realtime` (missing or 0: the timetable's ids): the merged
  /// source, from 1, whose ids a realtime source names
  /// (`gtfs::name_as_merged`).
  std::vector<std::size_t> realtime_of;
  gtfs_rt::source_options realtime_options;
  /// A source whose last message is older than this (seconds) is not
  /// applied, and answers say so (warning realtime-stale).
  int32_t realtime_max_age_s = 300;
  /// The engine's clock runs this far from the system clock: realtime ages
  /// are measured on it. spawn_engine sets it from
  /// engine_config::clock_offset_ms (the one setting); only a feed spawned
  /// on its own (spawn_gtfs_feed) reads it from here.
  int64_t clock_offset_ms = 0;
};

/// What a feed's realtime did: its sources and the layer built last.
struct realtime_status {
  std::vector<gtfs_rt::source_status> sources;
  gtfs::realtime_counts counts;
  /// Builds of the layer, and the last one's time.
  int64_t builds = 0;
  int64_t build_ms = 0;
};

/// The realtime a query may use, and what its answer must say.
struct realtime_view {
  /// Null: the timetable alone.
  std::shared_ptr<const gtfs::realtime_layer> layer;
  std::vector<warning> warnings;
};

/// What a first load is expected to take, told to the calls waiting for
/// it: a build from the sources, and a read of a snapshot of the same
/// sources (well under a second for every MTA feed merged).
inline constexpr int32_t build_estimate_s = 5;
inline constexpr int32_t snapshot_estimate_s = 1;

/// What a feed's load did, for logs, /readyz and /metrics.
struct feed_status {
  bool loaded = false;
  /// The last load's failure; empty after a success.
  std::string error;
  gtfs::load_report report;
  int64_t load_ms = 0;
  int64_t loaded_at_ms = 0;
  int64_t failed_loads = 0;
  /// Refreshes that found nothing changed.
  int64_t unchanged_checks = 0;
  /// The local sources' modification times at the last load.
  int64_t signature = 0;
  /// When the first load began (ms since the epoch); 0 once loaded.
  int64_t loading_since_ms = 0;
  /// The seconds the first load is expected to take, told to calls while
  /// it runs.
  int32_t expected_load_s = build_estimate_s;
  /// Plan queries the routers answered, and the engine time they took
  /// (RAPTOR and the answer's legs, without the actor hops around them).
  int64_t plans = 0;
  int64_t plan_us = 0;
  /// Searches stopped early (cancelled), counted in neither of those.
  int64_t stopped_plans = 0;
  /// The timetable snapshot at the last load: "read" (the timetable came
  /// from it), "written", or why it was not used or written; empty
  /// without snapshots.
  std::string snapshot;
  /// Whether the timetable served came from a snapshot.
  bool from_snapshot = false;
};

/// The current snapshot of one feed, shared by the FEED actor, the
/// provider switch (for the service area) and the loader.
class feed_slot {
public:
  explicit feed_slot(std::string name) : name_(std::move(name)) {
  }
  const std::string& name() const {
    return name_;
  }
  /// The snapshot calls should use; null until the first load.
  std::shared_ptr<const gtfs::timetable> current() const {
    return std::atomic_load(&timetable_);
  }
  void publish(std::shared_ptr<const gtfs::timetable> timetable,
               int64_t load_ms, int64_t signature = 0);
  /// The realtime layer built last (null: none), and its swap.
  std::shared_ptr<const gtfs::realtime_layer> realtime() const {
    return std::atomic_load(&realtime_);
  }
  void publish_realtime(std::shared_ptr<const gtfs::realtime_layer> layer,
                        realtime_status status);
  void set_realtime_status(std::vector<gtfs_rt::source_status> sources);
  realtime_status realtime_state() const;
  /// A source dated more than this ahead of the clock is flagged
  /// (realtime-future-dated).
  static constexpr int64_t future_tolerance_s = 120;
  /// What a query on `tt` at `now_s` (the engine's clock) may use: the
  /// layer if it belongs to `tt` and no source in it is older than
  /// `max_age_s`; a realtime-stale warning for each source that is.
  realtime_view realtime_for(const gtfs::timetable& tt, int64_t now_s,
                             int32_t max_age_s) const;
  void fail(std::string error);
  void unchanged();
  /// What the last load did with the timetable snapshot (see
  /// feed_status::snapshot).
  void note_snapshot(std::string what, bool from_snapshot);
  feed_status status() const;
  /// A load begins: until the first succeeds, calls are told how long to
  /// wait.
  void start_loading();
  /// The load under way is expected to take about `seconds` in all
  /// (feed_status::expected_load_s).
  void expect_load_in(int32_t seconds);
  /// Why calls cannot be answered yet (nullopt: a timetable is served):
  /// still loading (data-not-available, retryable, with the time to wait
  /// in `retry_after`), or the first load failed.
  std::optional<failure> unavailable() const;
  /// Sends `listener` a feed_event now and at every change (loaded,
  /// reloaded, failed).
  void subscribe(caf::actor listener);
  /// The state as a feed_event.
  feed_event event() const;
  /// Counts one plan query's engine time (any thread).
  void count_plan(int64_t microseconds) {
    plans_.fetch_add(1, std::memory_order_relaxed);
    plan_us_.fetch_add(microseconds, std::memory_order_relaxed);
  }
  /// Counts a search its stop flag ended early.
  void count_stopped_plan() {
    stopped_plans_.fetch_add(1, std::memory_order_relaxed);
  }

private:
  std::atomic<int64_t> plans_{0};
  std::atomic<int64_t> plan_us_{0};
  std::atomic<int64_t> stopped_plans_{0};
  std::string name_;
  std::shared_ptr<const gtfs::timetable> timetable_;
  std::shared_ptr<const gtfs::realtime_layer> realtime_;
  mutable std::mutex mutex_;
  feed_status status_;
  realtime_status realtime_status_;
  std::vector<caf::actor> listeners_;

  feed_event event_locked() const;
  /// Tells every listener (under the lock: events go out in order).
  void notify_locked() const;
};

/// The stop flags of the searches a feed has in flight, by correlation
/// id, so that a cancel_call reaching FEED stops a search running in one
/// of its routers (a plan_trip's relaxed search once the primary answer
/// made it moot). FEED opens an id before it hands the query on, the
/// router closes it when done: only ids in flight are held, and a cancel
/// for one that finished (or never came) does nothing. Thread-safe.
class search_flags {
public:
  using flag = std::shared_ptr<std::atomic<bool>>;
  /// Registers a search of `id` (empty ids cannot be cancelled: null).
  flag open(const std::string& id);
  /// The flag of `id`'s searches; null when none is open.
  flag find(const std::string& id) const;
  /// Ends a search opened with `id`.
  void close(const std::string& id);
  /// Sets the flag of every search in flight that cancelling the call `id`
  /// covers (its own and its sub-queries', see cancel_covers); false if
  /// none.
  bool cancel(const std::string& id);
  std::size_t in_flight() const;

private:
  struct entry {
    flag stop;
    int searches = 0;
  };
  mutable std::mutex mutex_;
  std::unordered_map<std::string, entry> flags_;
};

/// Loads `options.sources` into `slot` now, on the calling thread: URLs
/// are downloaded first (an unchanged one costs a 304), and when nothing
/// changed since the slot's snapshot nothing is rebuilt. A failure keeps
/// the snapshot (and the last good download) and is reported in the
/// slot. Logs the outcome and the skipped rows' sample.
void load_feed(const gtfs_feed_options& options, feed_slot& slot);

/// Spawns the FEED actor and starts its first load on a thread of its own.
feed_actor spawn_gtfs_feed(caf::actor_system& system,
                           gtfs_feed_options options,
                           std::shared_ptr<feed_slot> slot);

} // namespace transitd
