#include "transitd/providers/gtfs_feed_actor.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <optional>
#include <thread>
#include <unordered_map>

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "transitd/messages/time.hpp"
#include "transitd/net/url.hpp"
#include "transitd/offline/gtfs_answers.hpp"
#include "transitd/offline/gtfs_language.hpp"
#include "transitd/offline/gtfs_network.hpp"
#include "transitd/offline/gtfs_snapshot.hpp"
#include "transitd/util/content_hash.hpp"

namespace transitd {

void feed_slot::publish(std::shared_ptr<const gtfs::timetable> timetable,
                        int64_t load_ms, int64_t signature) {
  std::lock_guard<std::mutex> guard{mutex_};
  status_.signature = signature;
  status_.loaded = true;
  status_.error.clear();
  status_.report = timetable->report;
  status_.load_ms = load_ms;
  status_.loaded_at_ms = now_ms();
  status_.loading_since_ms = 0;
  std::atomic_store(&timetable_, std::move(timetable));
  notify_locked();
}

void feed_slot::note_snapshot(std::string what, bool from_snapshot) {
  std::lock_guard<std::mutex> guard{mutex_};
  status_.snapshot = std::move(what);
  status_.from_snapshot = from_snapshot;
}

void feed_slot::fail(std::string error) {
  std::lock_guard<std::mutex> guard{mutex_};
  status_.error = std::move(error);
  ++status_.failed_loads;
  notify_locked();
}

void feed_slot::start_loading() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (!status_.loaded && status_.loading_since_ms == 0)
    status_.loading_since_ms = now_ms();
}

void feed_slot::expect_load_in(int32_t seconds) {
  std::lock_guard<std::mutex> guard{mutex_};
  status_.expected_load_s = std::max<int32_t>(1, seconds);
}

std::optional<failure> feed_slot::unavailable() const {
  if (current())
    return std::nullopt;
  std::lock_guard<std::mutex> guard{mutex_};
  if (!status_.error.empty())
    return make_failure(ec::data_not_available,
                        "feed " + name_ + " could not be loaded: "
                          + status_.error,
                        "check the sources of feed " + name_);
  // The first load's length is not known before it ends: what is
  // expected (a few seconds to build, one to read a snapshot), then as
  // long again as it has run so far (a large feed takes longer).
  auto elapsed_s = status_.loading_since_ms == 0
                     ? 0
                     : (now_ms() - status_.loading_since_ms) / 1000;
  auto wait_s = static_cast<int32_t>(std::clamp<int64_t>(
    std::max<int64_t>(status_.expected_load_s, elapsed_s), 1, 300));
  auto about = std::to_string(wait_s) + " s";
  return make_failure(ec::data_not_available,
                      "feed " + name_ + " is loading, retry in about "
                        + about,
                      "retry in about " + about, wait_s);
}

void feed_slot::subscribe(caf::actor listener) {
  std::lock_guard<std::mutex> guard{mutex_};
  caf::anon_send(listener, event_locked());
  listeners_.push_back(std::move(listener));
}

feed_event feed_slot::event() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return event_locked();
}

feed_event feed_slot::event_locked() const {
  feed_event e;
  e.feed = name_;
  e.serving = status_.loaded;
  e.state = !status_.error.empty() ? feed_state::failed
            : status_.loaded       ? feed_state::loaded
                                   : feed_state::loading;
  e.error = status_.error;
  if (status_.loaded) {
    const auto& r = status_.report;
    e.stops = static_cast<int64_t>(r.stops);
    e.trips = static_cast<int64_t>(r.trips);
    e.first_day = r.first_day;
    e.last_day = r.last_day;
    e.load_ms = status_.load_ms;
  }
  return e;
}

void feed_slot::notify_locked() const {
  if (listeners_.empty())
    return;
  auto e = event_locked();
  for (const auto& listener : listeners_)
    caf::anon_send(listener, e);
}

void feed_slot::unchanged() {
  std::lock_guard<std::mutex> guard{mutex_};
  ++status_.unchanged_checks;
}

feed_status feed_slot::status() const {
  std::lock_guard<std::mutex> guard{mutex_};
  auto status = status_;
  status.plans = plans_.load(std::memory_order_relaxed);
  status.plan_us = plan_us_.load(std::memory_order_relaxed);
  status.stopped_plans = stopped_plans_.load(std::memory_order_relaxed);
  return status;
}

void feed_slot::publish_realtime(
  std::shared_ptr<const gtfs::realtime_layer> layer, realtime_status status) {
  std::lock_guard<std::mutex> guard{mutex_};
  realtime_status_ = std::move(status);
  std::atomic_store(&realtime_, std::move(layer));
}

void feed_slot::set_realtime_status(
  std::vector<gtfs_rt::source_status> sources) {
  std::lock_guard<std::mutex> guard{mutex_};
  realtime_status_.sources = std::move(sources);
}

realtime_status feed_slot::realtime_state() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return realtime_status_;
}

