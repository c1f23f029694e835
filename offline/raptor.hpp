#pragma once
// RAPTOR (Delling, Pajor, Werneck: "Round-Based Public Transit Routing",
// 2012) over a `gtfs::timetable`: round k finds the earliest arrival with
// at most k vehicles, so the result is Pareto-optimal over arrival time and
// transfers. Arrive-by queries run the same rounds backward in time.
//
// Walking is defined once for every query: access and egress to stops
// within `max_walk_meters` (great-circle, at `walk_speed_mps`), footpaths
// between stops from the timetable no longer than `max_walk_meters`, and a
// stop's change time before boarding again where one alighted.

#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "transitd/offline/gtfs_timetable.hpp"
#include "transitd/offline/raptor_bounds.hpp"

namespace transitd::gtfs {

class realtime_layer;
struct journey;

struct journey_request {
  coordinate from;
  coordinate to;
  /// Epoch seconds: leave at (or arrive by, with `arrive_by`).
  int64_t time = 0;
  bool arrive_by = false;
  /// Trip ends at stops (D21): when given, the journey starts (ends) at
  /// one of these stops, without a walk from (to) the point; `from` (`to`)
  /// is then where they are, for the walk alone.
  std::vector<uint32_t> from_stops;
  std::vector<uint32_t> to_stops;
  int32_t max_transfers = 4;
  int32_t max_walk_meters = 1500;
  /// Skip trips marked inaccessible and stops marked not boardable.
  bool wheelchair = false;
  /// Read before every round: once set, the search ends early and its
  /// result is incomplete (its caller no longer wants it).
  const std::atomic<bool>* stop = nullptr;
  /// Realtime of the router's timetable: cancelled trips are not boarded,
  /// skipped stops not served, and trips run on their realtime times (as
  /// the layer's patterns, numbered after the timetable's). Null, or a
  /// layer of another timetable: the schedule.
  const realtime_layer* realtime = nullptr;
  /// Journeys an earlier search of the same rider's question found (a
  /// plan's later searches; may be null). Each is ridden again from this
  /// request's time (the same walks, changes and patterns, the first trip
  /// it can catch on each), and where that arrives, it bounds the search
  /// from its first round: a label that cannot arrive by it with as many
  /// rides or more is not written. The answer is the one the search gives
  /// without them: it includes journeys that only equal them.
  const std::vector<journey>* known = nullptr;
  /// No journey arriving at or after this is wanted (arrive-by: leaving
  /// at or before it): labels that cannot beat it are pruned from the
  /// first round on, as by a journey found. The answer is the Pareto set's
  /// journeys that beat it. None: the whole Pareto set.
  std::optional<int64_t> cutoff;
  /// Without a `cutoff`, one guessed from the bounds: `factor` times the
  /// least seconds a journey can take (a walk to a start stop and that
  /// stop's bound), plus `plus_s` (factor 0: none). The router tells
  /// which it used (`raptor::cutoff_used`).
  struct cutoff_guess {
    double factor = 0;
    int64_t plus_s = 0;
  } guess;
};

struct journey_leg {
  bool transit = false;
  /// Stops; `none` for the origin or destination point.
  uint32_t from_stop = none;
  uint32_t to_stop = none;
  int64_t start = 0;
  int64_t end = 0;
  /// Transit legs: the pattern, the trip's rank in it and the positions.
  /// A pattern from `first_pattern` on is the realtime layer's.
  uint32_t pattern = 0;
  uint32_t trip_rank = 0;
  uint32_t board = 0;
  uint32_t alight = 0;
  /// Meters: walked, or along the stops ridden.
  int32_t meters = 0;
  /// Transit legs: the origin of the trip's service day (epoch seconds).
  int64_t origin = 0;
};

struct journey {
  std::vector<journey_leg> legs;
  int64_t departure = 0;
  int64_t arrival = 0;
  /// Vehicles boarded.
  int32_t rides = 0;
};

/// A stop reached from a point (one-to-all): its earliest arrival and the
/// vehicles ridden to get there then.
struct reach_label {
  uint32_t stop = 0;
  int64_t arrival = 0;
  int32_t rides = 0;
};

/// A router with its scratch space; one per thread.
class raptor {
public:
  explicit raptor(const timetable& tt);

