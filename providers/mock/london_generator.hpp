#pragma once
// Deterministic answers of TfL's StopPoint, StopPoint Arrivals and Line
// Status APIs for the mock upstream, in TfL's documented shapes ($type
// fields included): a handful of real central London stations with their
// hubs, a bus-stop group, and their lines. Unknown stop ids answer 404
// with TfL's ApiError, as TfL does.

#include <cstdint>
#include <string>
#include <vector>

#include <boost/json.hpp>

namespace transitd::mock {

struct london_answer {
  int status = 200;
  boost::json::value body;
};

/// StopPoint/{id}: a hub with its stations and bus-stop group as children,
/// a station, a group or a single bus stop.
london_answer generate_stop_point(const std::string& id);

/// StopPoint/{ids}/Arrivals: the next trains and buses of each line in
/// both directions at each id, predicted from `now` (epoch seconds).
london_answer generate_arrivals(const std::vector<std::string>& ids,
                                int64_t now);

/// Line/{id}/Route/Sequence/all: the line's stations here, outbound and
/// inbound; an unknown line 404 as TfL.
london_answer generate_route_sequence(const std::string& line_id);

/// Line/Mode/{modes}/Status: every line of the modes, mostly good service;
/// the District has minor delays and the Elizabeth line a planned closure.
london_answer generate_line_status(const std::string& modes, int64_t now);

} // namespace transitd::mock
