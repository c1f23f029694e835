#include "transitd/transport/gateway.hpp"

#include <cstdint>
#include <memory>

#include <caf/exit_reason.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>

#include "transitd/actors/deadline_keeper.hpp"

namespace transitd {

namespace {

/// A shard's calls by deadline, and its one timer for the earliest.
struct shard_state {
  deadline_book<uint64_t> book;
  static inline const char* name = "gateway_shard";
};

using shard_pointer = caf::stateful_actor<shard_state>*;

caf::behavior gateway_shard(shard_pointer self) {
  return {
    [self](std::shared_ptr<pending_call>& call) {
      auto deadline = self->clock().now() + call->timeout();
      auto id = std::make_shared<uint64_t>(0);
      auto sent = call->start(self, [self, id] {
        self->state.book.unbook(*id);
      });
      if (!sent.is_response())
        return; // it had ended on its way here
      *id = sent.integer_value();
      self->state.book.book(*id, deadline);
      arm_deadline_timer(self, self->state.book);
    },
    [self](deadline_due_atom) {
      auto& book = self->state.book;
      auto now = self->clock().now();
      book.fired(now);
      for (auto id : book.take_due(now))
        time_out_request(self, caf::message_id{id}, self->context());
      arm_deadline_timer(self, book);
    },
  };
}

} // namespace

gateway::gateway(caf::actor_system& system, tool_router_actor router,
                 std::size_t shards)
  : router_(std::move(router)) {
  if (shards == 0)
    shards = 1;
  for (std::size_t i = 0; i < shards; ++i)
    shards_.push_back(system.spawn(gateway_shard));
}

gateway::~gateway() {
  stop();
}

void gateway::stop() {
  for (auto& shard : shards_)
    caf::anon_send_exit(shard, caf::exit_reason::user_shutdown);
  shards_.clear();
}

void gateway::abandon(const tool_router_actor& router,
                      const std::string& correlation_id) {
  if (!correlation_id.empty())
    caf::anon_send(router, cancel_call{correlation_id});
}

void gateway::dispatch(std::shared_ptr<pending_call> call) {
  if (shards_.empty())
    return; // stopped: the call, dropped here, answers with an error
  auto index = next_.fetch_add(1, std::memory_order_relaxed) % shards_.size();
  caf::anon_send(shards_[index], std::move(call));
}

} // namespace transitd
