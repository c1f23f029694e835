#include "transitd/actors/station_toilets.hpp"

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "transitd/actors/london_rules.hpp"
#include "transitd/messages/time.hpp"

namespace transitd {

namespace {

station_toilets_actor::behavior_type station_toilets(
  station_toilets_actor::stateful_pointer<station_toilets_state> self,
  std::shared_ptr<const station_dataset> data,
  std::optional<failure> load_failure, tool_options tool) {
  auto& st = self->state;
  st.data = std::move(data);
  st.load_failure = std::move(load_failure);
  st.tool = std::move(tool);
  return {
    [self](station_toilets_request& request)
      -> caf::result<station_toilets_reply> {
      auto& st = self->state;
      auto name = request.station_name;
      auto first = name.find_first_not_of(" \t\r\n");
      if (first == std::string::npos)
        return make_error(ec::validation_error,
                          "stationName must not be empty");
      if (auto bad = check_length("station_name", name, london_place_text))
        return to_error(*bad);
      if (!st.data)
        return to_error(*st.load_failure);
      auto match = match_station(*st.data, name);
      station_toilets_reply reply;
      reply.correlation_id = request.context.correlation_id;
      reply.warnings = st.tool.standing_warnings;
      if (match.station != nullptr) {
        reply.station_name = match.station->name;
        reply.station_unique_id = match.station->unique_id;
        reply.toilets = match.station->toilets;
        return reply;
      }
      if (match.suggestions.empty())
        return make_error(ec::station_not_found,
                          "no station matches \"" + name + "\"",
                          "check the spelling, e.g. \"Abbey Wood\"");
      reply.disambiguation_required = true;
      reply.suggestions = std::move(match.suggestions);
      return reply;
    },
    [self](get_counters) {
      const auto& st = self->state;
      counters c;
      c.add("station_data.loaded", st.data ? 1 : 0);
      c.add("station_data.stations",
            st.data ? static_cast<int64_t>(st.data->stations.size()) : 0);
      return c;
    },
  };
}

} // namespace

station_toilets_actor spawn_station_toilets(caf::actor_system& system,
                                            station_toilets_options options) {
  std::shared_ptr<const station_dataset> data;
  std::optional<failure> load_failure;
  if (!options.reader) {
    // Not configured: said per call, nothing read and nothing logged.
    load_failure = make_failure(
      ec::data_not_available, "station data is not configured here",
      "give station_toilets_options::reader (directory_reader on TfL's "
      "'station data detailed' folder)");
    return system.spawn(station_toilets, std::move(data),
                        std::move(load_failure), std::move(options.tool));
  }
  auto loaded = load_station_data(options.reader);
  if (loaded) {
    std::size_t toilets = 0;
    for (const auto& s : loaded->stations)
      toilets += s.toilets.size();
    spdlog::info("station data from {}: {} stations, {} toilets", options.source,
                 loaded->stations.size(), toilets);
    if (loaded->orphan_toilets > 0)
      spdlog::warn("station data from {}: {} toilets name a station missing "
                   "from Stations.csv and were left out",
                   options.source, loaded->orphan_toilets);
    data = std::make_shared<const station_dataset>(std::move(*loaded));
  } else {
    load_failure = loaded.error();
    load_failure->message = "station data from " + options.source
                            + " is not available: " + load_failure->message;
    spdlog::warn("{}; the station toilets tool will answer DATA_NOT_AVAILABLE",
                 load_failure->message);
  }
  return system.spawn(station_toilets, std::move(data),
                      std::move(load_failure),
                      std::move(options.tool));
}

} // namespace transitd
