#include "transitd/actors/deadline_keeper.hpp"

namespace transitd {

namespace {

/// A request: its requester's id and its own.
struct request_key {
  caf::actor_id actor = 0;
  uint64_t request = 0;
  bool operator==(const request_key& other) const {
    return actor == other.actor && request == other.request;
  }
};

struct request_key_hash {
  std::size_t operator()(const request_key& k) const {
    return std::hash<uint64_t>{}((k.actor * 0x9e3779b97f4a7c15ULL)
                                 ^ k.request);
  }
};

struct keeper_state {
  deadline_book<request_key, request_key_hash> book;
  /// The requesters of booked requests.
  std::unordered_map<request_key, caf::strong_actor_ptr, request_key_hash>
    requesters;
  static inline const char* name = "deadlines";
};

caf::behavior keeper(caf::stateful_actor<keeper_state>* self) {
  return {
    [self](deadline_book_atom, const caf::strong_actor_ptr& requester,
           uint64_t request, int64_t deadline_ns) {
      if (!requester)
        return;
      request_key key{requester->id(), request};
      auto& st = self->state;
      st.book.book(key, caf::actor_clock::time_point{
                          caf::actor_clock::duration_type{deadline_ns}});
      st.requesters[key] = requester;
      arm_deadline_timer(self, st.book);
    },
    [self](deadline_unbook_atom, caf::actor_id actor, uint64_t request) {
      request_key key{actor, request};
      self->state.book.unbook(key);
      self->state.requesters.erase(key);
    },
    [self](deadline_due_atom) {
      auto& st = self->state;
      auto now = self->clock().now();
      st.book.fired(now);
      for (const auto& key : st.book.take_due(now)) {
        auto it = st.requesters.find(key);
        if (it == st.requesters.end())
          continue;
        time_out_request(caf::actor_cast<caf::abstract_actor*>(it->second),
                         caf::message_id{key.request},
                         self->context());
        st.requesters.erase(it);
      }
      arm_deadline_timer(self, st.book);
    },
  };
}

} // namespace

caf::actor spawn_deadline_keeper(caf::actor_system& system) {
  return system.spawn(keeper);
}

} // namespace transitd
