#pragma once
// Messages and hints reach the caller in its own terms. The engine names
// its settings as an embedding application writes them
// (`engine_config::feeds`, `gtfs_feed_options::realtime`, ...); over MCP
// the daemon's operator configures it with flags, so every failure and
// warning the daemon renders names the flag instead (`--gtfs NAME=SOURCE`,
// `--gtfs-rt NAME=SOURCE`, ...).

#include <string>

namespace transitd::mcp {

/// `text` with each engine setting it names replaced by the daemon's flag
/// or variable for it.
std::string in_daemon_terms(std::string text);

} // namespace transitd::mcp
