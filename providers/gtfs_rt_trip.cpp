#include "providers/gtfs_rt_trip.hpp"

#include <algorithm>
#include <limits>
#include <optional>

namespace transitd::gtfs_rt {

namespace {

/// Seconds since the day's origin of an absolute time, clamped to int32.
int32_t since_origin(int64_t time, int64_t day_origin) {
  auto s = time - day_origin;
  s = std::clamp<int64_t>(s, std::numeric_limits<int32_t>::min() / 2,
                          std::numeric_limits<int32_t>::max() / 2);
  return static_cast<int32_t>(s);
}

/// The delay an event gives against `scheduled`, if it gives one.
std::optional<int32_t> delay_of(const std::optional<stop_time_event>& event,
                                int32_t scheduled, int64_t day_origin) {
  if (!event)
    return std::nullopt;
  if (event->time)
    return since_origin(*event->time, day_origin) - scheduled;
  if (event->delay_s)
    return *event->delay_s;
  return std::nullopt;
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
  // Which call each update belongs to (index into schedule), in order.
  std::vector<std::pair<std::size_t, const stop_time_update*>> matched;
  std::size_t cursor = 0;
  for (const auto& stop : update.stops) {
    std::size_t found = schedule.size();
    if (stop.stop_sequence) {
      for (std::size_t i = 0; i < schedule.size(); ++i)
        if (schedule[i].stop_sequence == *stop.stop_sequence) {
          found = i;
          break;
        }
    } else if (!stop.stop_id.empty()) {
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
  std::sort(matched.begin(), matched.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });

  // Before the first update: the trip-level delay, if any, else nothing.
  std::optional<int32_t> delay = update.delay_s;
  std::size_t next = 0;
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    auto& call = out.calls[i];
    const auto& planned = schedule[i];
    const stop_time_update* stop = nullptr;
    while (next < matched.size() && matched[next].first == i)
      stop = matched[next++].second; // a repeated match: the last wins
    if (stop) {
      if (stop->relationship == stop_relationship::no_data) {
        delay.reset();
        call.status = call_status::no_data;
        continue;
      }
      auto arrival = delay_of(stop->arrival, planned.arrival, day_origin);
      auto departure
        = delay_of(stop->departure, planned.departure, day_origin);
      if (!arrival && !departure) {
        // A served stop without events is on time from here; a skipped
        // one passes the delay on.
        bool on_time = !stop->arrival && !stop->departure
                       && stop->relationship == stop_relationship::scheduled;
        arrival = departure = on_time ? 0 : delay.value_or(0);
      }
      if (!arrival)
        arrival = delay.value_or(*departure);
      if (!departure)
        departure = *arrival;
      call.arrival_delay = *arrival;
      call.departure_delay = *departure;
      delay = *departure; // what the next calls inherit
      call.status = stop->relationship == stop_relationship::skipped
                      ? call_status::skipped
                      : call_status::predicted;
    } else if (delay) {
      call.arrival_delay = *delay;
      call.departure_delay = *delay;
      call.status = call_status::predicted;
    } else {
      continue; // no prediction
    }
    call.arrival = planned.arrival + call.arrival_delay;
    call.departure = planned.departure + call.departure_delay;
    // A departure never precedes its arrival.
    call.departure = std::max(call.departure, call.arrival);
  }
  return out;
}

} // namespace transitd::gtfs_rt
