#pragma once
// Wires each tool's MCP face (schemas, JSON mapping) to the engine through
// the gateway.

#include "transport/gateway.hpp"
#include "transport/tool_catalog.hpp"

namespace transitd::mcp {

/// Every tool this build serves, running through `gw`.
tool_catalog make_tool_catalog(gateway& gw);

} // namespace transitd::mcp
