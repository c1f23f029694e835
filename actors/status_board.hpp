#pragma once
// STATUS_BOARD: the line_status tool over NETWORK_INFO, and its rules.

#include <optional>

#include "transitd/actors/tool_support.hpp"
#include "transitd/messages/interfaces.hpp"

namespace transitd {

/// Lengths; near on the globe.
std::optional<failure> validate(const line_status_request& request);

line_status_query make_query(const line_status_request& request,
                             int64_t now_seconds);

/// The reply; without realtime a warning says every line shows
/// good-service for want of alerts and trip updates.
line_status_reply build_status_reply(const line_status_request& request,
                                     line_status_list result,
                                     int64_t now_seconds);

struct status_board_state {
  static inline const char* name = "status_board";
  network_info_actor network;
  tool_options options;
};

status_board_actor::behavior_type
status_board(status_board_actor::stateful_pointer<status_board_state> self,
             network_info_actor network, tool_options options);

} // namespace transitd