realtime_view feed_slot::realtime_for(const gtfs::timetable& tt,
                                      int64_t now_s, int32_t max_age_s) const {
  realtime_view view;
  auto layer = realtime();
  std::lock_guard<std::mutex> guard{mutex_};
  for (const auto& source : realtime_status_.sources) {
    auto age = now_s - source.timestamp;
    if (source.timestamp > 0 && -age > future_tolerance_s)
      view.warnings.push_back(
        {"realtime-future-dated",
         "realtime source " + source.name + " of feed " + name_
           + " is dated " + std::to_string(-age)
           + " s ahead of the clock; its producer's clock or timestamps "
             "are wrong, treat its times with care"});
    if (source.timestamp > 0 && age <= max_age_s)
      continue;
    std::string why
      = source.timestamp == 0
          ? "has sent nothing usable yet"
              + (source.last_error.empty() ? std::string{}
                                           : " (" + source.last_error + ")")
          : "last sent a message " + std::to_string(age)
              + " s ago, more than the " + std::to_string(max_age_s)
              + " s allowed";
    view.warnings.push_back(
      {"realtime-stale", "realtime source " + source.name + " of feed "
                           + name_ + " " + why
                           + "; its delays and cancellations are not "
                             "applied, times are the timetable's"});
  }
  if (layer && layer->base.get() == &tt && now_s - layer->oldest <= max_age_s)
    view.layer = std::move(layer);
  return view;
}

search_flags::flag search_flags::open(const std::string& id) {
  if (id.empty())
    return nullptr;
  std::lock_guard<std::mutex> guard{mutex_};
  auto& e = flags_[id];
  // A search of a cancelled id still running keeps its own (set) flag; a
  // new search under the same id starts with a fresh one.
  if (!e.stop || e.stop->load(std::memory_order_relaxed))
    e.stop = std::make_shared<std::atomic<bool>>(false);
  ++e.searches;
  return e.stop;
}

search_flags::flag search_flags::find(const std::string& id) const {
  std::lock_guard<std::mutex> guard{mutex_};
  auto i = flags_.find(id);
  return i == flags_.end() ? nullptr : i->second.stop;
}

void search_flags::close(const std::string& id) {
  std::lock_guard<std::mutex> guard{mutex_};
  auto i = flags_.find(id);
  if (i != flags_.end() && --i->second.searches <= 0)
    flags_.erase(i);
}

bool search_flags::cancel(const std::string& id) {
  std::lock_guard<std::mutex> guard{mutex_};
  bool any = false;
  // The call's own searches and its sub-queries ("<id>:relaxed").
  for (auto& [key, e] : flags_)
    if (cancel_covers(id, key)) {
      e.stop->store(true, std::memory_order_relaxed);
      any = true;
    }
  return any;
}

std::size_t search_flags::in_flight() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return flags_.size();
}

void load_feed(const gtfs_feed_options& options, feed_slot& slot) {
  auto started = std::chrono::steady_clock::now();
  bool first = slot.current() == nullptr;
  bool changed = first;
  // Calls waiting for the first load: a snapshot (the sources hashed and
  // checked) is read in well under a second.
  std::string snapshot_file;
  if (!options.snapshot_dir.empty()) {
    snapshot_file = gtfs::snapshot_path(options.snapshot_dir, options.name);
    std::error_code exists_error;
    if (first && std::filesystem::exists(snapshot_file, exists_error))
      slot.expect_load_in(snapshot_estimate_s);
  }
  // The local sources' contents, to see whether they changed (a
  // replacement with the same size and modification time included); kept
  // for the snapshot's key, so each source is read once.
  int64_t signature = 0;
  std::vector<std::string> paths;
  std::vector<std::optional<uint64_t>> local_hashes;
  for (std::size_t i = 0; i < options.sources.size(); ++i) {
    const auto& source = options.sources[i];
    if (!gtfs::is_url(source)) {
      // A file or folder: changed when its content did.
      auto hash = content_hash(source);
      if (hash) // unsigned: wraps, never overflows
        signature = static_cast<int64_t>(
          static_cast<uint64_t>(signature) * 31u + *hash);
      paths.push_back(source);
      local_hashes.push_back(hash);
      continue;
    }
    auto path = gtfs::feed_copy_path(options.download_dir, options.name, i);
    std::error_code ec;
    std::filesystem::create_directories(options.download_dir, ec);
    auto fetched = gtfs::fetch_feed(source, path, options.fetch);
    if (!fetched) {
      std::error_code missing;
      bool have_copy = std::filesystem::exists(path, missing);
      spdlog::warn("feed {}: {}{}", options.name, fetched.error().message,
                   have_copy ? "; using the copy downloaded before" : "");
      if (!have_copy || !first) {
        // Nothing to load, or the snapshot served is that copy already.
        slot.fail(fetched.error().message);
        return;
      }
    } else if (*fetched == gtfs::fetch_outcome::downloaded) {
      spdlog::info("feed {}: downloaded {}", options.name, redact_url(source));
      changed = true;
    }
    paths.push_back(path);
    local_hashes.push_back(std::nullopt); // a download: hashed below
  }
  changed = changed || signature != slot.status().signature;
  if (!changed) {
    spdlog::info("feed {}: unchanged, keeping the timetable loaded", options.name);
    slot.unchanged();
    return;
  }
  auto elapsed_ms = [started] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now() - started)
      .count();
  };
  // A snapshot of the same sources and options stands for them.
  std::optional<gtfs::source_key> key;
  if (!options.snapshot_dir.empty()) {
    std::vector<uint64_t> hashes;
    for (std::size_t i = 0; i < paths.size(); ++i) {
      const auto& path = paths[i];
      std::string why;
      auto hash = local_hashes[i] ? local_hashes[i] : content_hash(path, &why);
      if (!hash) {
        spdlog::warn("feed {}: no timetable snapshot: {}", options.name, why);
        break;
      }
      hashes.push_back(*hash);
    }
    auto hashed_ms = elapsed_ms();
    if (hashes.size() == paths.size()) {
      key = gtfs::key_of_sources(hashes, options.load);
      auto snapshot = gtfs::read_snapshot(snapshot_file, *key,
                                          options.load.anchor_day);
      if (snapshot.verdict == gtfs::snapshot_verdict::read
          && snapshot.timetable->name != options.name) {
        snapshot.verdict = gtfs::snapshot_verdict::other_sources;
        snapshot.why = "written for feed " + snapshot.timetable->name;
      }
      if (snapshot.verdict == gtfs::snapshot_verdict::read) {
        auto ms = elapsed_ms();
        const auto& r = snapshot.timetable->report;
        spdlog::info("feed {}: read its timetable snapshot {} in {} ms "
                     "(sources unchanged, hashed in {} ms): {} stops, {} "
                     "trips, {} stop times; service {}..{}",
                     options.name, snapshot_file, ms, hashed_ms, r.stops,
                     r.trips,
                     r.stop_times, r.first_day, r.last_day);
        slot.note_snapshot("read", true);
        slot.publish(std::move(snapshot.timetable), ms, signature);
        return;
      }
      slot.note_snapshot(snapshot.why, false);
      if (snapshot.verdict != gtfs::snapshot_verdict::missing)
        spdlog::warn("feed {}: timetable snapshot {} not used: {}; building "
                     "from the sources",
                     options.name, snapshot_file, snapshot.why);
    }
  }
  slot.expect_load_in(build_estimate_s); // built from the sources
  auto loaded = gtfs::load_timetable(options.name, paths, options.load);
  auto ms = elapsed_ms();
  if (!loaded) {
    spdlog::error("feed {}: load failed after {} ms: {}", options.name, ms,
                  loaded.error().message);
    slot.fail(loaded.error().message);
    return;
  }
  const auto& r = (*loaded)->report;
  spdlog::info("feed {}: loaded in {} ms: {} stops, {} routes, {} trips ({} "
               "from frequencies), {} stop times, {} patterns, {} footpaths; "
               "service {}..{}",
               options.name, ms, r.stops, r.routes, r.trips,
               r.frequency_trips, r.stop_times, r.patterns, r.footpaths,
               r.first_day, r.last_day);
  if (r.skipped_rows > 0) {
    spdlog::warn("feed {}: skipped {} bad rows; for example:", options.name,
                 r.skipped_rows);
    for (const auto& sample : r.samples)
      spdlog::warn("feed {}:   {}", options.name, sample);
  }
  auto built = *loaded;
  slot.publish(std::move(*loaded), ms, signature);
  if (key) {
    // After publishing: answers do not wait for the write.
    auto write_started = std::chrono::steady_clock::now();
    auto written = gtfs::write_snapshot(snapshot_file, *built, *key);
    slot.note_snapshot(written ? std::string{"written"}
                               : written.error().message,
                       false);
    if (written)
      spdlog::info("feed {}: wrote its timetable snapshot {} ({} MB) in {} ms",
                   options.name, snapshot_file, *written / (1024 * 1024),
                   std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::steady_clock::now() - write_started)
                     .count());
    else
      spdlog::warn("feed {}: {}", options.name, written.error().message);
  }
}

