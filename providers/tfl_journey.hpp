#pragma once
// TfL Journey Planner: pure request builder and parsers for the 200
// ItineraryResult, the 300 DisambiguationResult and TfL's ApiError.

#include <string>
#include <string_view>

#include "transitd/messages/error.hpp"
#include "transitd/messages/http.hpp"
#include "transitd/messages/london.hpp"

namespace transitd::tfl {

/// Path and query of JourneyResults, from/to URL-encoded
/// (accessibilityPreference=StepFreeToPlatform when an accessible route is
/// needed). The key travels in the app_key header, never in the URL.
std::string make_journey_target(std::string_view base_path,
                                const journey_plan_request& request);

/// 200 → the journeys in TfL's order; 300 → the disambiguation suggestions
/// in TfL's order (D19's ordering is LONDON_JOURNEYS' rule,
/// actors/london_rules); other statuses
/// → UPSTREAM_ERROR (TfL's ApiError message, sanitised) or the 429/5xx
/// mapping.
outcome<journey_plan_reply> parse_journey_response(const http_response& r);

} // namespace transitd::tfl