  /// The Pareto set over (arrival, rides) for one departure (or, arrive-by,
  /// over (departure, rides) for one arrival), sorted by arrival. Includes a
  /// walk-only journey when the points are within walking distance.
  std::vector<journey> route(const journey_request& request);

  /// One-to-all: every stop reachable from `request.from` (or its
  /// `from_stops`) leaving at `request.time`, arriving by `limit` (epoch
  /// seconds), with at most `max_transfers` changes; walking as in
  /// `route`. Sorted by arrival. `to` and `arrive_by` are not read.
  std::vector<reach_label> reach(const journey_request& request,
                                 int64_t limit);

  /// The cutoff the last `route` pruned by, given or guessed; none when
  /// it pruned by none (or a walk alone beat it).
  std::optional<int64_t> cutoff_used() const {
    return cutoff_used_;
  }

private:
  /// A round's best arrival at the destination: with `rides` vehicles,
  /// through `stop` (none: the walk alone).
  struct found {
    int32_t rides;
    uint32_t stop;
  };
  /// The trip caught at a pattern position: its rank, its service day's
  /// origin, and its time there.
  struct caught {
    uint32_t rank;
    int64_t origin;
    int64_t at;
  };

  // The search, step by step (Backward: arrive-by, rounds run back in
  // time). Each step reads and writes the labels below.
  template <bool Backward>
  std::vector<journey> run(const journey_request& request);
  /// Resets the labels for the query and takes its realtime layer.
  template <bool Backward>
  void prepare(const journey_request& request);
  /// Labels the stops within walking distance of the start point, the
  /// walks from the stops near the end point, and the walk alone.
  template <bool Backward>
  void seed_walks();
  /// The stops within `max_walk_` of `point` and their meters, kept for
  /// the next searches from or to the same point (a plan's later
  /// searches).
  const std::vector<std::pair<uint32_t, double>>&
  near(const coordinate& point);
  struct near_stops {
    coordinate point{};
    double radius = -1;
    std::vector<std::pair<uint32_t, double>> stops;
  };
  std::array<near_stops, 2> near_;
  std::size_t near_next_ = 0;
  /// Which of its zone's service days each pattern runs on.
  void mark_running_patterns();
  /// The patterns through the stops marked in the last round, each from
  /// its first such stop (backward: last). `ends_only`: only those that
  /// call at an end stop (`mark_end_patterns`).
  template <bool Backward>
  void queue_patterns(bool ends_only = false);
  /// Marks the patterns that call at one of the query's end stops (where
  /// one alights, arrive-by: boards) in `ends_mark_`. In a search's last
  /// round no other can write a label: one at a stop not the end's would
  /// lead on only through a round after it.
  template <bool Backward>
  void mark_end_patterns();
  /// Per router pattern, `ends_serial_` when it calls at an end stop.
  std::vector<uint32_t> ends_mark_;
  uint32_t ends_serial_ = 0;
  /// Rides one queued pattern, labelling the stops it reaches in round
  /// `base / S` from the ready times of the round before.
  template <bool Backward>
  void scan_pattern(uint32_t p_index, std::size_t base, std::size_t prev);
  /// The trip of `p` to catch at position `i` given `t`: forward the
  /// earliest departing at or after t, backward the latest arriving at or
  /// before t, over the service days it runs on. With `held` (the trip
  /// ridden, in `best` with its time at `i`), a trip only when it is
  /// better. Whether one was found (then in `best`).
  /// `days`: the bits of `days_[p.zone]` to look on (`live_` in a
  /// search, `active_` after it).
  template <bool Backward>
  bool catch_trip(uint32_t p_index, const pattern& p, const stop_time* times,
                  uint32_t i, int64_t t, unsigned days, bool held,
                  caught& best) const;
  /// `live_` from `active_` and the query's time, at a search's start.
  template <bool Backward>
  void start_live_days();
  /// `live_` less the days the best journey found rules out.
  template <bool Backward>
  void prune_live_days();
  struct day_edge;
  /// Takes a pattern's day out of `live_`, noting it in `taken` (unless
  /// it is out already).
  void take_day(const day_edge& e,
                std::vector<std::pair<uint32_t, uint8_t>>& taken);
  /// Puts the days of `taken` back into `live_`.
  void put_back(std::vector<std::pair<uint32_t, uint8_t>>& taken);
  /// Whether trip `r` of router pattern `p` can be taken on `day`.
  bool usable(uint32_t p_index, const pattern& p, uint32_t r,
              int32_t day) const;
  /// Whether the query may use stop `s` (wheelchair boarding).
  bool stop_ok(uint32_t s) const;
  /// The destination through the stops ridden to in round `k`.
  template <bool Backward>
  void reach_target(int32_t k, std::size_t base);
  /// Changes and footpaths from the stops ridden to, towards the next
  /// round's boarding, pruned by `bound` (the next round's).
  template <bool Backward>
  void walk_on(std::size_t base, int64_t bound);
  /// One journey from the labels of a front entry.
  template <bool Backward>
  journey journey_of(const found& f) const;
  /// The legs from the labels, forward: egress first, then back to the
  /// access.
  std::vector<journey_leg> legs_forward(const found& f) const;
  /// The rides before the last made as late as still catches the next
  /// (arrive-by: the rides after the first as early), over every running
  /// pattern between the same stops: the labels keep the earliest
  /// arrival at each stop, not the latest way to make it.
  template <bool Backward>
  void tighten(std::vector<journey_leg>& legs) const;
  std::vector<journey_leg> legs_backward(const found& f) const;