namespace {

int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::steady_clock::now().time_since_epoch())
    .count();
}

/// The feed's realtime thread and how to stop it.
struct realtime_runner {
  std::mutex mutex;
  std::condition_variable wake;
  bool stop = false;
  std::thread thread;
  ~realtime_runner() {
    {
      std::lock_guard<std::mutex> guard{mutex};
      stop = true;
    }
    wake.notify_all();
    if (thread.joinable())
      thread.join();
  }
};

/// Polls the realtime sources and rebuilds the layer whenever what they
/// say, the timetable, or which of them are fresh changed; until stopped.
void run_realtime(const gtfs_feed_options& options, feed_slot& slot,
                  realtime_runner& runner) {
  std::vector<gtfs_rt::source> sources;
  for (const auto& location : options.realtime)
    sources.emplace_back(location, options.realtime_options);
  std::shared_ptr<const gtfs::timetable> built_for;
  std::vector<bool> used;
  realtime_status status;
  for (;;) {
    bool changed = false;
    for (auto& source : sources)
      changed = source.poll(steady_ms()) || changed;
    auto tt = slot.current();
    auto now_s = (now_ms() + options.clock_offset_ms) / 1000;
    std::vector<bool> fresh;
    status.sources.clear();
    for (const auto& source : sources) {
      auto ts = source.status().timestamp;
      fresh.push_back(ts > 0 && now_s - ts <= options.realtime_max_age_s);
      status.sources.push_back(source.status());
    }
    if (tt && (changed || tt != built_for || fresh != used)) {
      auto started = std::chrono::steady_clock::now();
      std::vector<gtfs_rt::trip_update> updates;
      std::vector<gtfs_rt::vehicle_position> vehicles;
      std::vector<gtfs_rt::alert> alerts;
      int64_t oldest = 0;
      int64_t newest = 0;
      for (std::size_t i = 0; i < sources.size(); ++i) {
        if (!fresh[i])
          continue;
        auto more = sources[i].trip_updates();
        auto seen = sources[i].vehicles();
        auto said = sources[i].alerts();
        if (i < options.realtime_of.size())
          gtfs::name_as_merged(*tt, options.realtime_of[i], more, seen, said);
        updates.insert(updates.end(), std::make_move_iterator(more.begin()),
                       std::make_move_iterator(more.end()));
        vehicles.insert(vehicles.end(), std::make_move_iterator(seen.begin()),
                        std::make_move_iterator(seen.end()));
        alerts.insert(alerts.end(), std::make_move_iterator(said.begin()),
                      std::make_move_iterator(said.end()));
        auto ts = sources[i].status().timestamp;
        oldest = oldest == 0 ? ts : std::min(oldest, ts);
        newest = std::max(newest, ts);
      }
      std::shared_ptr<gtfs::realtime_layer> layer;
      if (oldest > 0) {
        layer = gtfs::build_realtime(tt, updates, now_s);
        layer->oldest = oldest;
        layer->newest = newest;
        layer->vehicles = std::move(vehicles);
        layer->alerts = std::move(alerts);
      }
      status.build_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - started)
                          .count();
      ++status.builds;
      status.counts = layer ? layer->counts : gtfs::realtime_counts{};
      if (layer) {
        const auto& c = layer->counts;
        spdlog::info("feed {}: realtime applied in {} ms: {} trip updates "
                     "({} matched, {} cancelled, {} added, {} trips and {} "
                     "stop updates unmatched, {} not applied), {} vehicles, "
                     "{} alerts",
                     options.name, status.build_ms, c.trip_updates, c.matched,
                     c.cancelled, c.added, c.unmatched_trips,
                     c.unmatched_stops, c.not_applied, layer->vehicles.size(),
                     layer->alerts.size());
      } else {
        spdlog::warn("feed {}: no fresh realtime; answering from the "
                     "timetable", options.name);
      }
      slot.publish_realtime(std::move(layer), status);
      built_for = std::move(tt);
      used = std::move(fresh);
    } else {
      slot.set_realtime_status(status.sources);
    }
    // Wake for the next poll due, and at least every second: a new
    // timetable, or a source going stale, rebuilds the layer.
    auto now = steady_ms();
    auto due = now + 1000;
    for (const auto& source : sources)
      due = std::min(due, source.next_due_ms());
    std::unique_lock<std::mutex> lock{runner.mutex};
    if (runner.wake.wait_for(lock,
                             std::chrono::milliseconds{std::max<int64_t>(
                               due - now, 10)},
                             [&] { return runner.stop; }))
      return;
  }
}

