#pragma once
// STATION_TOILETS: the stationToilets tool actor.

#include <memory>

#include <caf/fwd.hpp>

#include "transitd/messages/interfaces.hpp"
#include "transitd/actors/tool_support.hpp"
#include "transitd/providers/tfl_station_data.hpp"

namespace transitd {

struct station_toilets_options {
  /// Where the data comes from (a directory, or the built-in demo set).
  dataset_reader reader;
  /// Names the source in messages and logs.
  std::string source;
  tool_options tool;
};

struct station_toilets_state {
  static inline const char* name = "station_toilets";
  /// The loaded data, or why there is none.
  std::shared_ptr<const station_dataset> data;
  std::optional<failure> load_failure;
  tool_options tool;
};

/// Loads the data (blocking, once, on the caller's thread) and spawns the
/// actor. A failed load is logged and answered per call.
station_toilets_actor spawn_station_toilets(caf::actor_system& system,
                                            station_toilets_options options);

} // namespace transitd