  /// Router pattern `p`: the timetable's, or the realtime layer's after
  /// them; its stops and its trips' times.
  const pattern& pattern_at(uint32_t p) const;
  const pattern_stop* stops_of(uint32_t p) const;
  const stop_time* times_of(uint32_t p) const;
  journey_leg transit_leg(uint32_t pattern, uint32_t rank, int64_t origin,
                          uint32_t board, uint32_t alight) const;

  /// Lower bounds towards the query's end (see raptor_bounds.hpp), over
  /// the timetable's hops; computed once for the searches of one end.
  void bound_by_end(bool backward);
  /// `caps_` from the request's known journeys.
  template <bool Backward>
  void cap_by_known();
  /// The request's cutoff, or the one it asks to guess, as the best
  /// journey so far (when it beats the walk alone).
  template <bool Backward>
  void cut_off();
  /// The least seconds any journey of the query takes, by the bounds (they
  /// are settled as far as that needs); none when no start stop reaches
  /// the end.
  std::optional<int64_t> least_seconds();
  /// The arrival (arrive-by: departure) of the known journey `j` ridden
  /// again in this search: its walks, changes and patterns, each ride on
  /// the first trip it can catch (arrive-by: the last). A journey this
  /// search could find, so a bound on what it finds with as many rides.
  /// Unreached when a ride cannot be caught.
  /// From the start at the query's time (`from_ride` 0), or from its
  /// ride `from_ride` + 1 on, that ride's pattern boarded wherever the
  /// labels reach it (`ride_from_labels`).
  template <bool Backward>
  int64_t replay(const journey& j, int32_t from_ride) const;
  /// Where the labels so far (`best_ready_`) get on leg `l`'s pattern at
  /// any call before the one it leaves at (arrive-by: after the one it
  /// boards at), when the trip caught reaches that call (arrive-by:
  /// leaves the boarding one); unreached when none is caught.
  template <bool Backward>
  int64_t ride_from_labels(const journey_leg& l) const;
  /// `caps_` tightened by known journey `j` reaching the end at `end`.
  template <bool Backward>
  void cap_by(const journey& j, int64_t end);
  /// `caps_` from the known journeys' rides from the `k`-th on, its
  /// pattern boarded where the labels of the rounds before reach it (at
  /// the start of round `k`).
  template <bool Backward>
  void cap_by_labels(int32_t k);
  /// What a label that leads on only through round `k` + 1 must beat:
  /// the better of `bound_` and that round's cap (after the last round,
  /// nothing: the query's time).
  template <bool Backward>
  int64_t next_round_bound(int32_t k) const;
  /// `bound_` for round `k` (after the best journey or the cap changed);
  /// the bounds and live days follow it when it tightened, and so do the
  /// stops marked in the round before (their labels at `marks`), when
  /// given.
  template <bool Backward>
  void tighten_bound(int32_t k, std::optional<std::size_t> marks);
  /// Settles the bounds as far as the pruning bound needs.
  template <bool Backward>
  void bound_to_best();
  /// Whether `t` at stop `s` can still lead to an arrival at the end
  /// better than `dest_best`, as a function of (s, t) that holds what it
  /// reads (the bounds): the loops calling it store marks, which would
  /// make the compiler read the members again.
  template <bool Backward>
  auto promise(int64_t dest_best) const;

