#pragma once
// Deterministic TfL JourneyResults answers for the mock upstream: a 200
// ItineraryResult for places it knows, a 300 DisambiguationResult for free
// text, in the recorded shapes ($type fields included).

#include <string>

#include <boost/json.hpp>

namespace transitd::mock {

struct journey_answer {
  int status = 200;
  boost::json::object body;
};

/// Known: TfL ids (digits, 940G…/910G…/HUB…, "lat,lon") and the station
/// names Bank, Mile End, Abbey Wood, Paddington, Waterloo. Any other text
/// is ambiguous (300 with three options); text containing "nowhere" has no
/// options at all.
journey_answer generate_journey(const std::string& from,
                                const std::string& to);

} // namespace transitd::mock
