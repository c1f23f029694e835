#pragma once
// Deterministic planConnection answers for the mock upstream, in OTP's
// shape (edges[].node{start,end,legs[{start/end{scheduledTime,estimated}}]}).

#include <cstdint>
#include <string>

#include <boost/json.hpp>

namespace transitd::mock {

struct plan_query {
  double from_lat = 0;
  double from_lon = 0;
  double to_lat = 0;
  double to_lon = 0;
  /// Epoch seconds.
  int64_t time = 0;
  bool arrive_by = false;
  int32_t first = 5;
  double walk_reluctance = 2.0;
  int32_t max_transfers = 4;
  bool wheelchair = false;
  /// none | delay (+7 min on line 550) | cancel (line 550 cancelled).
  std::string disruption = "none";
};

/// Four route shapes exist between any two points: bus 550 (400 m walk),
/// bus 550 + metro M1 (350 m, one transfer), tram 7 (1700 m), train P
/// (2400 m). Like OTP, cheaper walking (a lower reluctance) admits the
/// walkier ones: those within 3000 / reluctance meters of walking come
/// back, earliest arrival first. Line 550 runs with realtime (+30 s), M1
/// on time, P 90 s late, tram 7 without realtime data.
boost::json::object generate_plan(const plan_query& query);

} // namespace transitd::mock
