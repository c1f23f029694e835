#pragma once
// TOOL_ROUTER: stamps each call (correlation id, receive time, deadline),
// takes an inbound permit from RATE_LIMITER for tools with a limit, and hands
// the call to the tool actor that owns it. It also fans cancellations out to
// every actor that starts upstream work (caches and gates).

#include <cstdint>
#include <map>
#include <string>
#include <typeindex>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "transitd/actors/rate_limiter.hpp"
#include "transitd/messages/interfaces.hpp"

namespace transitd {

/// One tool's settings in the engine. The engine knows a tool by the
/// request it takes; what it is called is the embedder's choice (the daemon
/// uses the MCP tool name).
struct tool_settings {
  /// How rate-limit errors, limiter counters and metrics name the tool.
  std::string label;
  /// Deadline of a call that arrives without one; 0: the engine default.
  int32_t timeout_ms = 0;
  /// Inbound calls per second (burst: one second's worth); 0: unlimited.
  double tps = 0;
};

/// Tool settings by the request type of the tool (`tool_of<Request>()`).
using tool_settings_map = std::map<std::type_index, tool_settings>;

template <class Request>
std::type_index tool_of() {
  return std::type_index{typeid(Request)};
}

/// The rate limiter's key for a tool: "tool:<label>" (a tool without a
/// label is keyed by its request type, so that no two tools share one).
std::string tool_limit_key(std::type_index tool, const tool_settings& settings);

/// RATE_LIMITER's limits for the tools with a tps.
std::vector<rate_limit> tool_limits(const tool_settings_map& tools);

/// The reply TOOL_ROUTER's interface promises for `Request`.
template <class Request, class Signatures = tool_router_actor::signatures>
struct tool_reply;

template <class Request, class Reply, class... Rest>
struct tool_reply<Request,
                  caf::detail::type_list<
                    caf::typed_mpi<caf::detail::type_list<Request>,
                                   caf::output_tuple<Reply>>,
                    Rest...>> {
  using type = Reply;
};

template <class Request, class Other, class... Rest>
struct tool_reply<Request, caf::detail::type_list<Other, Rest...>>
  : tool_reply<Request, caf::detail::type_list<Rest...>> {};

template <class Request>
using tool_reply_t = typename tool_reply<Request>::type;

/// The handle of the actor that answers `Request` for TOOL_ROUTER.
template <class Request>
using tool_actor_of
  = caf::typed_actor<typename caf::replies_to<Request>::template with<
    tool_reply_t<Request>>>;

/// Who TOOL_ROUTER talks to, and its per-tool settings.
struct tool_router_targets {
  /// The actor that answers each tool, by request type: `serve` checks at
  /// compile time that it answers the request with the router's reply.
  /// Every request in TOOL_ROUTER's interface needs one (a call for a tool
  /// without is an internal error naming it).
  template <class Request, class Handle>
  void serve(const Handle& handle) {
    tool_actor_of<Request> answers = handle;
    tool_actors[tool_of<Request>()] = caf::actor_cast<caf::actor>(answers);
  }
  std::map<std::type_index, caf::actor> tool_actors;
  /// Inbound limits; asked only for tools whose settings have a tps.
  rate_limiter_actor limiter;
  /// Each principal (but "local") is first held to its own share.
  bool principal_shares = false;
  /// Told about every cancel_call.
  std::vector<cancel_listener_actor> cancel_listeners;
  /// Labels, deadlines and limits by tool; tools not listed are unlimited
  /// and take `default_timeout_ms`.
  tool_settings_map tools;
  int32_t default_timeout_ms = 10000;
};

/// The requests of TOOL_ROUTER's interface that `targets` has no actor
/// for (readable type names); the engine refuses to start with any.
std::vector<std::string> unserved_tools(const tool_router_targets& targets);

/// A request type's readable name ("transitd::find_stops_request").
std::string tool_type_name(std::type_index tool);

struct tool_router_state {
  static inline const char* name = "tool_router";
  tool_router_targets targets;
};

tool_router_actor::behavior_type
tool_router(tool_router_actor::stateful_pointer<tool_router_state> self,
            tool_router_targets targets);

/// Fills in a correlation id, the receive time and the deadline
/// (`timeout_ms` after receipt) when the caller left them empty.
void stamp(call_context& context, int32_t timeout_ms);

} // namespace transitd