/// A router of its own (RAPTOR and its scratch space) on the feed's
/// current snapshot; FEED spreads plan queries over a few of them.
using feed_router_actor = caf::typed_actor<
  caf::replies_to<trip_plan_query>::with<trip_plans>,
  caf::replies_to<reach_query>::with<reach_result>>;

caf::error not_loaded(const feed_slot& slot);

struct feed_router_state {
  static inline const char* name = "feed_router";
  std::shared_ptr<feed_slot> slot;
  int32_t max_age_s = 300;
  int64_t clock_offset_ms = 0;
  std::shared_ptr<search_flags> flags;
  /// The router of the snapshot it was made for.
  std::shared_ptr<const gtfs::timetable> routed;
  std::unique_ptr<gtfs::raptor> router;
};

feed_router_actor::behavior_type feed_router(
  feed_router_actor::stateful_pointer<feed_router_state> self,
  std::shared_ptr<feed_slot> slot, std::shared_ptr<search_flags> flags,
  int32_t max_age_s, int64_t clock_offset_ms) {
  self->state.slot = std::move(slot);
  self->state.flags = std::move(flags);
  self->state.max_age_s = max_age_s;
  self->state.clock_offset_ms = clock_offset_ms;
  return {
    [self](trip_plan_query& q) -> caf::result<trip_plans> {
      auto& st = self->state;
      // FEED opened the id; closed here whatever happens.
      auto id = q.context.correlation_id;
      auto stop = st.flags->find(id);
      struct closer {
        search_flags& flags;
        const std::string id;
        ~closer() {
          flags.close(id);
        }
      } close_at_end{*st.flags, id};
      auto tt = st.slot->current();
      if (!tt)
        return not_loaded(*st.slot);
      if (q.local_time) { // D22: read at the origin
        q.time = gtfs::local_instant(*tt, q.from, q.time);
        q.local_time = false;
      }
      if (auto outside = gtfs::outside_service(*tt, q.time))
        return to_error(*outside);
      auto rt = st.slot->realtime_for(
        *tt, (now_ms() + st.clock_offset_ms) / 1000, st.max_age_s);
      auto language = gtfs::answer_language(*tt, rt.layer.get(), q.language);
      if (!language)
        return to_error(language.error());
      auto started = std::chrono::steady_clock::now();
      if (st.routed != tt) {
        st.router = std::make_unique<gtfs::raptor>(*tt);
        st.routed = tt;
      }
      auto answer = gtfs::plan_trips(*st.router, *tt, q, stop.get(),
                                     rt.layer.get());
      gtfs::translate(*tt, *language, answer);
      answer.time = q.time;
      answer.fetched_ms += st.clock_offset_ms; // the engine's clock
      answer.warnings = std::move(rt.warnings);
      if (stop && stop->load()) {
        st.slot->count_stopped_plan();
        return to_error(make_failure(ec::cancelled,
                                     "the search was cancelled",
                                     "ask again if the answer is still "
                                     "needed"));
      }
      st.slot->count_plan(
        std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::steady_clock::now() - started)
          .count());
      return answer;
    },
    [self](reach_query& q) -> caf::result<reach_result> {
      auto& st = self->state;
      auto tt = st.slot->current();
      if (!tt)
        return not_loaded(*st.slot);
      if (st.routed != tt) {
        st.router = std::make_unique<gtfs::raptor>(*tt);
        st.routed = tt;
      }
      auto now_s = (now_ms() + st.clock_offset_ms) / 1000;
      auto rt = st.slot->realtime_for(*tt, now_s, st.max_age_s);
      auto language = gtfs::answer_language(*tt, rt.layer.get(), q.language);
      if (!language)
        return to_error(language.error());
      auto answer = gtfs::reach_from(*st.router, *tt, q, rt.layer.get());
      if (!answer)
        return to_error(answer.error());
      gtfs::translate(*tt, *language, *answer);
      answer->fetched_ms = now_s * 1000;
      answer->warnings = std::move(rt.warnings);
      return std::move(*answer);
    },
  };
}

