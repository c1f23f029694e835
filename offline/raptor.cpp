#include "transitd/offline/raptor.hpp"

#include "transitd/offline/gtfs_realtime.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#if defined(__GNUC__)
#define TRANSITD_INLINE [[gnu::always_inline]] inline
#else
#define TRANSITD_INLINE inline
#endif

namespace transitd::gtfs {

namespace {

constexpr int32_t max_rounds = 16;

int32_t meters_to(const timetable& tt, uint32_t s, const coordinate& p) {
  return static_cast<int32_t>(std::lround(distance_m(tt.stops[s].position, p)));
}

/// Meters along a pattern's stops, straight between each.
int32_t meters_along(const timetable& tt, const pattern_stop* stops,
                     uint32_t from, uint32_t to) {
  double total = 0;
  for (auto i = from; i < to; ++i)
    total += distance_m(tt.stops[stops[i].stop].position,
                        tt.stops[stops[i + 1].stop].position);
  return static_cast<int32_t>(std::lround(total));
}

/// Access and egress at the point itself: no walk to show. A change
/// between two stops stays, however short: legs are continuous.
void drop_empty_walks(std::vector<journey_leg>& legs) {
  if (legs.size() < 2)
    return;
  legs.erase(std::remove_if(legs.begin(), legs.end(),
                            [](const journey_leg& l) {
                              return !l.transit && l.meters == 0
                                     && l.start == l.end
                                     && (l.from_stop == none
                                         || l.to_stop == none);
                            }),
             legs.end());
}

} // namespace

raptor::raptor(const timetable& tt)
  : tt_(tt), first_layer_pattern_(static_cast<uint32_t>(tt.patterns.size())) {
  queue_pos_.assign(tt.patterns.size(), none);
  queue_end_.assign(tt.patterns.size(), none);
  hint_.assign(tt.patterns.size(), 0);
  for (const auto& f : tt.out)
    if (!f.listed)
      longest_walk_ = std::max(longest_walk_, int32_t{f.meters});
  spans_.resize(tt.patterns.size());
  for (std::size_t p = 0; p < tt.patterns.size(); ++p) {
    const auto& pat = tt.patterns[p];
    if (pat.trip_count == 0)
      continue;
    const auto* first = tt.times.data() + pat.times_begin;
    const auto* last = first + std::size_t{pat.trip_count - 1} * pat.stop_count;
    auto& span = spans_[p];
    span.zone = pat.zone;
    span.first = std::numeric_limits<int32_t>::max();
    span.last = std::numeric_limits<int32_t>::min();
    for (uint32_t i = 0; i < pat.stop_count; ++i) {
      span.first = std::min({span.first, first[i].arrival, first[i].departure});
      span.last = std::max({span.last, last[i].arrival, last[i].departure});
    }
  }
}

const pattern& raptor::pattern_at(uint32_t p) const {
  return p < first_layer_pattern_ ? tt_.patterns[p] : rt_->layer_pattern(p);
}

const pattern_stop* raptor::stops_of(uint32_t p) const {
  return p < first_layer_pattern_
           ? &tt_.pattern_stops[tt_.patterns[p].stops_begin]
           : &rt_->pattern_stops[rt_->layer_pattern(p).stops_begin];
}

const stop_time* raptor::times_of(uint32_t p) const {
  return p < first_layer_pattern_
           ? &tt_.times[tt_.patterns[p].times_begin]
           : &rt_->times[rt_->layer_pattern(p).times_begin];
}

/// The ride on a trip (rank `rank` of `pattern`, on the service day
/// starting at `origin`) from position `board` to `alight`.
journey_leg raptor::transit_leg(uint32_t pattern, uint32_t rank,
                                int64_t origin, uint32_t board,
                                uint32_t alight) const {
  const auto& p = pattern_at(pattern);
  const auto* stops = stops_of(pattern);
  const auto* times = times_of(pattern) + rank * p.stop_count;
  journey_leg ride;
  ride.transit = true;
  ride.from_stop = stops[board].stop;
  ride.to_stop = stops[alight].stop;
  ride.pattern = pattern;
  ride.trip_rank = rank;
  ride.board = board;
  ride.alight = alight;
  ride.start = origin + times[board].departure;
  ride.end = origin + times[alight].arrival;
  ride.meters = meters_along(tt_, stops, board, alight);
  ride.origin = origin;
  return ride;
}

template <bool Backward>
journey_leg raptor::ride_leg(const ride_label& r, uint32_t s) const {
  // The label was set where the scan first reached `s` after catching the
  // trip (forward: the first stop `s` after `from_pos` one may leave at;
  // backward: the last before it one may board at): a later call at `s`
  // (a loop) is no earlier arrival, and the trip's times are its day's
  // origin plus the pattern's.
  const auto& p = pattern_at(r.pattern);
  const auto* stops = stops_of(r.pattern);
  const auto* times = times_of(r.pattern) + r.trip_rank * p.stop_count;
  uint32_t i = r.from_pos;
  if constexpr (Backward) {
    while (i > 0 && !(stops[i - 1].stop == s && stops[i - 1].pickup))
      --i;
    i = i > 0 ? i - 1 : r.from_pos;
  } else {
    while (i + 1 < p.stop_count
           && !(stops[i + 1].stop == s && stops[i + 1].drop_off))
      ++i;
    i = i + 1 < p.stop_count ? i + 1 : r.from_pos;
  }
  const auto origin
    = when(r.at) - (Backward ? times[i].departure : times[i].arrival);
  return Backward ? transit_leg(r.pattern, r.trip_rank, origin, i, r.from_pos)
                  : transit_leg(r.pattern, r.trip_rank, origin, r.from_pos, i);
}

std::vector<journey> raptor::route(const journey_request& request) {
  return request.arrive_by ? run<true>(request) : run<false>(request);
}

namespace {

template <bool Backward>
constexpr int64_t unreached = Backward ? std::numeric_limits<int64_t>::min()
                                       : std::numeric_limits<int64_t>::max();

template <bool Backward>
constexpr bool better(int64_t a, int64_t b) {
  return Backward ? a > b : a < b;
}

/// `t` moved by `seconds` in the search's direction.
template <bool Backward>
constexpr int64_t onward(int64_t t, int64_t seconds) {
  return Backward ? t - seconds : t + seconds;
}

/// The order of a search's answer: the earliest arrival first, then the
/// latest departure.
bool arrives_first(const journey& a, const journey& b) {
  return a.arrival != b.arrival ? a.arrival < b.arrival
                                : a.departure > b.departure;
}

} // namespace

std::vector<reach_label> raptor::reach(const journey_request& request,
                                       int64_t limit) {
  auto rq = request;
  rq.arrive_by = false;
  one_to_all_ = true;
  prepare<false>(rq);
  bounded_ = false;
  seed_walks<false>();
  one_to_all_ = false;
  // Labels later than the limit are pruned as a later arrival at a target
  // would be.
  dest_best_ = limit + 1;
  bound_ = dest_best_;
  next_bound_ = bound_;
  mark_running_patterns();
  start_live_days<false>();
  const auto S = tt_.stops.size();
  const auto K = static_cast<int32_t>(rounds_) - 1;
  for (int32_t k = 1; k <= K && !marked_list_.empty(); ++k) {
    if (rq.stop && rq.stop->load(std::memory_order_relaxed))
      return {};
    const auto base = static_cast<std::size_t>(k) * S;
    queue_patterns<false>();
    rode_.clear();
    for (auto p_index : queued_)
      scan_pattern<false>(p_index, base, base - S);
    for (auto s : rode_) // no target to reach: only the marks to clear
      ride_marked_[s] = 0;
    walk_on<false>(base, bound_);
  }
  // Each stop's earliest arrival, by vehicle or on foot (a change at the
  // stop itself is no arrival), with the rides of the round that made it.
  std::vector<reach_label> out;
  for (uint32_t s = 0; s < S; ++s) {
    reach_label best{s, limit + 1, 0};
    for (int32_t k = 0; k <= K; ++k) {
      auto at = static_cast<std::size_t>(k) * S + s;
      if (k > 0 && ride_[at].at != unlabelled<false>
          && when(ride_[at].at) < best.arrival)
        best = {s, when(ride_[at].at), k};
      if (ready_[at] != unlabelled<false> && when(ready_[at]) < best.arrival
          && (k == 0 || ready_parent_[at].stop != s))
        best = {s, when(ready_[at]), k};
    }
    if (best.arrival <= limit)
      out.push_back(best);
  }
  std::sort(out.begin(), out.end(),
            [](const reach_label& a, const reach_label& b) {
              return a.arrival != b.arrival ? a.arrival < b.arrival
                                            : a.stop < b.stop;
            });
  return out;
}

template <bool Backward>
std::vector<journey> raptor::run(const journey_request& rq) {
  prepare<Backward>(rq);
  seed_walks<Backward>();
  bound_by_end(Backward);
  mark_running_patterns();
  cap_by_known<Backward>();
  cut_off<Backward>();
  bound_ = dest_best_;
  if (better<Backward>(caps_[1], bound_))
    bound_ = caps_[1];
  bound_to_best<Backward>();
  start_live_days<Backward>();
  const auto S = tt_.stops.size();
  const auto K = static_cast<int32_t>(rounds_) - 1;
  for (int32_t k = 1; k <= K && !marked_list_.empty(); ++k) {
    if (rq.stop && rq.stop->load(std::memory_order_relaxed))
      return {};
    const auto base = static_cast<std::size_t>(k) * S;
    if (k > 1)
      cap_by_labels<Backward>(k);
    tighten_bound<Backward>(k, base - S);
    if (k == K)
      mark_end_patterns<Backward>();
    queue_patterns<Backward>(k == K);
    rode_.clear();
    // A ride to a stop not the end's leads on only through the next
    // round: that round's bound holds for it.
    next_bound_ = next_round_bound<Backward>(k);
    for (auto p_index : queued_)
      scan_pattern<Backward>(p_index, base, base - S);
    reach_target<Backward>(k, base);
    // So does a change or footpath (the best journey may have improved).
    walk_on<Backward>(base, next_round_bound<Backward>(k));
  }
  std::vector<journey> result;
  result.reserve(front_.size());
  for (const auto& f : front_)
    result.push_back(journey_of<Backward>(f));
  std::sort(result.begin(), result.end(), arrives_first);
  return result;
}

template <bool Backward>
void raptor::prepare(const journey_request& rq) {
  constexpr int64_t inf = unreached<Backward>;
  rq_ = &rq;
  wheelchair_ = rq.wheelchair;
  const auto S = tt_.stops.size();
  const int32_t K = std::clamp(rq.max_transfers + 1, 1, max_rounds);
  max_walk_ = std::max(0, rq.max_walk_meters);
  rounds_ = static_cast<std::size_t>(K) + 1;
  // A search reads a ride label only where it wrote one (the stops it
  // rode to, and the legs back from the end); one-to-all reads them all.
  // Labels are seconds from the query's time, in 32 bits: half the bytes
  // to reset and to read.
  constexpr label none_yet = unlabelled<Backward>;
  origin_ = rq.time;
  if (one_to_all_)
    ride_.assign(rounds_ * S, ride_label{none_yet, 0, 0, 0});
  else
    ride_.resize(rounds_ * S);
  ready_.assign(rounds_ * S, none_yet);
  best_ride_.assign(S, none_yet);
  best_ready_.assign(S, none_yet);
  ready_parent_.resize(rounds_ * S);
  target_walk_.assign(S, -1);
  marked_.assign(S, 0);
  ride_marked_.assign(S, 0);
  rt_ = rq.realtime != nullptr && rq.realtime->base.get() == &tt_
          ? rq.realtime
          : nullptr;
  const auto P = first_layer_pattern_
                 + static_cast<uint32_t>(rt_ ? rt_->patterns.size() : 0);
  if (queue_pos_.size() != P) {
    queue_pos_.assign(P, none);
    queue_end_.assign(P, none);
    hint_.assign(P, 0);
  }
  days_.resize(tt_.zones.size());
  for (uint16_t z = 0; z < tt_.zones.size(); ++z)
    days_[z] = tt_.days_around(z, rq.time);
  marked_list_.clear();
  front_.clear();
  dest_best_ = inf;
  bound_ = inf;
  caps_.assign(rounds_, inf);
}

template <bool Backward>
int64_t raptor::replay(const journey& j, int32_t from_ride) const {
  constexpr int64_t inf = unreached<Backward>;
  int64_t t = rq_->time;
  if (j.rides <= from_ride || static_cast<std::size_t>(j.rides) >= rounds_
      || j.legs.empty())
    return inf;
  const auto patterns
    = first_layer_pattern_
      + static_cast<uint32_t>(rt_ != nullptr ? rt_->patterns.size() : 0);
  // The legs in the search's direction: walks take what they took, a
  // change at one stop its change time, and each ride the first trip of
  // its pattern that can be caught (arrive-by: the last), on the days
  // this search looks at, as the rounds would.
  const journey_leg* ridden = nullptr;
  const auto n = j.legs.size();
  int32_t seen = 0;
  bool started = from_ride == 0;
  for (std::size_t k = 0; k < n; ++k) {
    const auto& l = j.legs[Backward ? n - 1 - k : k];
    if (!started) {
      // Up to the ride to start from: the labels reach its pattern.
      if (!l.transit || seen++ < from_ride)
        continue;
      started = true;
      if (l.pattern >= patterns)
        return inf;
      t = ride_from_labels<Backward>(l);
      if (t == inf)
        return inf;
      ridden = &l;
      continue;
    }
    if (!l.transit) {
      t = onward<Backward>(t, l.end - l.start);
      ridden = nullptr;
      continue;
    }
    if (l.pattern >= patterns)
      return inf;
    if (ridden != nullptr) {
      // Off one vehicle and on the next at the same stop.
      auto s = Backward ? ridden->from_stop : ridden->to_stop;
      if (s != (Backward ? l.to_stop : l.from_stop) || s >= tt_.stops.size())
        return inf;
      t = onward<Backward>(t, tt_.change_seconds[s]);
    }
    const auto& p = pattern_at(l.pattern);
    const auto* times = times_of(l.pattern);
    if (l.board >= p.stop_count || l.alight >= p.stop_count)
      return inf;
    caught c{0, 0, 0};
    if (!catch_trip<Backward>(l.pattern, p, times,
                              Backward ? l.alight : l.board, t,
                              active_[l.pattern], false, c))
      return inf;
    const auto& st = times[c.rank * p.stop_count + (Backward ? l.board
                                                               : l.alight)];
    t = c.origin + (Backward ? st.departure : st.arrival);
    ridden = &l;
  }
  return t;
}

template <bool Backward>
void raptor::cap_by_known() {
  if (rq_->known == nullptr || one_to_all_)
    return;
  for (const auto& j : *rq_->known)
    cap_by<Backward>(j, replay<Backward>(j, 0));
}

template <bool Backward>
void raptor::cut_off() {
  cutoff_used_.reset();
  auto cut = rq_->cutoff;
  if (!cut && rq_->guess.factor > 0 && bounded_ && !one_to_all_)
    if (auto least = least_seconds())
      cut = onward<Backward>(
        rq_->time, std::llround(rq_->guess.factor * static_cast<double>(*least))
                     + rq_->guess.plus_s);
  if (cut && better<Backward>(*cut, dest_best_)) {
    dest_best_ = *cut;
    cutoff_used_ = cut;
    front_.clear(); // the walk alone, if any, does not beat it
  }
}

std::optional<int64_t> raptor::least_seconds() {
  // The start stops are round 0's marks; each is as far from the query's
  // time as its label. Settled out in doubling radii until the nearest
  // start (label and bound) lies inside: then its bound is exact, and
  // every other start's is at least the radius.
  for (int64_t radius = 900;; radius *= 2) {
    bounds_.reach(radius);
    int64_t least = std::numeric_limits<int64_t>::max();
    for (auto s : marked_list_)
      least = std::min(least, std::abs(int64_t{ready_[s]})
                                + int64_t{bounds_.at(s)});
    if (least < bounds_.radius())
      return least;
    // Every stop settled, or none nearer than the bounds' cap (a sum of
    // hops held at its largest): no start reaches the end in time.
    if (bounds_.radius() == travel_bounds::unreachable
        || radius > travel_bounds::unreachable)
      return std::nullopt;
  }
}

template <bool Backward>
void raptor::cap_by(const journey& j, int64_t end) {
  if (end == unreached<Backward>)
    return;
  // One second past it: a journey equal to it is still found.
  auto cap = Backward ? end - 1 : end + 1;
  for (auto k = static_cast<std::size_t>(j.rides); k < rounds_; ++k)
    if (better<Backward>(cap, caps_[k]))
      caps_[k] = cap;
}

template <bool Backward>
void raptor::cap_by_labels(int32_t k) {
  if (rq_->known == nullptr || one_to_all_)
    return;
  // Each known journey from its ride k on (arrive-by: its k-th ride from
  // the end), its pattern boarded wherever the labels of the rounds before
  // reach it: the ways this search found, then the known journey's rest.
  for (const auto& j : *rq_->known)
    if (j.rides >= k)
      cap_by<Backward>(j, replay<Backward>(j, k - 1));
}

template <bool Backward>
int64_t raptor::ride_from_labels(const journey_leg& l) const {
  constexpr int64_t inf = unreached<Backward>;
  const auto& p = pattern_at(l.pattern);
  if (l.board >= p.stop_count || l.alight >= p.stop_count
      || l.alight <= l.board)
    return inf;
  const auto* stops = stops_of(l.pattern);
  const auto* times = times_of(l.pattern);
  const unsigned days = active_[l.pattern];
  // As a scan would, up to where the known journey leaves the pattern
  // (arrive-by: back to where it boards): the trip held is replaced where
  // a label catches a better one.
  caught trip{0, 0, 0};
  bool riding = false;
  auto consider = [&](uint32_t i) {
    const auto& ps = stops[i];
    if (!(Backward ? ps.drop_off : ps.pickup))
      return;
    const auto ready = best_ready_[ps.stop];
    if (ready == unlabelled<Backward>)
      return;
    const auto r = when(ready);
    caught c = trip;
    if (riding) {
      const auto& st = times[trip.rank * p.stop_count + i];
      c.at = trip.origin + (Backward ? st.arrival : st.departure);
      if (better<Backward>(c.at, r))
        return; // the trip held is caught here too
    }
    if (catch_trip<Backward>(l.pattern, p, times, i, r, days, riding, c)) {
      trip = c;
      riding = true;
    }
  };
  if constexpr (Backward) {
    for (auto i = p.stop_count; i-- > l.board + 1;)
      consider(i);
  } else {
    for (uint32_t i = 0; i < l.alight; ++i)
      consider(i);
  }
  if (!riding)
    return inf;
  const auto& st
    = times[trip.rank * p.stop_count + (Backward ? l.board : l.alight)];
  return trip.origin + (Backward ? st.departure : st.arrival);
}

template <bool Backward>
int64_t raptor::next_round_bound(int32_t k) const {
  // After the last round nothing is boarded: no label beats the query's
  // time.
  if (static_cast<std::size_t>(k) + 1 >= rounds_)
    return rq_->time;
  const auto cap = caps_[static_cast<std::size_t>(k) + 1];
  return better<Backward>(cap, bound_) ? cap : bound_;
}

template <bool Backward>
void raptor::tighten_bound(int32_t k, std::optional<std::size_t> marks) {
  auto bound = dest_best_;
  if (better<Backward>(caps_[static_cast<std::size_t>(k)], bound))
    bound = caps_[static_cast<std::size_t>(k)];
  if (bound == bound_)
    return;
  bound_ = bound;
  bound_to_best<Backward>();
  prune_live_days<Backward>();
  if (!marks)
    return;
  // The stops marked in the round before, under a looser bound: those
  // that can no longer beat it board nothing.
  const auto hopeful = promise<Backward>(bound_ - origin_);
  const label* ready = ready_.data() + *marks;
  std::size_t kept = 0;
  for (auto s : marked_list_) {
    if (hopeful(s, ready[s]))
      marked_list_[kept++] = s;
    else
      marked_[s] = 0;
  }
  marked_list_.resize(kept);
}

TRANSITD_INLINE bool raptor::stop_ok(uint32_t s) const {
  if (!wheelchair_)
    return true;
  auto w = tt_.stops[s].wheelchair_boarding;
  if (w == 0 && tt_.stops[s].parent != none)
    w = tt_.stops[tt_.stops[s].parent].wheelchair_boarding;
  return w != 2;
}

void raptor::bound_by_end(bool backward) {
  // A timetable put together without its hops: no bounds, no pruning by
  // them.
  bounded_ = tt_.hops.covers(tt_.stops.size());
  if (!bounded_)
    return;
  wanted_.backward = backward;
  wanted_.layer = rt_ != nullptr ? rt_->serial : 0;
  if (!(wanted_ == bounds_for_)) {
    bounds_.start(tt_, rt_ != nullptr ? &rt_->least : nullptr,
                  wanted_.seeds, !backward);
    bounds_for_ = wanted_;
  }
}

template <bool Backward>
void raptor::bound_to_best() {
  if (!bounded_ || bound_ == unreached<Backward>)
    return;
  // Labels lie after the query's time (arrive-by: before): no bound
  // beyond the best journey's length is ever compared.
  bounds_.reach(Backward ? rq_->time - bound_ : bound_ - rq_->time);
}

template <bool Backward>
auto raptor::promise(int64_t dest_best) const {
  const bool bounded = bounded_;
  const int32_t* bound = bounded ? bounds_.seconds() : nullptr;
  const int64_t radius = bounded ? bounds_.radius() : 0;
  return [=](uint32_t s, int64_t t) {
    return better<Backward>(
      bounded ? onward<Backward>(t, std::min<int64_t>(bound[s], radius)) : t,
      dest_best);
  };
}

const std::vector<std::pair<uint32_t, double>>&
raptor::near(const coordinate& point) {
  for (auto& n : near_)
    if (n.point.lat == point.lat && n.point.lon == point.lon
        && n.radius == max_walk_)
      return n.stops;
  auto& n = near_[near_next_];
  near_next_ = (near_next_ + 1) % near_.size();
  n.point = point;
  n.radius = max_walk_;
  n.stops = tt_.stops_near(point, max_walk_);
  return n.stops;
}

template <bool Backward>
void raptor::seed_walks() {
  const auto& rq = *rq_;
  const auto& seed_point = Backward ? rq.to : rq.from;
  const auto& target_point = Backward ? rq.from : rq.to;
  // Where the journey may start and end: the stops within walking distance
  // of the points, or the stops given (at no walk) and the stops their
  // footpaths join them to (a trip from a station may change to the one
  // transfers.txt joins it to before the first ride: out of the origin's
  // stops, into the destination's).
  struct end_stop {
    uint32_t stop;
    int32_t seconds;
    int32_t meters;
    /// The stop given as the end it is joined to (none: the point, or
    /// the given stop itself).
    uint32_t via = none;
  };
  auto ends = [&](const coordinate& point, const std::vector<uint32_t>& at,
                  bool origin) {
    std::vector<end_stop> out;
    if (at.empty()) {
      for (auto [s, d] : near(point))
        out.push_back({s, walk_seconds(d),
                       static_cast<int32_t>(std::lround(d))});
      return out;
    }
    auto add = [&](uint32_t s, int32_t seconds, int32_t meters,
                   uint32_t via) {
      for (auto& e : out)
        if (e.stop == s) {
          if (seconds < e.seconds)
            e = {s, seconds, meters, via};
          return;
        }
      out.push_back({s, seconds, meters, via});
    };
    const auto& begin = origin ? tt_.out_begin : tt_.in_begin;
    const auto& list = origin ? tt_.out : tt_.in;
    for (auto s : at) {
      if (s >= tt_.stops.size())
        continue;
      add(s, 0, 0, none);
      for (auto f = begin[s]; f < begin[s + 1]; ++f)
        if (list[f].listed || list[f].meters <= max_walk_)
          add(list[f].stop, list[f].seconds, list[f].meters, s);
    }
    return out;
  };
  for (auto e : ends(seed_point, Backward ? rq.to_stops : rq.from_stops,
                     !Backward)) {
    auto s = e.stop;
    if (!stop_ok(s))
      continue;
    auto t = label_of(onward<Backward>(rq.time, e.seconds));
    ready_[s] = t;
    best_ready_[s] = t;
    ready_parent_[s] = {e.via, e.seconds, e.meters};
    marked_[s] = 1;
    marked_list_.push_back(s);
  }
  if (one_to_all_)
    return; // no target: every stop is one
  target_joined_.clear();
  wanted_.seeds.clear();
  for (auto e : ends(target_point, Backward ? rq.from_stops : rq.to_stops,
                     Backward))
    if (stop_ok(e.stop)) {
      wanted_.seeds.emplace_back(e.stop, e.seconds);
      target_walk_[e.stop] = e.seconds;
      if (e.via != none)
        target_joined_.push_back({e.stop, e.via, e.meters});
    }
  direct_meters_ = distance_m(rq.from, rq.to);
  direct_seconds_ = walk_seconds(direct_meters_);
  if (direct_meters_ <= max_walk_) {
    dest_best_ = onward<Backward>(rq.time, direct_seconds_);
    front_.push_back({0, none});
  }
}

void raptor::mark_running_patterns() {
  const auto P = static_cast<uint32_t>(queue_pos_.size());
  // The same days and layer as the search before (plan_trip's later
  // searches, most queries of an hour): the same patterns run.
  auto layer = rt_ != nullptr ? rt_->serial : 0;
  auto same_days = [this] {
    if (active_days_.size() != days_.size())
      return false;
    for (std::size_t z = 0; z < days_.size(); ++z) {
      if (active_days_[z].size() != days_[z].size())
        return false;
      for (std::size_t k = 0; k < days_[z].size(); ++k)
        if (active_days_[z][k].day != days_[z][k].day)
          return false;
    }
    return true;
  };
  if (active_.size() == P && active_layer_ == layer && same_days())
    return;
  active_days_ = days_;
  active_layer_ = layer;
  active_.assign(P, 0);
  for (uint32_t p = 0; p < first_layer_pattern_; ++p) {
    const auto& pat = tt_.patterns[p];
    const auto& zone_days = days_[pat.zone];
    for (std::size_t k = 0; k < zone_days.size(); ++k)
      if (tt_.runs_on(pat.service, zone_days[k].day)
          && !(rt_ && rt_->all_replaced(p, zone_days[k].day)))
        active_[p] |= static_cast<uint8_t>(1u << k);
  }
  // A realtime pattern runs on its one day.
  for (uint32_t p = first_layer_pattern_; p < P; ++p) {
    const auto& zone_days = days_[rt_->layer_pattern(p).zone];
    auto day = rt_->pattern_day[p - first_layer_pattern_];
    for (std::size_t k = 0; k < zone_days.size(); ++k)
      if (zone_days[k].day == day)
        active_[p] |= static_cast<uint8_t>(1u << k);
  }
  live_ = active_;
  time_dead_.clear();
  best_dead_.clear();
  time_cut_for_.valid = false;
  by_first_.clear();
  by_last_.clear();
  for (uint32_t p = 0; p < first_layer_pattern_; ++p) {
    const auto span = spans_[p];
    const auto& zone_days = days_[span.zone];
    for (unsigned b = active_[p]; b != 0; b &= b - 1) {
      const auto k = static_cast<unsigned>(__builtin_ctz(b));
      const auto bit = static_cast<uint8_t>(1u << k);
      by_first_.push_back({zone_days[k].origin + span.first, p, bit});
      by_last_.push_back({zone_days[k].origin + span.last, p, bit});
    }
  }
  auto by_time = [](const day_edge& a, const day_edge& b) {
    return a.at < b.at;
  };
  std::sort(by_first_.begin(), by_first_.end(), by_time);
  std::sort(by_last_.begin(), by_last_.end(), by_time);
  // Each stop's calls of the patterns running, where one may board and
  // where one may alight: on a day, a few of a feed's patterns run (a
  // sixth of New York's calls), and the rounds read only these.
  const auto S = tt_.stops.size();
  const bool ruled = tt_.call_rules.size() == tt_.calls.size();
  for (int way = 0; way < 2; ++way) {
    auto& list = running_calls_[way];
    auto& begin = running_begin_[way];
    const uint8_t allowed = way == 0 ? timetable::may_board
                                     : timetable::may_alight;
    auto may = [&](const pattern_stop& ps) {
      return way == 0 ? ps.pickup : ps.drop_off;
    };
    list.clear();
    begin.assign(S + 1, 0);
    for (std::size_t s = 0; s < S; ++s) {
      begin[s] = static_cast<uint32_t>(list.size());
      for (auto c = tt_.calls_begin[s]; c < tt_.calls_begin[s + 1]; ++c) {
        const auto& call = tt_.calls[c];
        if (active_[call.pattern] == 0)
          continue;
        // A timetable put together by hand may lack the rules beside its
        // calls: then they are read from the patterns' stops.
        if (ruled ? (tt_.call_rules[c] & allowed) != 0
                  : may(stops_of(call.pattern)[call.position]))
          list.push_back(call);
      }
      if (rt_ != nullptr)
        for (auto c = rt_->calls_begin[s]; c < rt_->calls_begin[s + 1]; ++c) {
          const auto& call = rt_->calls[c];
          if (active_[call.pattern] != 0
              && may(stops_of(call.pattern)[call.position]))
            list.push_back(call);
        }
    }
    begin[S] = static_cast<uint32_t>(list.size());
  }
}

// The scan's innermost steps: inlined where they are called (profiled:
// out of line they cost the search 3 % more instructions).
TRANSITD_INLINE bool raptor::usable(uint32_t p_index, const pattern& p,
                                    uint32_t r, int32_t day) const {
  if (p_index >= first_layer_pattern_) {
    auto trip = rt_->trip_of(p_index, r).trip;
    return !wheelchair_ || trip == none || tt_.trips[trip].wheelchair != 2;
  }
  if (wheelchair_
      && tt_.trips[tt_.pattern_trips[p.trips_begin + r]].wheelchair == 2)
    return false;
  return rt_ == nullptr || !rt_->replaced(p_index, r, day);
}

template <bool Backward>
TRANSITD_INLINE bool raptor::catch_trip(uint32_t p_index, const pattern& p,
                                        const stop_time* times, uint32_t i,
                                        int64_t t, unsigned days, bool held,
                                        caught& best) const {
  if (p.trip_count == 0)
    return false;
  // The trip held (in `best` until a better one replaces it).
  const uint32_t held_rank = best.rank;
  const int64_t held_origin = best.origin;
  bool have = held;
  bool found = false;
  const auto& zone_days = days_[p.zone];
  auto at_rank = [&](uint32_t r) -> const stop_time& {
    return times[r * p.stop_count + i];
  };
  // The days to look on, one bit each (a copy: the writes below could
  // alias `live_` for the compiler).
  for (unsigned bits = days; bits != 0; bits &= bits - 1) {
    const auto& day = zone_days[static_cast<std::size_t>(__builtin_ctz(bits))];
    auto rel = t - day.origin;
    // Whether trip `r` passes `i` before `t` (backward: by it); false from
    // some rank on, as trips do not overtake.
    auto before = [&](uint32_t r) {
      const auto& st = at_rank(r);
      return Backward ? st.arrival <= rel : st.departure < rel;
    };
    uint32_t floor = 0, end = p.trip_count;
    // Where the search starts: the rank caught here last (the next search
    // of a plan, the next round: mostly the same trip or one beside it).
    auto hint = hint_[p_index];
    const bool held_today = held && held_origin == day.origin;
    if (!held_today) {
      // Trips do not overtake one another: the first and last trip bound
      // what the day can offer, without searching (most days of the three
      // around the query have nothing to offer at this stop, or nothing
      // better than a day already searched). On the held trip's day its
      // neighbour below tells as much (the caller holds a trip that can
      // be caught at `t`), without reading the day's ends.
      const auto& first = at_rank(0);
      const auto& last = at_rank(p.trip_count - 1);
      if constexpr (!Backward) {
        if (last.departure < rel
            || (have && day.origin + first.departure >= best.at))
          continue;
      } else {
        if (first.arrival > rel
            || (have && day.origin + last.arrival <= best.at))
          continue;
      }
    } else {
      // The trip held rides on this day: only the trips before it
      // (backward: after it) can be better, and none is when its
      // neighbour is missed.
      if constexpr (!Backward) {
        if (held_rank == 0 || before(held_rank - 1))
          continue;
        end = held_rank;
        hint = end - 1;
      } else {
        if (held_rank + 1 == p.trip_count || !before(held_rank + 1))
          continue;
        floor = held_rank + 1;
        hint = floor;
      }
    }
    // The first rank not before: galloping from the hint brackets it in a
    // few probes (each a cache miss: times are stored trip by trip), then
    // a binary search within the bracket.
    uint32_t lo = floor, hi = end;
    if (hint >= floor && hint < end) {
      if (before(hint)) {
        lo = hint + 1;
        uint32_t step = 1;
        while (hint + step < end && before(hint + step)) {
          lo = hint + step + 1;
          step *= 2;
        }
        hi = std::min(end, hint + step);
      } else {
        hi = hint;
        uint32_t step = 1;
        while (hint >= floor + step && !before(hint - step)) {
          hi = hint - step;
          step *= 2;
        }
        lo = hint >= floor + step ? hint - step + 1 : floor;
      }
    }
    while (lo < hi) {
      auto mid = (lo + hi) / 2;
      if (before(mid))
        lo = mid + 1;
      else
        hi = mid;
    }
    if constexpr (!Backward) {
      for (auto r = lo; r < end; ++r) {
        if (!usable(p_index, p, r, day.day))
          continue;
        auto at = day.origin + at_rank(r).departure;
        if (!have || at < best.at) {
          best = caught{r, day.origin, at};
          have = found = true;
        }
        break;
      }
    } else {
      for (auto r = lo; r-- > floor;) {
        if (!usable(p_index, p, r, day.day))
          continue;
        auto at = day.origin + at_rank(r).arrival;
        if (!have || at > best.at) {
          best = caught{r, day.origin, at};
          have = found = true;
        }
        break;
      }
    }
  }
  return found;
}

template <bool Backward>
void raptor::mark_end_patterns() {
  const auto P = queue_pos_.size();
  if (ends_mark_.size() != P || ++ends_serial_ == 0) {
    ends_mark_.assign(P, 0);
    ends_serial_ = 1;
  }
  // Forward one alights at an end stop; arrive-by boards there.
  const auto& begin = running_begin_[Backward ? 0 : 1];
  const auto& list = running_calls_[Backward ? 0 : 1];
  for (auto [s, seconds] : wanted_.seeds)
    for (auto c = begin[s]; c < begin[s + 1]; ++c)
      ends_mark_[list[c].pattern] = ends_serial_;
}

template <bool Backward>
void raptor::queue_patterns(bool ends_only) {
  queued_.clear();
  // Pattern p from position pos on (backward: up to it).
  auto place = [&](uint32_t p, uint32_t pos) {
    auto& q = queue_pos_[p];
    auto& e = queue_end_[p];
    if (q == none) {
      queued_.push_back(p);
      q = pos;
      e = pos;
    } else {
      q = Backward ? std::max(q, pos) : std::min(q, pos);
      e = Backward ? std::min(e, pos) : std::max(e, pos);
    }
  };
  const auto& begin = running_begin_[Backward ? 1 : 0];
  const auto& list = running_calls_[Backward ? 1 : 0];
  // A pattern without a day left to catch a trip on is not scanned.
  const uint8_t* const live = live_.data();
  const uint32_t* const ends = ends_mark_.data();
  const uint32_t serial = ends_serial_;
  for (auto s : marked_list_) {
    marked_[s] = 0;
    for (auto c = begin[s]; c < begin[s + 1]; ++c)
      if (live[list[c].pattern] != 0
          && (!ends_only || ends[list[c].pattern] == serial))
        place(list[c].pattern, list[c].position);
  }
  marked_list_.clear();
}

template <bool Backward>
void raptor::scan_pattern(uint32_t p_index, std::size_t base,
                          std::size_t prev) {
  constexpr int64_t inf = unreached<Backward>;
  // Fixed while a pattern is scanned: held here, not re-read after every
  // label written.
  const int64_t dest_best = bound_;
  const auto& p = pattern_at(p_index);
  const auto* p_stops = stops_of(p_index);
  const auto* p_times = times_of(p_index);
  auto start = queue_pos_[p_index];
  // Where a trip may last be boarded: the last stop marked.
  auto last_boarding = queue_end_[p_index];
  queue_pos_[p_index] = none;
  // The trip ridden (when `riding`).
  caught trip{0, 0, 0};
  bool riding = false;
  uint32_t caught_at = 0;
  // Round 1 rides from the start: of the stops near it where the trip
  // ridden can be caught, it is boarded where the rider leaves latest
  // (arrive-by: arrives earliest), its time there less the walk to it.
  // Else a longer walk to an earlier stop of the same train would leave
  // before the journey a later search finds, which beats it.
  const bool first_ride = prev == 0;
  int64_t leave = unreached<!Backward>;
  auto leave_at = [&](uint32_t s, int64_t t) {
    auto walk = ready_parent_[s].seconds;
    return Backward ? t + walk : t - walk;
  };
  // The scan's state in locals: its stores (a mark is a char, which may
  // alias anything) would make the compiler read every member again.
  const int64_t origin = origin_;
  const auto hopeful = promise<Backward>(dest_best);
  // Stops not the end's answer to the next round's bound (when tighter).
  const bool split = next_bound_ != dest_best;
  const auto hopeful_next = promise<Backward>(next_bound_);
  const int32_t* const to_end = target_walk_.data();
  auto worth = [&](uint32_t s, int64_t t) {
    return !split || to_end[s] >= 0 || hopeful_next(s, t);
  };
  const bool wheelchair = wheelchair_;
  // No day left on which a trip can be caught: nothing to ride.
  const unsigned days = live_[p_index];
  if (days == 0)
    return;
  ride_label* const rides = ride_.data() + base;
  label* const best_ride = best_ride_.data();
  char* const ride_marked = ride_marked_.data();
  const label* const ready_before = ready_.data() + prev;
  auto ok = [&](uint32_t s) { return !wheelchair || stop_ok(s); };
  // Whether `t` at stop `s` beats its best ride label.
  auto earlier = [&](uint32_t s, int64_t t) {
    return better<Backward>(t - origin, int64_t{best_ride[s]});
  };
  // Stop `s` ridden to at `t` on the trip held.
  auto write = [&](uint32_t s, int64_t t) {
    const auto l = static_cast<label>(t - origin);
    rides[s] = {l, p_index, trip.rank, caught_at};
    best_ride[s] = l;
    if (!ride_marked[s]) {
      ride_marked[s] = 1;
      rode_.push_back(s);
    }
  };
  // Up to the last stop marked (backward: the first), where a trip may be
  // boarded: ride and board.
  uint32_t i = start;
  for (;; i = Backward ? i - 1 : i + 1) {
    const auto& ps = p_stops[i];
    auto s = ps.stop;
    const auto& st
      = riding ? p_times[trip.rank * p.stop_count + i] : stop_time{};
    if (riding && (Backward ? ps.pickup : ps.drop_off)) {
      auto t = trip.origin + (Backward ? st.departure : st.arrival);
      if (earlier(s, t) && hopeful(s, t) && worth(s, t) && ok(s))
        write(s, t);
    }
    if (Backward ? ps.drop_off : ps.pickup) {
      const auto ready = ready_before[s];
      const auto r = origin + ready;
      auto current
        = riding ? trip.origin + (Backward ? st.arrival : st.departure) : inf;
      if (ready != unlabelled<Backward>
          && (!riding || !better<Backward>(current, r)) && ok(s)) {
        // The trip held, or one better (on its time here).
        caught c{trip.rank, trip.origin, current};
        if (catch_trip<Backward>(p_index, p, p_times, i, r, days, riding, c)) {
          trip = c;
          riding = true;
          caught_at = i;
          hint_[p_index] = c.rank;
          if (first_ride)
            leave = leave_at(s, c.at);
        } else if (first_ride && riding) {
          // The same trip, caught here too.
          if (auto l = leave_at(s, current); better<!Backward>(l, leave)) {
            caught_at = i;
            leave = l;
          }
        }
      }
    }
    if (i == last_boarding || (Backward ? i == 0 : i + 1 == p.stop_count))
      break;
  }
  if (!riding)
    return;
  // Past it, only the trip ridden is left (no stop after has a ready time
  // of the round before), and its calls are ridden until one can no
  // longer beat the best journey: then none after can (a trip takes at
  // least the hops between its stops, and a stop's bound is at most a hop
  // plus the next stop's).
  const auto* calls = p_times + trip.rank * p.stop_count;
  const auto day = trip.origin;
  if constexpr (Backward) {
    while (i-- > 0) {
      const auto& ps = p_stops[i];
      auto t = day + calls[i].departure;
      if (!hopeful(ps.stop, t))
        break;
      if (ps.pickup && earlier(ps.stop, t) && worth(ps.stop, t)
          && ok(ps.stop))
        write(ps.stop, t);
    }
  } else {
    while (++i < p.stop_count) {
      const auto& ps = p_stops[i];
      auto t = day + calls[i].arrival;
      if (!hopeful(ps.stop, t))
        break;
      if (ps.drop_off && earlier(ps.stop, t) && worth(ps.stop, t)
          && ok(ps.stop))
        write(ps.stop, t);
    }
  }
}

template <bool Backward>
void raptor::reach_target(int32_t k, std::size_t base) {
  std::optional<found> round_best;
  for (auto s : rode_) {
    ride_marked_[s] = 0;
    if (target_walk_[s] < 0)
      continue;
    auto t = onward<Backward>(when(ride_[base + s].at), target_walk_[s]);
    if (better<Backward>(t, dest_best_)) {
      dest_best_ = t;
      round_best = found{k, s};
    }
  }
  if (round_best) {
    front_.push_back(*round_best);
    tighten_bound<Backward>(k, std::nullopt);
  }
}

void raptor::take_day(const day_edge& e,
                      std::vector<std::pair<uint32_t, uint8_t>>& taken) {
  auto& bits = live_[e.pattern];
  // Taken already (by the other end): put back with that end's list only.
  if ((bits & e.bit) == 0)
    return;
  bits = static_cast<uint8_t>(bits & ~e.bit);
  taken.emplace_back(e.pattern, e.bit);
}

void raptor::put_back(std::vector<std::pair<uint32_t, uint8_t>>& taken) {
  for (auto [p, bit] : taken)
    live_[p] = static_cast<uint8_t>(live_[p] | bit);
  taken.clear();
}

template <bool Backward>
void raptor::start_live_days() {
  put_back(best_dead_);
  best_cut_ = 0;
  // Labels lie at or after the query's time (arrive-by: at or before): a
  // day whose last call is before it (arrive-by: whose first is after)
  // has no trip to catch. What a search before took stays out when this
  // one's time is no earlier (arrive-by: no later), as a plan's later
  // searches are.
  const int64_t time = rq_->time;
  const bool keep = time_cut_for_.valid && time_cut_for_.backward == Backward
                    && (Backward ? time <= time_cut_for_.time
                                 : time >= time_cut_for_.time);
  if (!keep) {
    put_back(time_dead_);
    time_cut_ = 0;
  }
  time_cut_for_ = {true, Backward, time};
  if constexpr (Backward) {
    auto n = by_first_.size();
    while (time_cut_ < n && by_first_[n - 1 - time_cut_].at > time)
      take_day(by_first_[n - 1 - time_cut_++], time_dead_);
  } else {
    while (time_cut_ < by_last_.size() && by_last_[time_cut_].at < time)
      take_day(by_last_[time_cut_++], time_dead_);
  }
  prune_live_days<Backward>();
}

template <bool Backward>
void raptor::prune_live_days() {
  if (bound_ == unreached<Backward>)
    return;
  // A trip whose every call is at or after the bound (the best arrival,
  // or a round's cap; arrive-by: at or before it) writes no label.
  const int64_t best = bound_;
  if constexpr (Backward) {
    while (best_cut_ < by_last_.size() && by_last_[best_cut_].at <= best)
      take_day(by_last_[best_cut_++], best_dead_);
  } else {
    auto n = by_first_.size();
    while (best_cut_ < n && by_first_[n - 1 - best_cut_].at >= best)
      take_day(by_first_[n - 1 - best_cut_++], best_dead_);
  }
}

template <bool Backward>
void raptor::walk_on(std::size_t base, int64_t bound) {
  // In seconds from the query's time, as the labels: the comparisons
  // (and the bounds' sums) keep their sense when both sides shift.
  const int64_t dest_best = bound == unreached<Backward>
                              ? bound
                              : bound - origin_;
  // The loop's state in locals: its stores (a mark is a char, which may
  // alias anything) would make the compiler read every member again.
  const auto hopeful = promise<Backward>(dest_best);
  const bool wheelchair = wheelchair_;
  label* const ready = ready_.data() + base;
  label* const best_ready = best_ready_.data();
  ready_parent* const parents = ready_parent_.data() + base;
  char* const marked = marked_.data();
  // Whether `t` improves stop `u` (and can still lead somewhere).
  auto improves = [&](uint32_t u, int64_t t) {
    return better<Backward>(t, int64_t{best_ready[u]}) && hopeful(u, t)
           && (!wheelchair || stop_ok(u));
  };
  auto relax = [&](uint32_t u, int64_t t, ready_parent parent) {
    ready[u] = static_cast<label>(t);
    best_ready[u] = static_cast<label>(t);
    parents[u] = parent;
    if (!marked[u]) {
      marked[u] = 1;
      marked_list_.push_back(u);
    }
  };
  const uint32_t* begin = (Backward ? tt_.in_begin : tt_.out_begin).data();
  const footpath* list = (Backward ? tt_.in : tt_.out).data();
  const ride_label* rides = ride_.data() + base;
  const int32_t* change_seconds = tt_.change_seconds.data();

  // The rider's limit, compared with each footpath's meters as integers
  // (only when some footpath is longer: the check is most of the loop).
  const auto max_walk = static_cast<int32_t>(std::ceil(max_walk_));
  auto walk = [&](auto limited) {
    for (auto s : rode_) {
      int64_t r = rides[s].at;
      // A bound is no more than a walk plus the bound beyond it: a ride
      // label that can no longer beat the best journey (found since it
      // was written) leads nowhere on foot either.
      if (!hopeful(s, r))
        continue;
      auto change = change_seconds[s];
      if (auto t = onward<Backward>(r, change); improves(s, t))
        relax(s, t, {s, change, 0});
      for (auto f = begin[s], end = begin[s + 1]; f < end; ++f) {
        const auto& path = list[f];
        if constexpr (decltype(limited)::value)
          if (path.meters > max_walk && !path.listed)
            continue; // the rider's limit bounds walks, not the agency's own
        const int32_t seconds = path.seconds;
        auto t = onward<Backward>(r, seconds);
        if (!better<Backward>(t, dest_best))
          break; // shortest first: none after it can do better
        // The parent (and the meters in it) only for a label written.
        if (const uint32_t u = path.stop; improves(u, t))
          relax(u, t, {s, seconds, path.meters});
      }
    }
  };
  if (max_walk >= longest_walk_)
    walk(std::false_type{});
  else
    walk(std::true_type{});
}

template <bool Backward>
journey raptor::journey_of(const found& f) const {
  journey j;
  j.rides = f.rides;
  if (f.rides == 0) {
    journey_leg walk;
    walk.start = Backward ? rq_->time - direct_seconds_ : rq_->time;
    walk.end = walk.start + direct_seconds_;
    walk.meters = static_cast<int32_t>(std::lround(direct_meters_));
    j.legs.push_back(walk);
  } else {
    j.legs = Backward ? legs_backward(f) : legs_forward(f);
    tighten<Backward>(j.legs);
    drop_empty_walks(j.legs);
  }
  j.departure = j.legs.front().start;
  j.arrival = j.legs.back().end;
  return j;
}

template <bool Backward>
void raptor::tighten(std::vector<journey_leg>& legs) const {
  std::vector<std::size_t> rides;
  for (std::size_t i = 0; i < legs.size(); ++i)
    if (legs[i].transit)
      rides.push_back(i);
  if (rides.size() < 2)
    return;
  // Seconds between ride `a` and the next, `b`: the walk between them, or
  // the change at the stop.
  auto gap = [&](std::size_t a, std::size_t b) {
    if (b == a + 1)
      return static_cast<int64_t>(tt_.change_seconds[legs[a].to_stop]);
    int64_t seconds = 0;
    for (auto w = a + 1; w < b; ++w)
      seconds += legs[w].end - legs[w].start;
    return seconds;
  };
  // Forward the last ride fixes the arrival: from the one before it back
  // to the first, each ride becomes the latest trip between its stops
  // still in time for the next. Arrive-by, the first ride fixes the
  // departure, and the later rides become the earliest trips.
  for (std::size_t n = 1; n < rides.size(); ++n) {
    auto a = Backward ? rides[n - 1] : rides[rides.size() - 1 - n];
    auto b = Backward ? rides[n] : rides[rides.size() - n];
    auto& ride = legs[Backward ? b : a];
    const int64_t limit = Backward ? legs[a].end + gap(a, b)
                                   : legs[b].start - gap(a, b);
    std::optional<journey_leg> pick;
    const auto& begin = running_begin_[0];
    const auto& list = running_calls_[0];
    for (auto c = begin[ride.from_stop]; c < begin[ride.from_stop + 1]; ++c) {
      const auto q = list[c].pattern;
      const auto from = list[c].position;
      const auto& p = pattern_at(q);
      const auto* stops = stops_of(q);
      auto to = from + 1;
      while (to < p.stop_count
             && !(stops[to].stop == ride.to_stop && stops[to].drop_off))
        ++to;
      if (to == p.stop_count)
        continue;
      // Forward: the latest trip arriving by the limit; arrive-by: the
      // earliest leaving at or after it.
      caught trip{0, 0, 0};
      if (!catch_trip<!Backward>(q, p, times_of(q), Backward ? from : to,
                                 limit, active_[q], false, trip))
        continue;
      auto leg = transit_leg(q, trip.rank, trip.origin, from, to);
      const auto& than = pick ? *pick : ride;
      if (Backward ? than.end > leg.end : leg.start > than.start)
        pick = leg;
    }
    if (!pick)
      continue;
    ride = *pick;
    // The walks after it start where it arrives; before the first ride,
    // the access walk ends where it leaves.
    auto follow = [&](std::size_t w) {
      auto d = legs[w].end - legs[w].start;
      legs[w].start = legs[w - 1].end;
      legs[w].end = legs[w].start + d;
    };
    if constexpr (!Backward) {
      for (auto w = a + 1; w < b; ++w)
        follow(w);
      if (a == rides.front())
        for (auto w = a; w-- > 0;) {
          auto d = legs[w].end - legs[w].start;
          legs[w].end = legs[w + 1].start;
          legs[w].start = legs[w].end - d;
        }
    } else {
      auto next = n + 1 < rides.size() ? rides[n + 1] : legs.size();
      for (auto w = b + 1; w < next; ++w)
        follow(w);
    }
  }
}

std::vector<journey_leg> raptor::legs_forward(const found& f) const {
  const auto S = tt_.stops.size();
  auto at = [S](int32_t round, uint32_t stop) {
    return static_cast<std::size_t>(round) * S + stop;
  };
  std::vector<journey_leg> legs;
  auto cur = f.stop;
  journey_leg egress;
  egress.from_stop = cur;
  egress.start = when(ride_[at(f.rides, cur)].at);
  egress.end = egress.start + target_walk_[cur];
  // At a stop given as the end no walk; beside one, about the footpath.
  egress.meters = rq_->to_stops.empty() || target_walk_[cur] > 0
                    ? meters_to(tt_, cur, rq_->to)
                    : 0;
  // Beside a stop given as the end: the change to it is its own leg, to
  // that stop (as the backward search's last change), however short.
  for (const auto& j : target_joined_)
    if (j.stop == cur) {
      egress.to_stop = j.given;
      egress.meters = j.meters;
      break;
    }
  legs.push_back(egress);
  for (auto r = f.rides; r >= 1; --r) {
    auto ride = ride_leg<false>(ride_[at(r, cur)], cur);
    auto board = ride.from_stop;
    legs.push_back(ride);
    const auto& qp = ready_parent_[at(r - 1, board)];
    if (r == 1) {
      journey_leg access;
      access.from_stop = qp.stop; // the origin's stop it changes from
      access.to_stop = board;
      access.end = ride.start;
      access.start = ride.start - qp.seconds;
      access.meters = qp.meters;
      legs.push_back(access);
      break;
    }
    if (qp.stop != board) {
      journey_leg walk;
      walk.from_stop = qp.stop;
      walk.to_stop = board;
      walk.start = when(ride_[at(r - 1, qp.stop)].at);
      walk.end = walk.start + qp.seconds;
      walk.meters = qp.meters;
      legs.push_back(walk);
    }
    cur = qp.stop;
  }
  return {legs.rbegin(), legs.rend()};
}

std::vector<journey_leg> raptor::legs_backward(const found& f) const {
  const auto S = tt_.stops.size();
  auto at = [S](int32_t round, uint32_t stop) {
    return static_cast<std::size_t>(round) * S + stop;
  };
  std::vector<journey_leg> legs;
  auto cur = f.stop;
  journey_leg access;
  access.to_stop = cur;
  access.end = when(ride_[at(f.rides, cur)].at);
  access.start = access.end - target_walk_[cur];
  access.meters
    = rq_->from_stops.empty() || target_walk_[cur] > 0
        ? meters_to(tt_, cur, rq_->from)
        : 0;
  // Beside a stop given as the start: the change from it is its own leg.
  for (const auto& j : target_joined_)
    if (j.stop == cur) {
      access.from_stop = j.given;
      access.meters = j.meters;
      break;
    }
  legs.push_back(access);
  for (auto r = f.rides; r >= 1; --r) {
    // Backward, the label is where the trip was boarded.
    auto ride = ride_leg<true>(ride_[at(r, cur)], cur);
    auto alight = ride.to_stop;
    legs.push_back(ride);
    const auto& qp = ready_parent_[at(r - 1, alight)];
    if (r == 1) {
      journey_leg egress;
      egress.from_stop = alight;
      egress.to_stop = qp.stop; // the destination's stop it changes to
      egress.start = ride.end;
      egress.end = ride.end + qp.seconds;
      egress.meters = qp.meters;
      legs.push_back(egress);
      break;
    }
    if (qp.stop != alight) {
      journey_leg walk;
      walk.from_stop = alight;
      walk.to_stop = qp.stop;
      walk.start = ride.end;
      walk.end = ride.end + qp.seconds;
      walk.meters = qp.meters;
      legs.push_back(walk);
    }
    cur = qp.stop;
  }
  return legs;
}

template std::vector<journey> raptor::run<false>(const journey_request&);
template std::vector<journey> raptor::run<true>(const journey_request&);

namespace {

bool same_journey(const journey& a, const journey& b) {
  if (a.legs.size() != b.legs.size())
    return false;
  for (std::size_t i = 0; i < a.legs.size(); ++i) {
    const auto& x = a.legs[i];
    const auto& y = b.legs[i];
    if (x.transit != y.transit || x.from_stop != y.from_stop
        || x.to_stop != y.to_stop
        || (x.transit && (x.start != y.start || x.pattern != y.pattern
                          || x.trip_rank != y.trip_rank)))
      return false;
  }
  return true;
}

/// Where a journey ends for the plan's rules: its arrival (arrive-by: its
/// departure).
int64_t end_of(const journey& j, bool arrive_by) {
  return arrive_by ? j.departure : j.arrival;
}

/// The fastest of `all`: the earliest arrival (arrive-by: the latest
/// departure), then the fewest rides.
const journey& fastest_of(const std::vector<journey>& all, bool arrive_by) {
  return *std::min_element(
    all.begin(), all.end(), [arrive_by](const journey& a, const journey& b) {
      auto ka = arrive_by ? -a.departure : a.arrival;
      auto kb = arrive_by ? -b.departure : b.arrival;
      return ka != kb ? ka < kb : a.rides < b.rides;
    });
}

/// Whether `j` leaves (arrive-by: arrives) within `later_search_window`
/// of the asked time.
bool in_window(const journey& j, const journey_request& request) {
  return request.arrive_by
           ? j.arrival >= request.time - later_search_window
           : j.departure <= request.time + later_search_window;
}

} // namespace

int64_t fewer_rides_slack(const journey& fastest) {
  auto duration = fastest.arrival - fastest.departure;
  return std::max<int64_t>(fewer_rides_slack_min, duration / 2);
}

void drop_unworthy(std::vector<journey>& all, bool arrive_by) {
  if (all.empty())
    return;
  auto fastest = fastest_of(all, arrive_by);
  auto slack = fewer_rides_slack(fastest);
  all.erase(std::remove_if(all.begin(), all.end(),
                           [&](const journey& j) {
                             if (j.rides >= fastest.rides)
                               return false;
                             auto extra = arrive_by
                                            ? fastest.departure - j.departure
                                            : j.arrival - fastest.arrival;
                             return extra > slack;
                           }),
            all.end());
}

void drop_dominated(std::vector<journey>& all, int64_t ride_worth) {
  auto beats = [ride_worth](const journey& k, const journey& j) {
    if (k.rides > j.rides)
      return false;
    // What the rides k saves are worth, in time on either end.
    const auto worth = ride_worth * (j.rides - k.rides);
    return k.departure >= j.departure - worth && k.arrival <= j.arrival + worth
           && (k.departure > j.departure || k.arrival < j.arrival
               || k.rides < j.rides);
  };
  std::vector<journey> kept;
  kept.reserve(all.size());
  for (auto& j : all)
    if (std::none_of(all.begin(), all.end(),
                     [&](const journey& k) { return beats(k, j); }))
      kept.push_back(std::move(j));
  all = std::move(kept);
}

// Cut off by a guess first: the rounds before a search first reaches the
// end prune by nothing else, and they cost the most on a city's network.
std::vector<journey> plan_first_search(raptor& router,
                                       const journey_request& request,
                                       journey_request::cutoff_guess guess) {
  auto rq = request;
  const bool back = rq.arrive_by;
  rq.cutoff.reset();
  rq.guess = guess;
  auto found = router.route(rq);
  auto guessed = router.cutoff_used();
  rq.guess = {};
  if (found.empty() && guessed) {
    found = router.route(rq);
    guessed.reset();
  }
  if (found.empty())
    return found;
  const auto& fastest = fastest_of(found, back);
  if (!in_window(fastest, rq))
    return guessed ? router.route(rq) : found;
  const auto slack = fewer_rides_slack(fastest) + 1;
  const int64_t limit
    = back ? fastest.departure - slack : fastest.arrival + slack;
  auto beyond = [&](const journey& j) {
    return back ? end_of(j, back) <= limit : end_of(j, back) >= limit;
  };
  if (guessed && (back ? *guessed > limit : *guessed < limit)) {
    // The guess fell short of the slack. Every journey beating the guess
    // was found, so with as many rides as the fewest found or more, the
    // Pareto set is complete: the best of those beats the guess. Only
    // fewer rides may end between the guess and the limit, and a round
    // depends on none after it: the search again runs their rounds alone.
    const auto fewest
      = std::min_element(found.begin(), found.end(),
                         [](const journey& a, const journey& b) {
                           return a.rides < b.rides;
                         })
          ->rides;
    rq.cutoff = limit;
    rq.max_transfers = std::min(rq.max_transfers, fewest - 2);
    auto fewer = router.route(rq);
    fewer.erase(std::remove_if(fewer.begin(), fewer.end(),
                               [fewest](const journey& j) {
                                 return j.rides >= fewest;
                               }),
                fewer.end());
    found.insert(found.end(), fewer.begin(), fewer.end());
    std::sort(found.begin(), found.end(), arrives_first);
  }
  found.erase(std::remove_if(found.begin(), found.end(), beyond),
              found.end());
  return found;
}

std::vector<journey> plan_journeys(raptor& router,
                                   const journey_request& request,
                                   std::size_t count, int64_t ride_worth) {
  std::vector<journey> all;
  // Every journey the searches gave (the first: within the fastest's
  // slack), whether kept or not: ridden again from a later search's time
  // and labels, each bounds it (see journey_request::known).
  std::vector<journey> known;
  auto rq = request;
  rq.known = &known;
  for (int search = 0; search < 4 && all.size() < count; ++search) {
    if (request.stop && request.stop->load(std::memory_order_relaxed))
      return {};
    auto found
      = search == 0 ? plan_first_search(router, rq) : router.route(rq);
    known.insert(known.end(), found.begin(), found.end());
    std::optional<int64_t> next;
    for (auto& j : found) {
      if (j.rides == 0 && search > 0)
        continue; // the walk is the same at any time
      // No itinerary leaves more than the window after the asked time
      // (arrive-by: arrives more than it before), whichever search found
      // it: a ride at 01:00 the next night is no answer to 07:16.
      if (!in_window(j, request))
        continue;
      if (j.rides > 0) {
        auto t = rq.arrive_by ? j.arrival - 60 : j.departure + 60;
        if (!next || (rq.arrive_by ? t > *next : t < *next))
          next = t;
      }
      if (std::none_of(all.begin(), all.end(), [&](const journey& k) {
            return same_journey(k, j);
          }))
        all.push_back(std::move(j));
    }
    drop_unworthy(all, request.arrive_by);
    drop_dominated(all, ride_worth);
    if (!next)
      break;
    rq.time = *next;
  }
  if (request.arrive_by)
    std::sort(all.begin(), all.end(), [](const journey& a, const journey& b) {
      return a.departure != b.departure ? a.departure > b.departure
                                        : a.arrival < b.arrival;
    });
  else
    std::sort(all.begin(), all.end(), arrives_first);
  if (all.size() > count)
    all.resize(count);
  std::sort(all.begin(), all.end(), arrives_first);
  return all;
}

} // namespace transitd::gtfs
