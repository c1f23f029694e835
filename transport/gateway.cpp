#include "transitd/transport/gateway.hpp"

#include <caf/exit_reason.hpp>
#include <caf/send.hpp>

namespace transitd {

namespace {

caf::behavior gateway_shard(caf::event_based_actor* self) {
  return {
    [self](std::shared_ptr<pending_call>& call) { call->start(self); },
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