struct feed_state {
  static inline const char* name = "feed";
  std::shared_ptr<feed_slot> slot;
  /// The loader and how to stop it early.
  std::thread loader;
  std::shared_ptr<std::atomic<bool>> stop_loading
    = std::make_shared<std::atomic<bool>>(false);
  /// Set by the loader when it is done.
  std::shared_ptr<std::atomic<bool>> loading
    = std::make_shared<std::atomic<bool>>(false);
  gtfs_feed_options options;
  /// The realtime thread, when the feed has realtime sources (stopped
  /// first when the actor goes).
  std::unique_ptr<realtime_runner> realtime;

  ~feed_state() {
    realtime.reset();
    stop_loading->store(true);
    if (loader.joinable())
      loader.join();
  }
  /// The routers searches go to, the searches each is running or has
  /// queued, and the stop flags of the searches.
  std::vector<feed_router_actor> routers;
  std::vector<int32_t> busy;
  std::shared_ptr<search_flags> flags = std::make_shared<search_flags>();
  /// Speculative searches (a plan_trip's relaxed query, sent before the
  /// primary answer says whether it is needed) waiting for an idle router:
  /// they never delay another call's search.
  struct waiting_search {
    trip_plan_query query;
    caf::typed_response_promise<trip_plans> promise;
    /// Its primary has answered: it runs after `search_grace` unless
    /// cancelled (the call needs it: a disrupted or empty primary).
    bool due = false;
  };
  std::deque<waiting_search> speculative;
  /// The primary plan searches running or queued on a router, by id.
  std::unordered_map<std::string, int32_t> primaries;
  /// Whether an itinerary of this feed can be disrupted at all: only with
  /// realtime sources (delays, cancellations). Without, a speculative
  /// search is needed only when its primary finds nothing.
  bool can_disrupt() const { return !options.realtime.empty(); }
};

using feed_pointer = feed_actor::stateful_pointer<feed_state>;

/// A plan query sent before anyone knows it is needed: its call's relaxed
/// query.
bool speculative(const trip_plan_query& q) {
  return is_relaxed_id(q.context.correlation_id);
}

/// The id of a speculative query's primary.
std::string primary_of(const trip_plan_query& q) {
  return std::string{call_id_of(q.context.correlation_id)};
}

/// How long a speculative search whose primary has answered waits for the
/// cancel that a healthy primary brings before it runs anyway.
constexpr auto search_grace = std::chrono::milliseconds{20};

/// The router with the fewest searches (the first of them when equal).
std::size_t least_busy(const std::vector<int32_t>& busy) {
  return static_cast<std::size_t>(
    std::min_element(busy.begin(), busy.end()) - busy.begin());
}

caf::error not_loaded(const feed_slot& slot) {
  if (auto why = slot.unavailable())
    return to_error(std::move(*why));
  // Loaded meanwhile: the caller's next try finds it.
  return to_error(make_failure(ec::data_not_available,
                               "feed " + slot.name() + " has just loaded",
                               "retry now", 1));
}

feed_actor::behavior_type feed_behavior(feed_pointer self);

/// A feed without --gtfs-rt sources has no vehicles nor alerts to give.
std::optional<failure> no_realtime(feed_pointer self) {
  if (!self->state.options.realtime.empty())
    return std::nullopt;
  const auto& name = self->state.slot->name();
  return make_failure(ec::data_not_available,
                      "feed " + name + " has no realtime sources",
                      "give feed " + name
                        + " realtime sources (gtfs_feed_options::realtime: "
                          "vehicle positions, alerts)");
}

/// Answers from the current timetable and its realtime layer on the
/// engine's clock: `answer(timetable, layer)` gives the outcome, and the
/// layer's warnings (a stale source) go into it. With `needs_realtime`, a
/// feed without --gtfs-rt sources says so first.
template <class Result, class Answer>
caf::result<Result> with_realtime(feed_pointer self, bool needs_realtime,
                                  Answer answer) {
  auto tt = self->state.slot->current();
  if (!tt)
    return not_loaded(*self->state.slot);
  if (needs_realtime)
    if (auto missing = no_realtime(self))
      return to_error(*missing);
  const auto& o = self->state.options;
  auto rt = self->state.slot->realtime_for(
    *tt, (now_ms() + o.clock_offset_ms) / 1000, o.realtime_max_age_s);
  outcome<Result> result = answer(*tt, rt.layer.get());
  if (!result)
    return to_error(result.error());
  result->warnings = std::move(rt.warnings);
  return std::move(*result);
}

/// Runs load_feed on a thread of its own (off the scheduler: the loader
/// touches only the slot), unless one is still running.
void start_loader(feed_pointer self) {
  auto& st = self->state;
  if (st.loading->load())
    return; // the last check is still at work
  if (st.loader.joinable())
    st.loader.join(); // finished: its flag is down
  st.loading->store(true);
  st.slot->start_loading();
  st.loader = std::thread{
    [options = st.options, slot = st.slot, loading = st.loading] {
      try {
        load_feed(options, *slot);
      } catch (const std::exception& ex) {
        spdlog::error("feed {}: load failed: {}", options.name, ex.what());
        slot->fail(ex.what());
      }
      loading->store(false);
    }};
}