  const timetable& tt_;
  /// The longest footpath the timetable made (transfers.txt's aside):
  /// a rider's limit at least this long leaves every footpath in.
  int32_t longest_walk_ = 0;
  travel_bounds bounds_;
  /// What `bounds_` holds: the end's stops and seconds, the direction and
  /// the realtime layer (its serial; 0: none).
  struct bounds_key {
    std::vector<std::pair<uint32_t, int32_t>> seeds;
    bool backward = false;
    uint64_t layer = ~uint64_t{0};
    bool operator==(const bounds_key& o) const {
      return seeds == o.seeds && backward == o.backward && layer == o.layer;
    }
  };
  bounds_key bounds_for_;
  bounds_key wanted_;
  /// Whether the search prunes by `bounds_` (a one-to-all search does
  /// not).
  bool bounded_ = false;
  /// The layer of the query running (null: none).
  const realtime_layer* rt_ = nullptr;
  uint32_t first_layer_pattern_ = 0;
  std::size_t rounds_ = 0;
  /// Labels: seconds from `origin_` (the query's time); `unlabelled`
  /// where none is.
  using label = int32_t;
  template <bool Backward>
  static constexpr label unlabelled = Backward
                                        ? std::numeric_limits<label>::min()
                                        : std::numeric_limits<label>::max();
  int64_t origin_ = 0;
  label label_of(int64_t t) const {
    return static_cast<label>(t - origin_);
  }
  /// The epoch seconds of a label written.
  int64_t when(label l) const {
    return origin_ + l;
  }
  /// A stop ridden to in a round: when, and on which trip from where.
  /// Sixteen bytes, written together in one line: the position where the
  /// label was set and the trip's service day follow from these (see
  /// `ride_leg`).
  struct ride_label {
    label at;
    uint32_t pattern;
    uint32_t trip_rank;
    uint32_t from_pos; // where the trip was caught in the scan
  };
  /// The leg of ride label `r` at stop `s`.
  template <bool Backward>
  journey_leg ride_leg(const ride_label& r, uint32_t s) const;
  std::vector<ride_label> ride_;
  std::vector<label> ready_;
  std::vector<label> best_ride_;
  std::vector<label> best_ready_;
  struct ready_parent {
    uint32_t stop; // the stop ridden to (the same stop for a change)
    int32_t seconds;
    int32_t meters;
  };
  std::vector<ready_parent> ready_parent_;
  std::vector<int32_t> target_walk_;
  /// The target stops joined to a stop given as the end (its footpaths,
  /// transfers.txt): the stop, the one given, the meters between.
  struct joined_end {
    uint32_t stop;
    uint32_t given;
    int32_t meters;
  };
  std::vector<joined_end> target_joined_;
  std::vector<uint32_t> target_stops_;
  std::vector<uint32_t> touched_;
  std::vector<uint32_t> queue_pos_;
  /// The other end of a queued pattern's marked stops: the last one
  /// (backward: the first), after which no trip is boarded.
  std::vector<uint32_t> queue_end_;
  std::vector<uint32_t> queued_;
  /// Per pattern, the rank last caught: where catch_trip starts looking.
  std::vector<uint32_t> hint_;
  std::vector<char> marked_;
  std::vector<char> ride_marked_;
  std::vector<uint8_t> active_;
  /// Per timetable pattern, the earliest and the latest time of any of
  /// its calls (its first trip's and its last's: trips do not overtake),
  /// in seconds after the day's origin.
  struct time_span {
    int32_t first = 0;
    int32_t last = 0;
    uint16_t zone = 0;
  };
  std::vector<time_span> spans_;
  /// `active_` less the days a search cannot catch a trip on: forward,
  /// a day whose last call is before the query's time, or whose first is
  /// not before the best arrival found (arrive-by: the mirror). Such a
  /// trip would write no label, so `catch_trip` does not look on them.
  std::vector<uint8_t> live_;
  /// A day of a pattern in `active_` (its bit) and the epoch seconds of
  /// its first or last call; sorted by them, so that a search takes days
  /// out of `live_` from the ends (each once), and puts back at its end
  /// only those it took.
  struct day_edge {
    int64_t at = 0;
    uint32_t pattern = 0;
    uint8_t bit = 0;
  };
  std::vector<day_edge> by_first_;
  std::vector<day_edge> by_last_;
  /// The days taken out of `live_` by the query's time (kept for the
  /// next search when its time is no earlier, arrive-by no later: what
  /// `time_cut_for_` says) and by the best journey (put back at every
  /// search's start); how far each end was taken.
  std::vector<std::pair<uint32_t, uint8_t>> time_dead_;
  std::vector<std::pair<uint32_t, uint8_t>> best_dead_;
  std::size_t time_cut_ = 0;
  std::size_t best_cut_ = 0;
  struct {
    bool valid = false;
    bool backward = false;
    int64_t time = 0;
  } time_cut_for_;
  /// Per stop, the calls of the patterns in `active_` (the timetable's and
  /// the layer's) where one may board ([0]) and alight ([1]), CSR.
  std::vector<uint32_t> running_begin_[2];
  std::vector<stop_call> running_calls_[2];
  /// What `active_` was marked for: the days per zone and the layer.
  std::vector<std::vector<service_day>> active_days_;
  uint64_t active_layer_ = ~uint64_t{0};
  // The query running.
  const journey_request* rq_ = nullptr;
  /// A one-to-all search (`reach`): no target, no walk alone.
  bool one_to_all_ = false;
  bool wheelchair_ = false;
  double max_walk_ = 0;
  /// The best arrival at the destination so far (backward: departure).
  int64_t dest_best_ = 0;
  std::optional<int64_t> cutoff_used_;
  /// Per round, what a label must beat to be written besides `dest_best_`:
  /// one second after the earliest arrival of the known journeys with at
  /// most that many rides (backward: before the latest departure), so
  /// that the journeys equal to them are still found. A label written in
  /// round k may lead to the end in any later round, and the caps only
  /// tighten from round to round: round k's cap holds for all of them.
  std::vector<int64_t> caps_;
  /// What labels are pruned by in the round running: the better of
  /// `dest_best_` and the round's cap.
  int64_t bound_ = 0;
  /// What a ride label at a stop not the end's must beat in the round
  /// running (`next_round_bound`): it leads on only by a change or a
  /// footpath, boarded in the next round.
  int64_t next_bound_ = 0;
  double direct_meters_ = 0;
  int32_t direct_seconds_ = 0;
  /// The service days a journey from the query time can use, per zone.
  std::vector<std::vector<service_day>> days_;
  /// Stops improved in the last round (their ready label), and stops
  /// ridden to in this one.
  std::vector<uint32_t> marked_list_;
  std::vector<uint32_t> rode_;
  std::vector<found> front_;
};

/// How far from the asked time `plan_journeys` looks: no journey leaves
/// later than this after it (arrive-by: arrives earlier before it).
inline constexpr int64_t later_search_window = 2 * 3600;

/// A journey with fewer rides than the fastest is worth offering when it
/// arrives (arrive-by: leaves) at most this much later (earlier) than the
/// fastest, or half the fastest's duration when that is more.
inline constexpr int64_t fewer_rides_slack_min = 20 * 60;

/// The slack a journey with fewer rides than `fastest` may take.
int64_t fewer_rides_slack(const journey& fastest);

/// Removes the journeys with fewer rides than the fastest of `all` whose
/// extra time exceeds `fewer_rides_slack`.
void drop_unworthy(std::vector<journey>& all, bool arrive_by);

/// Removes the journeys another one beats: leaving no earlier, arriving no
/// later, with no more rides, and better in one of them (say, a longer
/// walk to an earlier stop of the same train, found by an earlier search).
/// A journey with fewer rides beats one with more also when it leaves at
/// most `ride_worth` seconds per ride fewer earlier and arrives at most as
/// much later: a ride more must be worth its change (not five buses to
/// arrive a second before four).
void drop_dominated(std::vector<journey>& all, int64_t ride_worth = 0);

/// The first search of a plan guesses its cutoff as this many times the
/// least seconds the bounds allow, plus `first_cutoff_plus_s`. On all of
/// New York's feeds the fastest journey and the slack after it need 2.8
/// times at the median and 3.6 for a tenth; a guess too short costs a
/// search more (pruned by the true cutoff, or by none when it found
/// nothing), one too long prunes less. Measured in instructions over 100
/// plans: 1.5 and 2 times cost more than no guess, 3 to 4.5 times with
/// 10 to 20 minutes 6-7 % less; this the least.
inline constexpr double first_cutoff_factor = 3.0;
inline constexpr int64_t first_cutoff_plus_s = 1200;

/// A plan's first search: of the Pareto set of `request`, the fastest
/// journey and those worth their extra time after it (within
/// `fewer_rides_slack`; the others no rider would take, and they bound no
/// later search), unless the fastest leaves beyond `later_search_window`
/// (then the whole set). Pruned from its first round by a cutoff guessed
/// by `guess` (factor 0: none), and searched again with the true cutoff
/// (one second past the slack) when the guess fell short of it, over the
/// rounds of fewer rides than the fewest found alone (only those can end
/// between the guess and the slack), or without a cutoff when the guess
/// found nothing: the same arrivals and rides with any guess (where two
/// journeys tie on both, which is kept may differ).
std::vector<journey> plan_first_search(
  raptor& router, const journey_request& request,
  journey_request::cutoff_guess guess = {first_cutoff_factor,
                                         first_cutoff_plus_s});

/// Up to `count` journeys: `plan_first_search`'s, then the Pareto sets of
/// later departures (earlier arrivals, arrive-by), all leaving within
/// `later_search_window` of the asked time, until `count` are found or
/// four searches ran. Fewer-ride journeys not worth their extra time are
/// dropped (`drop_unworthy`), and so are journeys another one beats, a
/// ride more being worth `ride_worth` seconds (`drop_dominated`; 0: the
/// Pareto set itself). Sorted by arrival; duplicates removed; with more
/// than `count`, the earliest arrivals (arrive-by: the latest
/// departures).
std::vector<journey> plan_journeys(raptor& router,
                                   const journey_request& request,
                                   std::size_t count, int64_t ride_worth = 0);

} // namespace transitd::gtfs
