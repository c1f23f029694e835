#include "transitd/offline/gtfs_rt_trip.hpp"

#include <algorithm>
#include <optional>

namespace transitd::gtfs_rt {

namespace {

/// Delays beyond two days are no prediction anyone means; clamping keeps
/// every sum below in range whatever a feed sends.
constexpr int64_t max_delay = 2 * 86400;

int32_t clamp_delay(int64_t delay) {
  return static_cast<int32_t>(std::clamp(delay, -max_delay, max_delay));
}

/// The delay an event gives against `scheduled` (seconds since the day's
/// origin), if it gives one: its absolute time wins over its delay.
std::optional<int32_t> delay_of(const std::optional<stop_time_event>& event,
                                int32_t scheduled, int64_t day_origin) {
  if (!event)
    return std::nullopt;
  if (event->time) {
    // Compared before subtracting: a time near either end of int64 must
    // not overflow.
    auto time = *event->time;
    if (time > day_origin + 10 * max_delay + scheduled
        || time < day_origin - 10 * max_delay + scheduled)
      return clamp_delay(time > day_origin ? max_delay : -max_delay);
    return clamp_delay(time - day_origin - scheduled);
  }
  if (event->delay_s)
    return clamp_delay(*event->delay_s);
  return std::nullopt;
}

bool applies_to_schedule(trip_relationship r) {
  return r == trip_relationship::scheduled;
}

} // namespace

applied_trip apply(const trip_update& update,
                   const std::vector<scheduled_call>& schedule,
                   int64_t day_origin) {
  applied_trip out;
  out.calls.reserve(schedule.size());
  for (const auto& call : schedule)
    out.calls.push_back(realtime_call{call.arrival, call.departure, 0, 0,
                                      call_status::scheduled});
  if (update.trip.relationship == trip_relationship::canceled
      || update.trip.relationship == trip_relationship::deleted) {
    out.cancelled = true;
    for (auto& call : out.calls)
      call.status = call_status::cancelled;
    return out;
  }
  // ADDED, NEW, REPLACEMENT, DUPLICATED and UNSCHEDULED trips do not run
  // on this schedule (or not at its times): nothing to apply it to.
  if (!applies_to_schedule(update.trip.relationship)) {
    out.applicable = false;
    return out;
  }
  // Which call each update belongs to, in the order given (the format
  // requires updates sorted by stop_sequence; a stable sort keeps "the
  // last of two for one call wins" true whatever they send).
  bool by_sequence_sorted = std::is_sorted(
    schedule.begin(), schedule.end(),
    [](const auto& a, const auto& b) { return a.stop_sequence < b.stop_sequence; });
  std::vector<std::pair<std::size_t, const stop_time_update*>> matched;
  std::size_t cursor = 0;
  for (const auto& stop : update.stops) {
    std::size_t found = schedule.size();
    if (stop.stop_sequence) {
      if (by_sequence_sorted) {
        auto it = std::lower_bound(
          schedule.begin(), schedule.end(), *stop.stop_sequence,
          [](const scheduled_call& c, uint32_t s) { return c.stop_sequence < s; });
        if (it != schedule.end() && it->stop_sequence == *stop.stop_sequence)
          found = static_cast<std::size_t>(it - schedule.begin());
      } else {
        for (std::size_t i = 0; i < schedule.size(); ++i)
          if (schedule[i].stop_sequence == *stop.stop_sequence) {
            found = i;
            break;
          }
      }
    }
    // A sequence naming another stop than the update's stop_id (feeds do
    // this, BART's among them): the stop is what riders see, so it wins.
    if (found != schedule.size() && !stop.stop_id.empty()
        && schedule[found].stop_id != stop.stop_id)
      found = schedule.size();
    if (found == schedule.size() && !stop.stop_id.empty()) {
      for (std::size_t i = cursor; i < schedule.size(); ++i)
        if (schedule[i].stop_id == stop.stop_id) {
          found = i;
          break;
        }
    }
    if (found == schedule.size()) {
      ++out.unmatched;
      continue;
    }
    cursor = found + 1;
    matched.emplace_back(found, &stop);
  }
  std::stable_sort(matched.begin(), matched.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });

  // The delay passed on to calls without an update of their own; before
  // the first update, the trip-level delay if any.
  std::optional<int32_t> delay;
  if (update.delay_s)
    delay = clamp_delay(*update.delay_s);
  std::size_t next = 0;
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    auto& call = out.calls[i];
    const auto& planned = schedule[i];
    const stop_time_update* stop = nullptr;
    while (next < matched.size() && matched[next].first == i)
      stop = matched[next++].second; // two for one call: the last wins
    std::optional<int32_t> arrival;
    std::optional<int32_t> departure;
    bool arrival_given = false;
    bool departure_given = false;
    if (stop) {
      if (stop->relationship == stop_relationship::skipped) {
        // Not served; the delay so far carries on past it, unchanged.
        call.status = call_status::skipped;
        if (delay) {
          call.arrival_delay = call.departure_delay = *delay;
          call.arrival = planned.arrival + *delay;
          call.departure = planned.departure + *delay;
        }
        continue;
      }
      arrival = delay_of(stop->arrival, planned.arrival, day_origin);
      departure = delay_of(stop->departure, planned.departure, day_origin);
      if (stop->relationship == stop_relationship::no_data
          || (!arrival && !departure)) {
        // NO_DATA, or an update of unspecified delay: no prediction here
        // nor after, until the next update that has one.
        delay.reset();
        call.status = call_status::no_data;
        continue;
      }
      arrival_given = arrival.has_value();
      departure_given = departure.has_value();
      if (!arrival)
        // A departure-only update: the vehicle arrives no later than it
        // leaves, and no later than the delay it carried.
        arrival = delay ? std::min(*delay, *departure) : *departure;
      if (!departure)
        departure = *arrival;
    } else if (delay) {
      arrival = departure = *delay;
    } else {
      continue; // no prediction: the schedule stands
    }
    int32_t arrive = planned.arrival + *arrival;
    int32_t leave = planned.departure + *departure;
    // A vehicle never leaves before it arrives: the inferred side yields.
    if (leave < arrive) {
      if (departure_given && !arrival_given)
        arrive = leave;
      else
        leave = arrive;
    }
    call.arrival = arrive;
    call.departure = leave;
    call.arrival_delay = arrive - planned.arrival;
    call.departure_delay = leave - planned.departure;
    call.status = call_status::predicted;
    delay = call.departure_delay; // what the next calls inherit
  }
  return out;
}

} // namespace transitd::gtfs_rt