/// Sends a search to router `i`, counting it until it answers; then gives
/// an idle router to the speculative search waiting longest.
template <class Query, class Result>
void run_on(feed_pointer self, std::size_t i, Query q,
            caf::typed_response_promise<Result> rp);

/// Gives idle routers to the speculative searches still running beside
/// their primaries, oldest first. One whose primary has answered waits for
/// its grace instead (its cancel is most likely on its way: on one core a
/// search once started could not see it before it ends).
void start_speculative(feed_pointer self) {
  auto& st = self->state;
  // Without realtime, one waits for its primary's answer (an empty one
  // starts it), not for an idle router: beside its primary it would only
  // slow it down (the two share the caches and the memory).
  if (!st.can_disrupt())
    return;
  for (auto it = st.speculative.begin(); it != st.speculative.end();) {
    auto i = least_busy(st.busy);
    if (st.busy[i] > 0)
      return;
    if (it->due) {
      ++it;
      continue;
    }
    auto next = std::move(*it);
    it = st.speculative.erase(it);
    run_on(self, i, std::move(next.query), std::move(next.promise));
  }
}

/// The primary of `id` answered (`empty`: without an itinerary): its
/// speculative search, still waiting, runs at once when the answer is
/// empty (its call needs it for certain), else becomes due (after the
/// grace, unless cancelled).
void primary_answered(feed_pointer self, const std::string& id, bool empty) {
  if (id.empty())
    return;
  auto& st = self->state;
  if (auto p = st.primaries.find(id);
      p != st.primaries.end() && --p->second <= 0)
    st.primaries.erase(p);
  for (auto it = st.speculative.begin(); it != st.speculative.end(); ++it) {
    if (it->due || primary_of(it->query) != id)
      continue;
    if (empty) {
      auto next = std::move(*it);
      st.speculative.erase(it);
      run_on(self, least_busy(st.busy), std::move(next.query),
             std::move(next.promise));
      return;
    }
    it->due = true;
    self->delayed_send(self, search_grace,
                       feed_search_due{it->query.context.correlation_id});
  }
}

template <class Query, class Result>
void run_on(feed_pointer self, std::size_t i, Query q,
            caf::typed_response_promise<Result> rp) {
  auto& st = self->state;
  // A plan query's speculative sibling, if waiting, learns when this one
  // answers (a reach query has none).
  std::string id;
  if constexpr (std::is_same_v<Query, trip_plan_query>)
    if (!speculative(q)) {
      id = q.context.correlation_id;
      ++st.primaries[id];
    }
  ++st.busy[i];
  // No timeout of its own: the call's deadline is kept above (a router
  // always answers; a cancelled search stops at its next round).
  self->request(st.routers[i], caf::infinite, std::move(q))
    .then(
      [self, i, rp, id](Result& answer) mutable {
        --self->state.busy[i];
        bool empty = false;
        if constexpr (std::is_same_v<Result, trip_plans>)
          empty = answer.itineraries.empty();
        rp.deliver(std::move(answer));
        primary_answered(self, id, empty);
        start_speculative(self);
      },
      [self, i, rp, id](caf::error& err) mutable {
        --self->state.busy[i];
        rp.deliver(std::move(err));
        primary_answered(self, id, false);
        start_speculative(self);
      });
}

feed_actor::behavior_type feed(feed_pointer self, gtfs_feed_options options,
                               std::shared_ptr<feed_slot> slot) {
  self->state.slot = std::move(slot);
  for (std::size_t i = 0; i < std::max<std::size_t>(1, options.routers); ++i)
    self->state.routers.push_back(
      self->template spawn<caf::linked>(
        feed_router, self->state.slot, self->state.flags,
        options.realtime_max_age_s, options.clock_offset_ms));
  self->state.busy.assign(self->state.routers.size(), 0);
  auto start_realtime = [self](const gtfs_feed_options& o) {
    if (o.realtime.empty())
      return;
    auto runner = std::make_unique<realtime_runner>();
    runner->thread = std::thread{[o, slot = self->state.slot, r = runner.get()] {
      try {
        run_realtime(o, *slot, *r);
      } catch (const std::exception& ex) {
        spdlog::error("feed {}: realtime stopped: {}", o.name, ex.what());
      }
    }};
    self->state.realtime = std::move(runner);
  };
  if (options.preloaded) {
    self->state.slot->publish(options.preloaded, 0);
    self->state.options = options;
    start_realtime(self->state.options);
    return feed_behavior(self);
  }
  options.load.cancel = self->state.stop_loading;
  self->state.options = std::move(options);
  start_loader(self);
  start_realtime(self->state.options);
  if (self->state.options.refresh_s > 0)
    self->delayed_send(caf::actor_cast<feed_actor>(self), std::chrono::seconds{self->state.options.refresh_s},
                       feed_refresh{});
  return feed_behavior(self);
}

