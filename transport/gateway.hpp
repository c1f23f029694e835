#pragma once
// GATEWAY: the bridge from HTTP threads into the actor system. An HTTP
// thread hands a typed request to one of a few long-lived event-based
// gateway actors and goes back to its connection; the typed reply (or the
// deadline, or cancellation) reaches a callback on the actor's thread,
// which writes the HTTP reply. A blocking scoped_actor per call would pile
// up stale request timeouts in CAF 0.17; a shared gateway does not.
//
// The shards keep the calls' deadlines themselves. CAF 0.17's request
// timeout costs every call two trips through the clock thread (set, then
// fired later as a stale message even when the reply came in time): at
// thousands of cached calls a second that was a tenth of the daemon's CPU.
// A shard books each call's deadline and keeps one timer for the earliest;
// when it passes, the shard answers the request itself with CAF's
// request_timeout, exactly as the clock would have.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <functional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/expected.hpp>
#include <caf/message_id.hpp>

#include "transitd/messages/interfaces.hpp"
#include "transitd/transport/tool_catalog.hpp"

namespace transitd {

/// A call waiting for its reply; runs inside a gateway actor.
class pending_call {
public:
  virtual ~pending_call() = default;
  /// Sends the request (without a CAF timeout) and returns the id its
  /// reply will carry; `settled` runs once the reply, or its timeout, has
  /// arrived. An id that is no response id: nothing was sent (the call
  /// had ended already).
  virtual caf::message_id start(caf::event_based_actor* self,
                                std::function<void()> settled)
    = 0;
  /// How long the call may wait for its reply, from start().
  virtual std::chrono::milliseconds timeout() const = 0;
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

  /// Sends `request` to TOOL_ROUTER and returns at once. `done` gets the
  /// reply or the error exactly once, on an actor's thread (or, when the
  /// call ends before it starts, on the caller's or canceller's): by the
  /// deadline in the request's context at the latest (the shard's
  /// deadline book answers with CAF's request_timeout: upstream-timeout); at once when `cancel` fires (ec::cancelled,
  /// and the engine is told to stop the call's upstream work); and, should
  /// the call be dropped unanswered (the gateway stopping), with an
  /// internal error.
  template <class Request, class Reply>
  void call(Request request, const std::shared_ptr<mcp::cancellation>& cancel,
            std::function<void(caf::expected<Reply>)> done);

  /// Stops the gateway actors.
  void stop();

private:
  template <class Request, class Reply>
  class typed_call;

  void dispatch(std::shared_ptr<pending_call> call);
  /// Tells the engine to stop the upstream work of a call nobody waits for.
  static void abandon(const tool_router_actor& router,
                      const std::string& correlation_id);

  tool_router_actor router_;
  std::vector<caf::actor> shards_;
  std::atomic<std::size_t> next_{0};
};

template <class Request, class Reply>
class gateway::typed_call
  : public pending_call,
    public std::enable_shared_from_this<typed_call<Request, Reply>> {
public:
  using callback = std::function<void(caf::expected<Reply>)>;

  typed_call(tool_router_actor router, Request request,
             std::chrono::milliseconds timeout, callback done)
    : router_(std::move(router)),
      request_(std::move(request)),
      timeout_(timeout),
      done_(std::move(done)) {
  }

  ~typed_call() override {
    // Nothing holds the call any more and nobody answered it: the gateway
    // stopped before it reached TOOL_ROUTER, or its actor went away.
    complete(make_error(ec::internal_error,
                        "the engine stopped before answering the call"));
  }

  caf::message_id start(caf::event_based_actor* self,
                        std::function<void()> settled) override {
    if (finished_.load(std::memory_order_acquire))
      return {}; // cancelled on its way here
    auto me = this->shared_from_this();
    auto handle = self->request(router_, caf::infinite, std::move(request_));
    auto id = handle.id();
    handle.then(
      [me, settled](Reply& reply) {
        settled();
        me->complete(std::move(reply));
      },
      [me, settled](caf::error& err) {
        settled();
        me->complete(std::move(err));
      });
    return id;
  }

  std::chrono::milliseconds timeout() const override {
    return timeout_;
  }

  /// Hands `result` to the callback unless an earlier result did; true
  /// when this one did.
  bool complete(caf::expected<Reply> result) {
    if (finished_.exchange(true, std::memory_order_acq_rel))
      return false;
    auto done = std::move(done_);
    done_ = nullptr;
    done(std::move(result));
    return true;
  }

private:
  tool_router_actor router_;
  Request request_;
  std::chrono::milliseconds timeout_;
  callback done_;
  std::atomic<bool> finished_{false};
};

template <class Request, class Reply>
void gateway::call(Request request,
                   const std::shared_ptr<mcp::cancellation>& cancel,
                   std::function<void(caf::expected<Reply>)> done) {
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
    router_, std::move(request), left, std::move(done));
  // The canceller holds the call weakly: a call that has ended is gone.
  std::weak_ptr<typed_call<Request, Reply>> weak = call;
  cancel->on_cancel([weak, router = router_, correlation_id] {
    if (auto c = weak.lock();
        c && c->complete(make_error(ec::cancelled, "the call was cancelled")))
      abandon(router, correlation_id);
  });
  dispatch(std::move(call));
}

} // namespace transitd
