#include "transitd/actors/trip_view_rules.hpp"

#include <algorithm>

#include <date/date.h>

#include "transitd/messages/time.hpp"

namespace transitd {

std::optional<int32_t> parse_service_day(std::string_view text) {
  std::string digits;
  if (text.size() == 10 && text[4] == '-' && text[7] == '-')
    digits = std::string{text.substr(0, 4)} + std::string{text.substr(5, 2)}
             + std::string{text.substr(8, 2)};
  else if (text.size() == 8)
    digits = std::string{text};
  else
    return std::nullopt;
  if (!std::all_of(digits.begin(), digits.end(),
                   [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  auto number = [&](std::size_t at, std::size_t n) {
    return std::stoi(digits.substr(at, n));
  };
  date::year_month_day ymd{date::year{number(0, 4)},
                           date::month{static_cast<unsigned>(number(4, 2))},
                           date::day{static_cast<unsigned>(number(6, 2))}};
  if (!ymd.ok())
    return std::nullopt;
  return static_cast<int32_t>(date::sys_days{ymd}.time_since_epoch().count());
}

std::optional<failure> validate(const get_trip_request& request) {
  if (auto bad = check_language("language", request.language))
    return bad;
  if (auto bad = check_length("tripId", request.trip_id, trip_id_length))
    return bad;
  if (!request.service_date.empty()
      && !parse_service_day(request.service_date))
    return make_failure(ec::validation_error,
                        "serviceDate must be a day as YYYY-MM-DD, got \""
                          + request.service_date + "\"",
                        "take the serviceDate get_departures or plan_trip "
                        "gives with the tripId, or leave it out");
  return std::nullopt;
}

trip_query make_query(const get_trip_request& request, int64_t now_seconds) {
  trip_query q;
  q.context = request.context;
  q.trip_id = request.trip_id;
  if (!request.service_date.empty())
    q.service_day = parse_service_day(request.service_date);
  q.time = now_seconds;
  q.language = request.language;
  return q;
}

get_trip_reply build_trip_reply(const get_trip_request& request,
                                trip_details details, int64_t now_seconds) {
  get_trip_reply reply;
  reply.realtime_used = details.state != "scheduled"
                        || std::any_of(details.calls.begin(),
                                       details.calls.end(),
                                       [](const trip_call& c) {
                                         return c.realtime_departure
                                                || c.realtime_arrival
                                                || c.skipped;
                                       });
  auto freshness = std::max({details.realtime_ms, details.fetched_ms,
                             details.fetched_ms == 0 ? now_seconds * 1000
                                                     : int64_t{0}});
  reply.data_freshness = format_utc(freshness / 1000);
  reply.warnings = std::move(details.warnings);
  reply.trip = std::move(details);
  reply.correlation_id = request.context.correlation_id;
  return reply;
}

} // namespace transitd
