#pragma once
// COVERAGE_BOARD: the transit_coverage tool. What this engine serves, one
// provider at a time: each feed describes itself (area, agencies, days,
// load, realtime health); the upstream providers are described from the
// engine's configuration.

#include <vector>

#include "transitd/actors/tool_support.hpp"
#include "transitd/messages/interfaces.hpp"

namespace transitd {

/// The tools a provider of `kind` answers ("gtfs": with `realtime`, the
/// realtime tools too; "digitransit"; "tfl": with `toilets`,
/// stationToilets).
std::vector<std::string> tools_of(const std::string& kind, bool realtime,
                                  bool toilets = false);

/// The reply from the feeds' descriptions (in order) and the upstream
/// providers', at the engine's `now_seconds`: feeds first, each with its
/// tools.
transit_coverage_reply
build_coverage_reply(const transit_coverage_request& request,
                     std::vector<provider_coverage> feeds,
                     const std::vector<provider_coverage>& upstreams,
                     int64_t now_seconds);

struct coverage_board_state {
  static inline const char* name = "coverage_board";
  std::vector<feed_actor> feeds;
  /// Digitransit and TfL as the engine runs them (tools filled).
  std::vector<provider_coverage> upstreams;
  tool_options options;
};

coverage_board_actor::behavior_type coverage_board(
  coverage_board_actor::stateful_pointer<coverage_board_state> self,
  std::vector<feed_actor> feeds, std::vector<provider_coverage> upstreams,
  tool_options options);

} // namespace transitd
