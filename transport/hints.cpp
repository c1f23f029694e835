#include "transitd/transport/hints.hpp"

#include <string_view>
#include <utility>

namespace transitd::mcp {

namespace {

/// Engine setting → how the daemon is told it. Longer names first, where
/// one starts another.
constexpr std::pair<std::string_view, std::string_view> settings[] = {
  {"engine_config::digitransit_routing.api_key", "DIGITRANSIT_API_KEY"},
  {"engine_config::clock_offset_ms", "--clock"},
  {"engine_config::feeds", "--gtfs NAME=SOURCE"},
  {"engine_config::tfl.url", "--tfl-url"},
  {"gtfs_feed_options::realtime", "--gtfs-rt NAME=SOURCE"},
  {"station_toilets_options::reader", "--tfl-station-data DIR"},
};

} // namespace

std::string in_daemon_terms(std::string text) {
  if (text.find("::") == std::string::npos)
    return text; // the common case: nothing to say differently
  for (const auto& [engine, daemon] : settings)
    for (auto at = text.find(engine); at != std::string::npos;
         at = text.find(engine, at + daemon.size()))
      text.replace(at, engine.size(), daemon);
  return text;
}

} // namespace transitd::mcp
