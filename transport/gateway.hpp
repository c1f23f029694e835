#pragma once
// GATEWAY: the bridge from HTTP threads into the actor system. An HTTP
// thread hands a typed request to one of a few long-lived event-based
// gateway actors and waits (with a deadline, and cancellably) for the typed
// reply. A blocking scoped_actor per call would pile up stale request
// timeouts in CAF 0.17; a shared gateway does not.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/expected.hpp>

#include "actors/interfaces.hpp"
#include "transport/tool_catalog.hpp"

namespace transitd {

/// A call waiting for its reply; runs inside a gateway actor.
class pending_call {
public:
  virtual ~pending_call() = default;
  virtual void start(caf::event_based_actor* self) = 0;
};

} // namespace transitd

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<transitd::pending_call>)

namespace transitd {

class gateway {
public:
  gateway(caf::actor_system& system, tool_router_actor router,
          std::size_t shards);
  ~gateway();

  gateway(const gateway&) = delete;
  gateway& operator=(const gateway&) = delete;

  /// Sends `request` to TOOL_ROUTER and blocks the calling (non-actor)
  /// thread until the reply, the deadline in the request's context, or
  /// cancellation. Cancellation yields ec::cancelled.
  template <class Request, class Reply>
  caf::expected<Reply> call(Request request,
                            const std::shared_ptr<mcp::cancellation>& cancel);

  /// Stops the gateway actors.
  void stop();

private:
  template <class Request, class Reply>
  class typed_call;

  void dispatch(std::shared_ptr<pending_call> call);
  /// Tells the engine to stop the upstream work of a call nobody waits for.
  void abandon(const std::string& correlation_id);

  tool_router_actor router_;
  std::vector<caf::actor> shards_;
  std::atomic<std::size_t> next_{0};
};

template <class Request, class Reply>
class gateway::typed_call
  : public pending_call,
    public std::enable_shared_from_this<typed_call<Request, Reply>> {
public:
  typed_call(tool_router_actor router, Request request,
             std::chrono::milliseconds timeout,
             std::shared_ptr<mcp::cancellation> cancel)
    : router_(std::move(router)),
      request_(std::move(request)),
      timeout_(timeout),
      cancel_(std::move(cancel)) {
  }

  void start(caf::event_based_actor* self) override {
    auto me = this->shared_from_this();
    self->request(router_, timeout_, std::move(request_))
      .then([me](Reply& reply) { me->complete(std::move(reply)); },
            [me](caf::error& err) { me->complete(std::move(err)); });
  }

  /// Waits until the reply arrives, the call is cancelled, or `deadline`.
  std::optional<caf::expected<Reply>>
  wait(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock<std::mutex> lock{cancel_->mutex()};
    cancel_->wait_until(lock, deadline,
                        [this] { return result_.has_value(); });
    if (cancel_->cancelled_locked())
      return caf::expected<Reply>{make_error(ec::cancelled,
                                             "the call was cancelled")};
    return std::move(result_);
  }

private:
  void complete(caf::expected<Reply> result) {
    {
      std::lock_guard<std::mutex> guard{cancel_->mutex()};
      result_ = std::move(result);
    }
    cancel_->condition().notify_all();
  }

  tool_router_actor router_;
  Request request_;
  std::chrono::milliseconds timeout_;
  std::shared_ptr<mcp::cancellation> cancel_;
  std::optional<caf::expected<Reply>> result_;
};

template <class Request, class Reply>
caf::expected<Reply>
gateway::call(Request request,
              const std::shared_ptr<mcp::cancellation>& cancel) {
  using namespace std::chrono;
  auto now = system_clock::now();
  auto deadline_ms = request.context.deadline_ms;
  auto left = deadline_ms == 0
                ? milliseconds{10000}
                : milliseconds{deadline_ms}
                    - duration_cast<milliseconds>(now.time_since_epoch());
  if (left < milliseconds{1})
    left = milliseconds{1};
  auto correlation_id = request.context.correlation_id;
  auto call = std::make_shared<typed_call<Request, Reply>>(
    router_, std::move(request), left, cancel);
  dispatch(call);
  // The actor-side request times out first; the grace covers its delivery.
  auto waited = call->wait(steady_clock::now() + left + milliseconds{500});
  if (!waited) {
    abandon(correlation_id);
    return make_error(ec::upstream_timeout,
                      "the call did not finish within its deadline");
  }
  if (cancel->cancelled())
    abandon(correlation_id);
  return std::move(*waited);
}

} // namespace transitd
