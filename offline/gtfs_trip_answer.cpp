#include "transitd/offline/gtfs_network.hpp"

#include <algorithm>

#include <date/date.h>

#include "transitd/offline/gtfs_answers.hpp"
#include "transitd/util/polyline.hpp"

namespace transitd::gtfs {

namespace {

/// The day a trip of pattern `p` (rank `r`) runs nearest `time`: under
/// way then, else the next to start (within a week), else the last.
std::optional<int32_t> nearest_run(const timetable& tt, const pattern& p,
                                   uint32_t r, int64_t time) {
  auto first = tt.time_at(p, r, 0).departure;
  auto last = tt.time_at(p, r, p.stop_count - 1).arrival;
  std::optional<int32_t> next;
  std::optional<int32_t> before;
  auto today = static_cast<int32_t>((time - tt.origin(p.zone, 0)) / 86400);
  for (int32_t d = today - 8; d <= today + 8; ++d) {
    if (!tt.runs_on(p.service, d))
      continue;
    auto origin = tt.origin(p.zone, d);
    if (origin + first <= time && time <= origin + last)
      return d;
    if (origin + first > time) {
      if (!next)
        next = d;
    } else {
      before = d;
    }
  }
  return next ? next : before;
}

failure unknown_trip(const timetable& tt, std::string_view id) {
  return make_failure(ec::validation_error,
                      "trip \"" + std::string{id} + "\" is not a trip of feed "
                        + tt.name,
                      "take a tripId from get_departures or plan_trip (this "
                      "feed's look like " + tt.name + ":"
                        + (tt.trips.empty() ? std::string{"..."}
                                            : tt.trips.front().id)
                        + ")");
}

} // namespace

std::optional<int32_t> day_of_origin(const timetable& tt, uint16_t zone,
                                     int64_t origin) {
  auto guess = static_cast<int32_t>((origin - tt.origin(zone, 0)) / 86400);
  for (auto d = guess - 1; d <= guess + 1; ++d)
    if (d >= -1 && d <= tt.day_count && tt.origin(zone, d) == origin)
      return d;
  return std::nullopt;
}

std::string service_date_of(const timetable& tt, int32_t day) {
  return date::format("%F", date::sys_days{date::days{tt.first_day + day}});
}

outcome<trip_details> trip_of(const timetable& tt, const realtime_layer* rt,
                              const trip_query& query) {
  if (rt != nullptr && rt->base.get() != &tt)
    rt = nullptr;
  auto prefix = tt.name + ":";
  if (query.trip_id.compare(0, prefix.size(), prefix) != 0)
    return unknown_trip(tt, query.trip_id);
  auto local = std::string_view{query.trip_id}.substr(prefix.size());
  auto t = tt.find_trip(local);
  if (!t || tt.trip_pattern[*t] == none)
    return unknown_trip(tt, query.trip_id);
  auto p_index = tt.trip_pattern[*t];
  auto rank = tt.trip_rank[*t];
  const auto& p = tt.patterns[p_index];
  std::optional<int32_t> day;
  if (query.service_day) {
    day = *query.service_day - tt.first_day;
    if (!tt.runs_on(p.service, *day))
      return make_failure(
        ec::validation_error,
        "trip \"" + query.trip_id + "\" does not run on "
          + date::format("%F", date::sys_days{date::days{*query.service_day}}),
        "leave serviceDate out for its run nearest now, or take the "
        "serviceDate get_departures gives with the tripId");
  } else {
    day = nearest_run(tt, p, rank, query.time);
    if (!day)
      return make_failure(ec::data_not_available,
                          "trip \"" + query.trip_id
                            + "\" runs on no day within a week of now",
                          "give its serviceDate");
  }
  const auto& trip = tt.trips[*t];
  trip_details out;
  out.trip_id = query.trip_id;
  out.service_date = service_date_of(tt, *day);
  out.route_id = prefix + tt.routes[trip.route].id;
  out.line = std::string{tt.line_name(trip.route)};
  out.mode = tt.routes[trip.route].mode;
  out.headsign = std::string{tt.headsign(p_index, rank)};
  out.color = tt.routes[trip.route].color;
  out.text_color = tt.routes[trip.route].text_color;
  out.path = trip_path(tt, *t, 0, p.stop_count - 1, max_trip_points);
  out.timezone = tt.zones[p.zone];
  auto origin = tt.origin(p.zone, *day);
  const rt_trip* live = rt ? rt->find(*t, *day) : nullptr;
  if (live)
    out.state = live->cancelled ? "cancelled" : "running";
  for (uint32_t pos = 0; pos < p.stop_count; ++pos) {
    const auto& ps = tt.pattern_stops[p.stops_begin + pos];
    const auto& st = tt.stops[ps.stop];
    trip_call call;
    call.stop_id = prefix + st.id;
    call.stop_name = st.name;
    call.position = st.position;
    if (!st.platform_code.empty())
      call.platform = st.platform_code;
    call.scheduled_arrival = origin + tt.time_at(p, rank, pos).arrival;
    call.scheduled_departure = origin + tt.time_at(p, rank, pos).departure;
    call.pickup = ps.pickup;
    call.drop_off = ps.drop_off;
    if (live && live->cancelled) {
      call.skipped = true;
    } else if (live && live->pattern != none) {
      auto at = rt->call_of(*live, pos);
      if (rt->status[at] == gtfs_rt::call_status::skipped) {
        call.skipped = true;
      } else if (rt->status[at] == gtfs_rt::call_status::predicted) {
        call.realtime_arrival = live->origin + rt->times[at].arrival;
        call.realtime_departure = live->origin + rt->times[at].departure;
      }
    }
    out.calls.push_back(std::move(call));
  }
  if (rt) {
    out.realtime_ms = rt->newest * 1000;
    // The vehicle on this run: its trip named, and the day when given.
    auto date = date::format("%Y%m%d",
                             date::sys_days{date::days{tt.first_day + *day}});
    for (const auto& v : rt->vehicles)
      if (v.trip && v.trip->trip_id == local
          && (v.trip->start_date.empty() || v.trip->start_date == date)
          && v.lat && v.lon)
        out.vehicle = report_of(tt, *rt, v);
  }
  return out;
}

} // namespace transitd::gtfs
