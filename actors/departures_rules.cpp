#include "transitd/actors/departures_rules.hpp"

#include <algorithm>
#include <string>

#include "transitd/messages/time.hpp"

namespace transitd {

std::optional<failure> validate(const get_departures_request& request) {
  const auto& stop = request.stop;
  if (stop.value.empty())
    return make_failure(ec::validation_error,
                        stop.type == stop_ref::kind::id
                          ? "stop id missing: stop.value must be a non-empty "
                            "stop id such as \"HSL:1040129\""
                          : "stop label missing: stop.value must name a saved "
                            "stop");
  if (auto bad = check_range("window_minutes", request.window_minutes,
                             departures_window))
    return bad;
  if (auto bad = check_range("limit", request.limit, departures_limit))
    return bad;
  return check_language("language", request.language);
}

stop_departures_query make_query(const get_departures_request& request,
                                 int64_t now_seconds) {
  stop_departures_query query;
  query.context = request.context;
  query.stop_id = request.stop.value;
  query.start_time = now_seconds;
  query.time_range_seconds = request.window_minutes * 60;
  // Ask for more than the limit so that truncation can be detected (rule 5)
  // and departures dropped by the window (D8) do not starve the answer.
  query.max_departures = std::min(request.limit * 2 + 10, 110);
  query.language = request.language;
  return query;
}

namespace {

bool has_realtime(const stop_time& time) {
  return time.realtime && !time.cancelled;
}

int64_t effective_time(const stop_time& time) {
  return has_realtime(time) ? time.realtime_departure
                            : time.scheduled_departure;
}

} // namespace

departure_status classify_status(bool cancelled,
                                 std::optional<int64_t> delay_seconds) {
  if (cancelled)
    return departure_status::cancelled;
  if (!delay_seconds)
    return departure_status::scheduled_only;
  if (*delay_seconds > on_time_tolerance_seconds
      || *delay_seconds < -on_time_tolerance_seconds)
    return departure_status::delayed;
  return departure_status::on_time;
}

departure_status classify(const stop_time& time) {
  return classify_status(time.cancelled,
                         time.realtime ? std::optional<int64_t>{
                           time.realtime_departure - time.scheduled_departure}
                                       : std::nullopt);
}

get_departures_reply build_departures_board(
  const get_departures_request& request, const stop_departures& upstream,
  int64_t now_seconds) {
  get_departures_reply reply;
  reply.stop_id = upstream.stop_id.empty() ? request.stop.value
                                           : upstream.stop_id;
  reply.stop_name = upstream.stop_name;
  reply.correlation_id = request.context.correlation_id;
  // D8: keep what departs (effective time) within the window.
  auto window_end = now_seconds + int64_t{request.window_minutes} * 60;
  std::vector<const stop_time*> kept;
  kept.reserve(upstream.stop_times.size());
  for (const auto& time : upstream.stop_times) {
    auto at = effective_time(time);
    if (at >= now_seconds && at <= window_end)
      kept.push_back(&time);
  }
  // Rule 4: ascending by realtime else scheduled; ties stay deterministic.
  std::stable_sort(kept.begin(), kept.end(),
                   [](const stop_time* a, const stop_time* b) {
                     auto ta = effective_time(*a);
                     auto tb = effective_time(*b);
                     if (ta != tb)
                       return ta < tb;
                     return a->scheduled_departure < b->scheduled_departure;
                   });
  // Rule 3 looks at everything the window kept, before truncation.
  reply.realtime_used = std::any_of(kept.begin(), kept.end(),
                                    [](const stop_time* t) {
                                      return t->realtime || t->cancelled;
                                    });
  // The provider's own (a stale realtime source).
  reply.warnings = upstream.warnings;
  // Rule 5.
  if (kept.size() > static_cast<std::size_t>(request.limit)) {
    reply.warnings.push_back(
      {"truncated-results", std::to_string(kept.size())
                              + " departures in the window, returning the "
                                "first "
                              + std::to_string(request.limit)});
    kept.resize(static_cast<std::size_t>(request.limit));
  }
  reply.departures.reserve(kept.size());
  for (const auto* time : kept) {
    departure out;
    out.line = time->line;
    out.mode = time->mode;
    out.destination = time->headsign;
    out.scheduled_time = format_in_zone(time->scheduled_departure,
                                        upstream.timezone);
    if (has_realtime(*time)) {
      out.realtime_time = format_in_zone(time->realtime_departure,
                                         upstream.timezone);
      // Rule 1; a prediction without a timetable claims no delay (D23).
      if (!time->prediction_only)
        out.delay_seconds = static_cast<int32_t>(time->realtime_departure
                                                 - time->scheduled_departure);
    }
    out.status = classify(*time);
    out.platform = time->platform;
    if (!time->trip_id.empty())
      out.trip_id = time->trip_id;
    if (!time->service_date.empty())
      out.service_date = time->service_date;
    if (!time->color.empty())
      out.color = time->color;
    if (!time->text_color.empty())
      out.text_color = time->text_color;
    reply.departures.push_back(std::move(out));
  }
  // Rule 6: the newest of the upstream's realtime stamps and the time the
  // data was fetched (for an uncached call, the request time).
  auto freshness_ms = std::max({upstream.last_realtime_update_ms,
                                upstream.fetched_ms,
                                upstream.fetched_ms == 0
                                  ? now_seconds * 1000
                                  : int64_t{0}});
  if (freshness_ms == 0)
    freshness_ms = now_seconds * 1000;
  reply.data_freshness = format_utc(freshness_ms / 1000);
  return reply;
}

} // namespace transitd