/// The feed as transit_coverage shows it: its area, agencies, days, load
/// and realtime sources at the engine's `now_s`.
provider_coverage describe(feed_pointer self, int64_t now_s) {
  const auto& o = self->state.options;
  auto& slot = *self->state.slot;
  provider_coverage out;
  out.name = o.name;
  out.kind = "gtfs";
  out.id_prefix = o.name + ":";
  auto status = slot.status();
  auto tt = slot.current();
  if (!tt) {
    auto why = slot.unavailable();
    out.state = status.error.empty() ? "loading" : "failed";
    out.problem = why ? why->message : status.error;
  } else {
    out.area = tt->area;
    out.agencies = tt->agencies;
    out.timezone = tt->zones.empty() ? std::string{} : tt->zones[0];
    // Its own first, then the others (translations, realtime alerts).
    auto rt = slot.realtime_for(*tt, now_s, o.realtime_max_age_s);
    if (!tt->language.empty())
      out.languages.push_back(tt->language);
    for (auto& l : gtfs::languages_of(*tt, rt.layer.get()))
      if (l != tt->language)
        out.languages.push_back(std::move(l));
    out.first_day = tt->report.first_day;
    out.last_day = tt->report.last_day;
    out.stops = static_cast<int64_t>(tt->stops.size());
    out.routes = static_cast<int64_t>(tt->routes.size());
    if (!status.error.empty()) // a refresh failed; the last load serves
      out.problem = status.error;
  }
  out.loaded_at = (status.loaded_at_ms + o.clock_offset_ms) / 1000;
  if (status.loaded_at_ms == 0)
    out.loaded_at = 0;
  for (const auto& s : slot.realtime_state().sources) {
    realtime_health h;
    h.source = s.name;
    h.timestamp = s.timestamp;
    h.age_seconds = s.timestamp > 0 ? now_s - s.timestamp : 0;
    h.healthy = s.timestamp > 0 && h.age_seconds <= o.realtime_max_age_s;
    h.last_error = s.last_error;
    out.realtime.push_back(std::move(h));
  }
  return out;
}

