#pragma once
// LINE_VIEWER: the get_route tool over NETWORK_INFO, and its rules.

#include <optional>

#include "transitd/actors/tool_support.hpp"
#include "transitd/messages/interfaces.hpp"

namespace transitd {

/// A route or a stop (or both); lengths; near on the globe.
std::optional<failure> validate(const get_route_request& request);

route_query make_query(const get_route_request& request,
                       int64_t now_seconds);

struct line_viewer_state {
  static inline const char* name = "line_viewer";
  network_info_actor network;
  tool_options options;
};

line_viewer_actor::behavior_type
line_viewer(line_viewer_actor::stateful_pointer<line_viewer_state> self,
            network_info_actor network, tool_options options);

} // namespace transitd
