#pragma once
// Wires each tool's MCP face (schemas, JSON mapping) to the engine through
// the gateway.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "transitd/actors/tool_router.hpp"
#include "transitd/transport/gateway.hpp"
#include "transitd/transport/tool_catalog.hpp"

namespace transitd::mcp {

/// Every tool this build serves, running through `gw`. `regions` (a
/// sentence naming the areas served) ends each regional tool's
/// description; a tool that requires capabilities is listed only where
/// `offer` has every one.
tool_catalog make_tool_catalog(gateway& gw, const std::string& regions = "",
                               capabilities offer = {});

/// The MCP names of every tool this build serves, in catalog order.
const std::vector<std::string>& tool_names();

/// The engine's tool settings from limits and deadlines by MCP name: every
/// tool is labelled with its MCP name; names not listed take the engine's
/// defaults.
tool_settings_map tool_settings_by_name(
  const std::map<std::string, double>& tps,
  const std::map<std::string, int32_t>& timeouts_ms);

/// The engine's default deadlines and limits (default_tool_settings) by
/// MCP name: the daemon's defaults, stated once in the engine.
std::map<std::string, int32_t> default_tool_timeouts();
std::map<std::string, double> default_tool_tps();


} // namespace transitd::mcp
