#pragma once
// The views transitd ships with its tools (MCP Apps, extension
// `io.modelcontextprotocol/ui`): one self-contained HTML document each
// (views/*.html, compiled in), served as `ui://transitd/...` resources and
// linked from a tool's `_meta.ui.resourceUri`. A host without the
// extension ignores both: the tools' results are the same either way.

#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

namespace transitd::mcp {

inline constexpr std::string_view ui_extension = "io.modelcontextprotocol/ui";
inline constexpr std::string_view view_mime_type = "text/html;profile=mcp-app";

struct view {
  std::string uri;
  std::string name;
  std::string title;
  std::string description;
  /// The tools whose results it draws.
  std::vector<std::string> tools;
  /// The HTML document.
  std::string_view html;
};

/// Every view, in a fixed order.
const std::vector<view>& views();

/// The view of `uri`, or nullptr.
const view* find_view(std::string_view uri);

/// The view a tool's results are drawn with, or nullptr.
const view* view_of_tool(std::string_view tool);

/// The resources/list entry of a view.
boost::json::object resource_entry(const view& v);

/// The resources/read contents of a view.
boost::json::object resource_contents(const view& v);

/// The view document compiled from views/FILE (empty when none is).
std::string_view embedded_view(std::string_view file);

} // namespace transitd::mcp
