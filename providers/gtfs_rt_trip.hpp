#pragma once
// One trip's realtime times: a GTFS-realtime trip update applied to the
// trip's scheduled calls by the specification's propagation rules. Pure
// (no timetable, no clock), so each rule is unit-tested on its own.
//
//  - An update matches a call by stop_sequence, else by stop_id (the first
//    call at that stop after the last one matched); one matching nothing is
//    counted, not applied.
//  - An event's absolute time wins; else the scheduled time plus its delay.
//    A departure without its own event keeps the arrival's delay (and an
//    arrival without one takes the delay propagated so far).
//  - The delay of an update propagates to every later call until the next
//    update; an update with neither event sets it to zero (on time).
//  - SKIPPED: the call is not served; the delay propagates past it.
//  - NO_DATA: no prediction for the call, nor for those after it until the
//    next update with data.
//  - Calls before the first update keep their schedule (no prediction),
//    unless the update has a trip-level delay, which then applies to all.
//  - A CANCELED trip serves no call.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "providers/gtfs_rt.hpp"

namespace transitd::gtfs_rt {

/// A call as the timetable has it: seconds since the service day's origin.
struct scheduled_call {
  uint32_t stop_sequence = 0;
  std::string stop_id;
  int32_t arrival = 0;
  int32_t departure = 0;
};

enum class call_status : uint8_t {
  /// No prediction: the schedule stands.
  scheduled,
  /// Realtime times below.
  predicted,
  /// The vehicle will not stop here.
  skipped,
  /// The feed says it has no data for this call.
  no_data,
  /// The whole trip is cancelled.
  cancelled,
};

struct realtime_call {
  /// Seconds since the service day's origin (the schedule's when not
  /// predicted).
  int32_t arrival = 0;
  int32_t departure = 0;
  int32_t arrival_delay = 0;
  int32_t departure_delay = 0;
  call_status status = call_status::scheduled;
};

struct applied_trip {
  std::vector<realtime_call> calls;
  bool cancelled = false;
  /// Stop time updates that matched no call.
  std::size_t unmatched = 0;
};

/// `update` applied to `schedule` (the trip's calls in order);
/// `day_origin` is the service day's origin in seconds since the epoch
/// (absolute times in the feed are converted with it).
applied_trip apply(const trip_update& update,
                   const std::vector<scheduled_call>& schedule,
                   int64_t day_origin);

} // namespace transitd::gtfs_rt
