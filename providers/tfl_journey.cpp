#include "transitd/providers/tfl_journey.hpp"

#include <algorithm>

#include <boost/json.hpp>

#include "transitd/providers/json_read.hpp"
#include "transitd/providers/tfl_network.hpp"
#include "transitd/providers/upstream_http.hpp"

namespace json = boost::json;

namespace transitd::tfl {

using upstream_json::find_path;
using upstream_json::int_at;
using upstream_json::text_at;

namespace {

std::string place_name(const json::value* point) {
  if (point == nullptr)
    return {};
  auto name = text_at(*point, {"commonName"});
  return name.empty() ? text_at(*point, {"name"}) : name;
}

journey_option read_journey(const json::value& j) {
  journey_option out;
  out.start_time = text_at(j, {"startDateTime"});
  out.arrival_time = text_at(j, {"arrivalDateTime"});
  out.duration_minutes = static_cast<int32_t>(int_at(j, {"duration"}).value_or(0));
  std::string summary;
  if (const auto* legs = find_path(j, {"legs"}); legs && legs->is_array()) {
    for (const auto& l : legs->get_array()) {
      journey_leg_summary leg;
      leg.mode = text_at(l, {"mode", "name"});
      if (leg.mode.empty())
        leg.mode = text_at(l, {"mode", "id"});
      if (const auto* options = find_path(l, {"routeOptions"});
          options && options->is_array() && !options->get_array().empty()) {
        auto name = text_at(options->get_array().front(), {"name"});
        if (!name.empty())
          leg.line = name;
      }
      leg.from = place_name(find_path(l, {"departurePoint"}));
      leg.to = place_name(find_path(l, {"arrivalPoint"}));
      leg.departure_time = text_at(l, {"departureTime"});
      leg.arrival_time = text_at(l, {"arrivalTime"});
      leg.duration_minutes = static_cast<int32_t>(int_at(l, {"duration"}).value_or(0));
      leg.instruction = text_at(l, {"instruction", "summary"});
      if (!summary.empty())
        summary += ", then ";
      summary += leg.instruction.empty() ? leg.mode : leg.instruction;
      out.legs.push_back(std::move(leg));
    }
  }
  out.summary = summary;
  return out;
}

std::vector<place_suggestion> read_suggestions(const json::value* d) {
  std::vector<place_suggestion> out;
  if (d == nullptr)
    return out;
  const auto* options = find_path(*d, {"disambiguationOptions"});
  if (options == nullptr || !options->is_array())
    return out;
  for (const auto& o : options->get_array()) {
    place_suggestion s;
    s.parameter_value = text_at(o, {"parameterValue"});
    s.name = place_name(find_path(o, {"place"}));
    if (const auto* q = find_path(o, {"matchQuality"}); q && q->is_number())
      s.match_quality = q->to_number<double>();
    if (!s.parameter_value.empty())
      out.push_back(std::move(s));
  }
  return out;
}

} // namespace

std::string make_journey_target(std::string_view base_path,
                                const journey_plan_request& request) {
  std::string target{base_path};
  target += "/Journey/JourneyResults/" + url_encode(request.from)
            + "/to/" + url_encode(request.to);
  if (request.need_accessible_route)
    target += "?accessibilityPreference=StepFreeToPlatform";
  return target;
}

outcome<journey_plan_reply> parse_journey_response(const http_response& r) {
  if (r.status != 200 && r.status != 300)
    return failure_of(r);
  json::error_code error;
  auto body = json::parse(r.body, error);
  if (error || !body.is_object())
    return make_failure(ec::upstream_error,
                        "TfL answered malformed JSON", "retry later");
  journey_plan_reply reply;
  if (r.status == 300) {
    reply.disambiguation_required = true;
    reply.from_suggestions = read_suggestions(
      find_path(body, {"fromLocationDisambiguation"}));
    reply.to_suggestions = read_suggestions(
      find_path(body, {"toLocationDisambiguation"}));
    return reply;
  }
  const auto* journeys = find_path(body, {"journeys"});
  if (journeys == nullptr || !journeys->is_array())
    return make_failure(ec::upstream_error, "TfL answer has no journeys");
  for (const auto& j : journeys->get_array())
    reply.journeys.push_back(read_journey(j));
  return reply;
}

} // namespace transitd::tfl
