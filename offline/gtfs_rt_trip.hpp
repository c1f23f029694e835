#pragma once
// One trip's realtime times: a GTFS-realtime trip update applied to the
// trip's scheduled calls by the specification's propagation rules. Pure
// (no timetable, no clock), so each rule is unit-tested on its own.
//
//  - An update matches a call by stop_sequence, else by stop_id (the first
//    call at that stop after the last one matched); one matching nothing is
//    counted, not applied. When both are given and the sequence names
//    another stop, the stop_id wins.
//  - An event's absolute time wins; else the scheduled time plus its delay
//    (clamped to two days either way). A departure without its own event
//    keeps the arrival's delay; an arrival without one is the earlier of
//    the delay carried so far and the departure's.
//  - The departure delay of an update propagates to every later call until
//    the next update. A vehicle never leaves before it arrives: the side
//    the feed did not give yields.
//  - SKIPPED: the call is not served; the delay carried so far passes it
//    unchanged (it never creates one).
//  - NO_DATA, or an update with neither event ("unspecified delay", the
//    reference's example 2): no prediction for the call, nor for those
//    after it until the next update with data.
//  - Calls before the first update keep their schedule (no prediction),
//    unless the update has a trip-level delay, which then applies to all.
//  - A CANCELED (or DELETED) trip serves no call. ADDED, NEW, REPLACEMENT,
//    DUPLICATED and UNSCHEDULED trips do not run on the schedule's times:
//    the result is marked not applicable.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "transitd/offline/gtfs_rt.hpp"

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
  /// False when the trip does not run on this schedule (ADDED, NEW,
  /// REPLACEMENT, DUPLICATED, UNSCHEDULED): `calls` is the schedule.
  bool applicable = true;
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
