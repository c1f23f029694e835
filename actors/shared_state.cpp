#include "transitd/actors/shared_state.hpp"

#include <chrono>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

namespace transitd {

namespace {

/// Steady milliseconds (the link's reconnect backoff).
int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::steady_clock::now().time_since_epoch())
    .count();
}

struct redis_state {
  static inline const char* name = "redis";
  std::unique_ptr<redis_link> link;
  std::string label;
  int64_t commands = 0;
  bool was_up = true;
};

redis_actor::behavior_type
redis_behavior(redis_actor::stateful_pointer<redis_state> self,
               redis_endpoint endpoint, redis_link_options options,
               std::string label) {
  self->state.link = std::make_unique<redis_link>(std::move(endpoint),
                                                  options);
  self->state.label = std::move(label);
  return {
    [self](const redis_command& command) {
      auto& st = self->state;
      ++st.commands;
      auto result = st.link->run(command.argv, steady_ms());
      // Log the transitions only: a dead Redis must not flood the log.
      if (result.reachable != st.was_up) {
        if (result.reachable)
          spdlog::info("{}: Redis reachable again", st.label);
        else
          spdlog::warn("{}: Redis unreachable ({}); answering on local "
                       "limits and caches until it is back",
                       st.label, st.link->last_error());
        st.was_up = result.reachable;
      }
      return result;
    },
    [self](get_counters) {
      auto& st = self->state;
      counters c;
      c.add(st.label + ".up", st.link->connected() ? 1 : 0);
      c.add(st.label + ".commands", st.commands);
      c.add(st.label + ".failures", st.link->failures());
      c.add(st.label + ".reconnects", st.link->reconnects());
      return c;
    },
  };
}

} // namespace

redis_actor spawn_redis(caf::actor_system& system,
                        const shared_state_options& options,
                        const redis_endpoint& endpoint, std::string name) {
  return system.spawn<caf::detached>(redis_behavior, endpoint, options.link,
                                     std::move(name));
}

} // namespace transitd