feed_actor::behavior_type feed_behavior(feed_pointer self) {
  return {
    [self](stop_departures_query& q) {
      return with_realtime<stop_departures>(
        self, false,
        [&q, offset = self->state.options.clock_offset_ms](
          const gtfs::timetable& tt, const gtfs::realtime_layer* layer)
          -> outcome<stop_departures> {
          if (auto outside = gtfs::outside_service(tt, q.start_time))
            return *outside;
          auto language = gtfs::answer_language(tt, layer, q.language);
          if (!language)
            return language.error();
          auto answer = gtfs::departures_at(tt, q, layer);
          if (answer) { // read now: on the engine's clock (--clock included)
            answer->fetched_ms += offset;
            gtfs::translate(tt, *language, *answer);
          }
          return answer;
        });
    },
    [self](nearby_stops_query& q) -> caf::result<nearby_stops> {
      auto tt = self->state.slot->current();
      if (!tt)
        return not_loaded(*self->state.slot);
      auto language = gtfs::answer_language(*tt, nullptr, q.language);
      if (!language)
        return to_error(language.error());
      auto near = gtfs::stops_near(*tt, q);
      near.fetched_ms += self->state.options.clock_offset_ms;
      gtfs::translate(*tt, *language, near);
      return near;
    },
    [self](trip_plan_query& q) -> caf::result<trip_plans> {
      // To the least busy router: calls' searches run side by side, one
      // per router. A speculative search takes only an idle router (on a
      // busy daemon it would take a core from another call's search, and
      // is most often cancelled before it is needed); it waits for one.
      auto& st = self->state;
      st.flags->open(q.context.correlation_id); // the router closes it
      auto rp = self->make_response_promise<trip_plans>();
      auto i = least_busy(st.busy);
      if (speculative(q) && (st.busy[i] > 0 || !st.can_disrupt())) {
        bool due = false;
        if (!st.can_disrupt() && st.primaries.count(primary_of(q)) == 0) {
          // Its primary answered already (or never came): after the grace
          // it runs, unless the cancel of a content planner comes first.
          due = true;
          self->delayed_send(self, search_grace,
                             feed_search_due{q.context.correlation_id});
        }
        st.speculative.push_back({std::move(q), rp, due});
      } else {
        run_on(self, i, std::move(q), rp);
      }
      return rp;
    },
    [self](stop_lookup& q) -> caf::result<stop_place> {
      auto tt = self->state.slot->current();
      if (!tt)
        return not_loaded(*self->state.slot);
      auto place = gtfs::place_of_stop(*tt, q);
      if (!place)
        return to_error(place.error());
      return std::move(*place);
    },
    [self](reach_query& q) -> caf::result<reach_result> {
      auto rp = self->make_response_promise<reach_result>();
      run_on(self, least_busy(self->state.busy), std::move(q), rp);
      return rp;
    },
    [self](cancel_call& c) {
      // A search in flight stops at its next round (a plan_trip's relaxed
      // search once the primary answer made it moot); one still waiting
      // for a router is answered at once.
      auto& st = self->state;
      st.flags->cancel(c.correlation_id);
      for (auto it = st.speculative.begin(); it != st.speculative.end();) {
        const auto& id = it->query.context.correlation_id;
        if (!cancel_covers(c.correlation_id, id)) {
          ++it;
          continue;
        }
        st.flags->close(id);
        it->promise.deliver(to_error(make_failure(
          ec::cancelled, "the search was cancelled",
          "ask again if the answer is still needed")));
        it = st.speculative.erase(it);
      }
    },
    [self](geocode_query& q) -> caf::result<geocode_candidates> {
      auto tt = self->state.slot->current();
      if (!tt)
        return not_loaded(*self->state.slot);
      return gtfs::match_stop_names(*tt, q);
    },
    [self](vehicles_query& q) {
      return with_realtime<vehicle_list>(
        self, true,
        [&q](const gtfs::timetable& tt, const gtfs::realtime_layer* layer) {
          return gtfs::vehicles_of(tt, layer, q);
        });
    },
    [self](alerts_query& q) {
      return with_realtime<alert_list>(
        self, true,
        [&q](const gtfs::timetable& tt, const gtfs::realtime_layer* layer)
          -> outcome<alert_list> {
          auto language = gtfs::answer_language(tt, layer, q.language);
          if (!language)
            return language.error();
          q.language = *language;
          auto answer = gtfs::alerts_of(tt, layer, q);
          if (answer)
            gtfs::translate(tt, *language, *answer);
          return answer;
        });
    },
    [self](trip_query& q) {
      return with_realtime<trip_details>(
        self, false,
        [&q, offset = self->state.options.clock_offset_ms](
          const gtfs::timetable& tt, const gtfs::realtime_layer* layer)
          -> outcome<trip_details> {
          auto language = gtfs::answer_language(tt, layer, q.language);
          if (!language)
            return language.error();
          auto answer = gtfs::trip_of(tt, layer, q);
          if (answer) {
            answer->fetched_ms = now_ms() + offset;
            gtfs::translate(tt, *language, *answer);
          }
          return answer;
        });
    },
    [self](coverage_query& q) { return describe(self, q.time); },
    [self](line_status_query& q) {
      return with_realtime<line_status_list>(
        self, false,
        [&q, offset = self->state.options.clock_offset_ms](
          const gtfs::timetable& tt, const gtfs::realtime_layer* layer)
          -> outcome<line_status_list> {
          auto language = gtfs::answer_language(tt, layer, q.language);
          if (!language)
            return language.error();
          q.language = *language;
          auto answer = gtfs::line_status_of(tt, layer, q);
          if (answer)
            answer->fetched_ms = layer ? layer->newest * 1000
                                       : now_ms() + offset;
          return answer;
        });
    },
    [self](route_query& q) -> caf::result<route_details> {
      auto tt = self->state.slot->current();
      if (!tt)
        return not_loaded(*self->state.slot);
      auto language = gtfs::answer_language(*tt, nullptr, q.language);
      if (!language)
        return to_error(language.error());
      auto answer = gtfs::route_of(*tt, q);
      if (!answer)
        return to_error(answer.error());
      gtfs::translate(*tt, *language, *answer);
      answer->fetched_ms = now_ms() + self->state.options.clock_offset_ms;
      return std::move(*answer);
    },
    [self](get_counters) {
      auto status = self->state.slot->status();
      auto prefix = "feed." + self->state.slot->name() + ".";
      counters c;
      c.add(prefix + "loaded", status.loaded ? 1 : 0);
      c.add(prefix + "stops", static_cast<int64_t>(status.report.stops));
      c.add(prefix + "trips", static_cast<int64_t>(status.report.trips));
      c.add(prefix + "stop_times",
            static_cast<int64_t>(status.report.stop_times));
      c.add(prefix + "skipped_rows",
            static_cast<int64_t>(status.report.skipped_rows));
      c.add(prefix + "load_ms", status.load_ms);
      c.add(prefix + "from_snapshot", status.from_snapshot ? 1 : 0);
      c.add(prefix + "failed_loads", status.failed_loads);
      c.add(prefix + "unchanged_checks", status.unchanged_checks);
      c.add(prefix + "plans", status.plans);
      c.add(prefix + "plan_us", status.plan_us);
      c.add(prefix + "cancelled_plans", status.stopped_plans);
      if (!self->state.options.realtime.empty()) {
        auto rt = self->state.slot->realtime_state();
        int64_t polls = 0, failures = 0, refused = 0, newest = 0;
        for (const auto& s : rt.sources) {
          polls += s.polls;
          failures += s.failures;
          refused += s.refused;
          newest = std::max(newest, s.timestamp);
        }
        c.add(prefix + "realtime_polls", polls);
        c.add(prefix + "realtime_failures", failures);
        c.add(prefix + "realtime_refused", refused);
        c.add(prefix + "realtime_timestamp", newest);
        c.add(prefix + "realtime_builds", rt.builds);
        c.add(prefix + "realtime_build_ms", rt.build_ms);
        c.add(prefix + "realtime_trip_updates",
              static_cast<int64_t>(rt.counts.trip_updates));
        c.add(prefix + "realtime_matched",
              static_cast<int64_t>(rt.counts.matched));
        c.add(prefix + "realtime_cancelled",
              static_cast<int64_t>(rt.counts.cancelled));
        c.add(prefix + "realtime_added",
              static_cast<int64_t>(rt.counts.added));
        c.add(prefix + "realtime_unmatched_trips",
              static_cast<int64_t>(rt.counts.unmatched_trips));
        c.add(prefix + "realtime_unmatched_stops",
              static_cast<int64_t>(rt.counts.unmatched_stops));
      }
      return c;
    },
    [self](const feed_search_due& due) {
      // Not cancelled within its grace: the call needs it; it runs now on
      // the least busy router, like any other search.
      auto& st = self->state;
      for (auto it = st.speculative.begin(); it != st.speculative.end(); ++it)
        if (it->query.context.correlation_id == due.correlation_id) {
          auto next = std::move(*it);
          st.speculative.erase(it);
          run_on(self, least_busy(st.busy), std::move(next.query),
                 std::move(next.promise));
          return;
        }
    },
    [self](feed_refresh) {
      start_loader(self);
      self->delayed_send(caf::actor_cast<feed_actor>(self),
                         std::chrono::seconds{self->state.options.refresh_s},
                         feed_refresh{});
    },
    [self](feed_subscribe) {
      if (auto sender = caf::actor_cast<caf::actor>(self->current_sender()))
        self->state.slot->subscribe(std::move(sender));
    },
  };
}

} // namespace

feed_actor spawn_gtfs_feed(caf::actor_system& system,
                           gtfs_feed_options options,
                           std::shared_ptr<feed_slot> slot) {
  return system.spawn(feed, std::move(options), std::move(slot));
}

} // namespace transitd
