#include "transitd/providers/tfl_journey.hpp"

#include <algorithm>

#include <boost/json.hpp>

#include "transitd/providers/upstream_http.hpp"

namespace json = boost::json;

namespace transitd::tfl {

namespace {

std::string text(const json::value* v) {
  return v != nullptr && v->is_string() ? std::string{v->get_string()}
                                        : std::string{};
}

const json::value* at(const json::value& root,
                      std::initializer_list<std::string_view> path) {
  const json::value* current = &root;
  for (auto key : path) {
    if (!current->is_object())
      return nullptr;
    current = current->get_object().if_contains(key);
    if (current == nullptr)
      return nullptr;
  }
  return current;
}

int32_t integer(const json::value* v) {
  if (v == nullptr)
    return 0;
  if (v->is_int64())
    return static_cast<int32_t>(v->get_int64());
  if (v->is_double())
    return static_cast<int32_t>(v->get_double());
  return 0;
}

std::string place_name(const json::value* point) {
  if (point == nullptr)
    return {};
  auto name = text(at(*point, {"commonName"}));
  return name.empty() ? text(at(*point, {"name"})) : name;
}

journey_option read_journey(const json::value& j) {
  journey_option out;
  out.start_time = text(at(j, {"startDateTime"}));
  out.arrival_time = text(at(j, {"arrivalDateTime"}));
  out.duration_minutes = integer(at(j, {"duration"}));
  std::string summary;
  if (const auto* legs = at(j, {"legs"}); legs && legs->is_array()) {
    for (const auto& l : legs->get_array()) {
      journey_leg_summary leg;
      leg.mode = text(at(l, {"mode", "name"}));
      if (leg.mode.empty())
        leg.mode = text(at(l, {"mode", "id"}));
      if (const auto* options = at(l, {"routeOptions"});
          options && options->is_array() && !options->get_array().empty()) {
        auto name = text(at(options->get_array().front(), {"name"}));
        if (!name.empty())
          leg.line = name;
      }
      leg.from = place_name(at(l, {"departurePoint"}));
      leg.to = place_name(at(l, {"arrivalPoint"}));
      leg.departure_time = text(at(l, {"departureTime"}));
      leg.arrival_time = text(at(l, {"arrivalTime"}));
      leg.duration_minutes = integer(at(l, {"duration"}));
      leg.instruction = text(at(l, {"instruction", "summary"}));
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
  const auto* options = at(*d, {"disambiguationOptions"});
  if (options == nullptr || !options->is_array())
    return out;
  for (const auto& o : options->get_array()) {
    place_suggestion s;
    s.parameter_value = text(at(o, {"parameterValue"}));
    s.name = place_name(at(o, {"place"}));
    if (const auto* q = at(o, {"matchQuality"}); q && q->is_number())
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
  if (r.status != 200 && r.status != 300) {
    if (r.status == 429 || r.status >= 500)
      return classify_http_failure(r, "TfL");
    // TfL's ApiError: {"httpStatusCode":..,"message":..}
    json::error_code error;
    auto body = json::parse(r.body, error);
    std::string message = "TfL answered HTTP " + std::to_string(r.status);
    if (!error)
      if (auto m = text(at(body, {"message"})); !m.empty())
        message += ": " + sanitize_upstream_text(m);
    return make_failure(ec::upstream_error, message);
  }
  json::error_code error;
  auto body = json::parse(r.body, error);
  if (error || !body.is_object())
    return make_failure(ec::upstream_error,
                        "TfL answered malformed JSON", "retry later");
  journey_plan_reply reply;
  if (r.status == 300) {
    reply.disambiguation_required = true;
    reply.from_suggestions = read_suggestions(
      at(body, {"fromLocationDisambiguation"}));
    reply.to_suggestions = read_suggestions(
      at(body, {"toLocationDisambiguation"}));
    return reply;
  }
  const auto* journeys = at(body, {"journeys"});
  if (journeys == nullptr || !journeys->is_array())
    return make_failure(ec::upstream_error, "TfL answer has no journeys");
  for (const auto& j : journeys->get_array())
    reply.journeys.push_back(read_journey(j));
  return reply;
}

} // namespace transitd::tfl
