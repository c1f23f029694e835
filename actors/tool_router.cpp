#include "transitd/actors/tool_router.hpp"

#include <algorithm>
#include <chrono>

#include <boost/core/demangle.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "transitd/util/ids.hpp"
#include "transitd/actors/rate_limiter.hpp"
#include "transitd/messages/time.hpp"

namespace transitd {

void stamp(call_context& context, int32_t timeout_ms) {
  if (context.correlation_id.empty())
    context.correlation_id = make_uuid_v4();
  if (context.received_ms == 0)
    context.received_ms = now_ms();
  if (context.deadline_ms == 0)
    context.deadline_ms = context.received_ms + timeout_ms;
}

std::string tool_limit_key(std::type_index tool,
                           const tool_settings& settings) {
  return tool_key(settings.label.empty() ? std::string{tool.name()}
                                         : settings.label);
}

std::vector<rate_limit> tool_limits(const tool_settings_map& tools) {
  std::vector<rate_limit> limits;
  for (const auto& [tool, settings] : tools)
    if (settings.tps > 0)
      limits.push_back({tool_limit_key(tool, settings), settings.tps,
                        settings.tps});
  return limits;
}

std::string tool_type_name(std::type_index tool) {
  return boost::core::demangle(tool.name());
}

namespace {

template <class Request, class Reply>
void add_unserved(const tool_router_targets& t, std::vector<std::string>& out,
                  caf::typed_mpi<caf::detail::type_list<Request>,
                                 caf::output_tuple<Reply>>*) {
  auto it = t.tool_actors.find(tool_of<Request>());
  if (it == t.tool_actors.end() || !it->second)
    out.push_back(tool_type_name(tool_of<Request>()));
}

void add_unserved(const tool_router_targets&, std::vector<std::string>&,
                  caf::typed_mpi<caf::detail::type_list<cancel_call>,
                                 caf::output_tuple<void>>*) {
}

template <class... Signatures>
std::vector<std::string> unserved(const tool_router_targets& t,
                                  caf::detail::type_list<Signatures...>) {
  std::vector<std::string> out;
  (add_unserved(t, out, static_cast<Signatures*>(nullptr)), ...);
  return out;
}

} // namespace

std::vector<std::string> unserved_tools(const tool_router_targets& targets) {
  return unserved(targets, tool_router_actor::signatures{});
}

namespace {

using router_pointer
  = tool_router_actor::stateful_pointer<tool_router_state>;

/// Stamps the call, then delegates it to the tool's actor, after a permit
/// when the tool is limited. A refused permit is rate-limited with
/// retryAfter in seconds.
template <class Request, class Reply = tool_reply_t<Request>>
caf::result<Reply> route(router_pointer self, Request& request) {
  auto& t = self->state.targets;
  auto actor = t.tool_actors.find(tool_of<Request>());
  if (actor == t.tool_actors.end() || !actor->second)
    return make_error(ec::internal_error,
                      "no actor serves "
                        + tool_type_name(tool_of<Request>()),
                      "the engine's wiring misses a tool actor");
  auto target = caf::actor_cast<tool_actor_of<Request>>(actor->second);
  auto it = t.tools.find(tool_of<Request>());
  const tool_settings* settings = it != t.tools.end() ? &it->second
                                                      : nullptr;
  auto timeout = settings != nullptr && settings->timeout_ms > 0
                   ? settings->timeout_ms
                   : t.default_timeout_ms;
  stamp(request.context, timeout);
  if (settings == nullptr || settings->tps <= 0)
    return self->delegate(target, std::move(request));
  auto rp = self->template make_response_promise<Reply>();
  auto name = settings->label.empty() ? std::string{"this tool"}
                                      : settings->label;
  auto key = tool_limit_key(it->first, *settings);
  auto refuse = [](auto& rp, const permit& p, const std::string& why) {
    auto seconds = static_cast<int32_t>(
      std::max<int64_t>(1, (p.retry_after_ms + 999) / 1000));
    rp.deliver(make_error(ec::rate_limited, why, "wait retryAfter seconds",
                          seconds));
  };
  // The whole limit, then (with shares) first the principal's own share.
  auto whole = [self, rp, target, request, name, key,
                refuse](permit first) mutable {
    if (!first.granted) {
      refuse(rp, first,
             name + ": this client's share of its calls per second is used "
                    "up; try again shortly");
      return;
    }
    if (first.settled) { // the share stood for the whole limit too
      rp.delegate(target, std::move(request));
      return;
    }
    self->request(self->state.targets.limiter, std::chrono::seconds{5},
                  acquire_permit{key})
      .then(
        [rp, target, request, name, refuse](permit p) mutable {
          if (p.granted) {
            rp.delegate(target, std::move(request));
            return;
          }
          refuse(rp, p,
                 name + " is limited to its calls per second; try again "
                        "shortly");
        },
        [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
  };
  const auto& principal = request.context.principal;
  if (t.principal_shares && !principal.empty() && principal != "local") {
    self
      ->request(t.limiter, std::chrono::seconds{5},
                acquire_permit{share_key(key, principal)})
      .then([whole](permit p) mutable { whole(p); },
            [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
  } else {
    whole(permit{});
  }
  return rp;
}

/// One handler per signature of TOOL_ROUTER's interface: a tool request
/// is routed; cancel_call goes to every listener.
template <class Request, class Reply>
auto handler(router_pointer self,
             caf::typed_mpi<caf::detail::type_list<Request>,
                            caf::output_tuple<Reply>>*) {
  return [self](Request& r) -> caf::result<Reply> { return route(self, r); };
}

auto handler(router_pointer self,
             caf::typed_mpi<caf::detail::type_list<cancel_call>,
                            caf::output_tuple<void>>*) {
  return [self](const cancel_call& request) {
    for (const auto& listener : self->state.targets.cancel_listeners)
      self->send(listener, request);
  };
}

template <class... Signatures>
tool_router_actor::behavior_type
handlers(router_pointer self, caf::detail::type_list<Signatures...>) {
  return {handler(self, static_cast<Signatures*>(nullptr))...};
}

} // namespace

tool_router_actor::behavior_type
tool_router(tool_router_actor::stateful_pointer<tool_router_state> self,
            tool_router_targets targets) {
  self->state.targets = std::move(targets);
  return handlers(self, tool_router_actor::signatures{});
}

} // namespace transitd
