#include "transitd/actors/deadline_keeper.hpp"

namespace transitd {

std::optional<deadline_registry::time_point>
deadline_registry::book(request_key key, caf::strong_actor_ptr requester,
                        time_point deadline) {
  std::lock_guard<std::mutex> lock{mutex_};
  book_.book(key, deadline);
  requesters_[key] = std::move(requester);
  return book_.timer_to_set();
}

void deadline_registry::unbook(const request_key& key) {
  caf::strong_actor_ptr requester; // released outside the lock
  std::lock_guard<std::mutex> lock{mutex_};
  book_.unbook(key);
  auto it = requesters_.find(key);
  if (it != requesters_.end()) {
    requester = std::move(it->second);
    requesters_.erase(it);
  }
}

std::vector<std::pair<request_key, caf::strong_actor_ptr>>
deadline_registry::take_due(time_point now, std::optional<time_point>& next) {
  std::vector<std::pair<request_key, caf::strong_actor_ptr>> due;
  std::lock_guard<std::mutex> lock{mutex_};
  book_.fired(now);
  for (const auto& key : book_.take_due(now)) {
    auto it = requesters_.find(key);
    if (it == requesters_.end())
      continue;
    due.emplace_back(key, std::move(it->second));
    requesters_.erase(it);
  }
  next = book_.timer_to_set();
  return due;
}

std::size_t deadline_registry::size() const {
  std::lock_guard<std::mutex> lock{mutex_};
  return book_.size();
}

namespace {

struct keeper_state {
  std::shared_ptr<deadline_registry> registry;
  static inline const char* name = "deadlines";
};

/// Sets `self`'s timer to fire at `at`.
void set_timer(caf::stateful_actor<keeper_state>* self,
               caf::actor_clock::time_point at) {
  auto now = self->clock().now();
  self->delayed_send(self,
                     at > now ? at - now
                              : caf::actor_clock::duration_type::zero(),
                     deadline_due_atom::value);
}

caf::behavior keeper(caf::stateful_actor<keeper_state>* self,
                     std::shared_ptr<deadline_registry> registry) {
  self->state.registry = std::move(registry);
  return {
    [self](deadline_arm_atom, int64_t at_ns) {
      set_timer(self, caf::actor_clock::time_point{
                        caf::actor_clock::duration_type{at_ns}});
    },
    [self](deadline_due_atom) {
      std::optional<caf::actor_clock::time_point> next;
      auto due = self->state.registry->take_due(self->clock().now(), next);
      for (const auto& [key, requester] : due)
        time_out_request(caf::actor_cast<caf::abstract_actor*>(requester),
                         caf::message_id{key.request}, self->context());
      if (next)
        set_timer(self, *next);
    },
  };
}

} // namespace

deadline_keeper spawn_deadline_keeper(caf::actor_system& system) {
  auto registry = std::make_shared<deadline_registry>();
  return deadline_keeper{system.spawn(keeper, registry), registry};
}

} // namespace transitd
