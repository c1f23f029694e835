#pragma once
// DEADLINES: request deadlines kept apart from CAF's clock.
//
// CAF 0.17 sends every request with a timeout through its clock thread
// twice: when it is made, and when its timeout fires later (as a stale
// message to the requester, even after a reply in time). At thousands of
// cached calls a second the two requests of a call (the gateway's and its
// tool's provider's) cost a tenth of the daemon's CPU and a thread wake-up
// per call. A deadline_book keeps the deadlines of many requests and one
// timer for the earliest; when a deadline passes, the requester gets CAF's
// own `request_timeout` error as the reply, exactly as from the clock, and
// CAF forgets the request (a late reply is dropped).
//
// The gateway's shards keep their own book; tool actors book theirs in
// the DEADLINES keeper's (request_within): under its lock, from the
// requester's own thread, so a request answered in time costs no message;
// the DEADLINES actor only runs the timer and times out what is due.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_clock.hpp>
#include <caf/atom.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/sec.hpp>
#include <caf/stateful_actor.hpp>

namespace transitd {

/// Deadlines by key, and the timer a keeper has set for the earliest.
template <class Key, class Hash = std::hash<Key>>
class deadline_book {
public:
  using time_point = caf::actor_clock::time_point;

  void book(Key key, time_point deadline) {
    auto it = by_time_.emplace(deadline, key);
    by_key_[std::move(key)] = it;
  }

  /// Forgets `key` (answered in time); nothing when it is not booked.
  void unbook(const Key& key) {
    auto it = by_key_.find(key);
    if (it == by_key_.end())
      return;
    by_time_.erase(it->second);
    by_key_.erase(it);
  }

  /// Removes and returns the keys whose deadline is `now` or earlier, the
  /// earliest first.
  std::vector<Key> take_due(time_point now) {
    std::vector<Key> due;
    while (!by_time_.empty() && by_time_.begin()->first <= now) {
      auto key = by_time_.begin()->second;
      unbook(key);
      due.push_back(std::move(key));
    }
    return due;
  }

  /// A timer set for `at` has fired at `now`.
  void fired(time_point now) {
    if (armed_ <= now)
      armed_ = time_point::max();
  }

  /// When a new timer must fire: the earliest deadline, unless a timer set
  /// already fires by then (the result is then taken as set).
  std::optional<time_point> timer_to_set() {
    if (by_time_.empty() || by_time_.begin()->first >= armed_)
      return std::nullopt;
    armed_ = by_time_.begin()->first;
    return armed_;
  }

  std::size_t size() const {
    return by_key_.size();
  }

private:
  std::multimap<time_point, Key> by_time_;
  std::unordered_map<Key, typename std::multimap<time_point, Key>::iterator,
                     Hash>
    by_key_;
  time_point armed_ = time_point::max();
};

/// The timer message of a keeper, and the request to set its timer.
using deadline_due_atom = caf::atom_constant<caf::atom("dl_due")>;
using deadline_arm_atom = caf::atom_constant<caf::atom("dl_arm")>;

/// Sets the keeper `self`'s timer if `book` needs one.
template <class Self, class Book>
void arm_deadline_timer(Self* self, Book& book) {
  if (auto at = book.timer_to_set()) {
    auto now = self->clock().now();
    self->delayed_send(self,
                       *at > now ? *at - now
                                 : caf::actor_clock::duration_type::zero(),
                       deadline_due_atom::value);
  }
}

/// Answers a request of `requester` with CAF's request_timeout; `id` is
/// the id its reply carries (what request() returns: response_handle::id).
inline void time_out_request(caf::abstract_actor* requester,
                             caf::message_id id,
                             caf::execution_unit* context) {
  requester->eq_impl(id, nullptr, context,
                     caf::make_error(caf::sec::request_timeout));
}

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

/// The requests whose deadlines a keeper keeps, shared by the requesters
/// (which book and unbook from their own threads) and the DEADLINES actor
/// (which times out what is due).
class deadline_registry {
public:
  using time_point = caf::actor_clock::time_point;

  /// Books a request; returns when the keeper's timer must fire, if this
  /// deadline is earlier than any timer set.
  std::optional<time_point> book(request_key key,
                                 caf::strong_actor_ptr requester,
                                 time_point deadline);
  /// Forgets an answered request.
  void unbook(const request_key& key);
  /// The keeper's timer fired at `now`: the requests due, with their
  /// requesters, and when the timer must fire next (if it must).
  std::vector<std::pair<request_key, caf::strong_actor_ptr>>
  take_due(time_point now, std::optional<time_point>& next);
  std::size_t size() const;

private:
  mutable std::mutex mutex_;
  deadline_book<request_key, request_key_hash> book_;
  std::unordered_map<request_key, caf::strong_actor_ptr, request_key_hash>
    requesters_;
};

/// DEADLINES: the registry tool actors book in, and the actor that runs its
/// timer. Empty: none (CAF's request timeouts then).
class deadline_keeper {
public:
  deadline_keeper() = default;
  deadline_keeper(caf::actor timer, std::shared_ptr<deadline_registry> book)
    : timer_(std::move(timer)), book_(std::move(book)) {
  }
  explicit operator bool() const {
    return timer_ && book_;
  }
  /// The actor that runs the timer (to stop it).
  const caf::actor& actor() const {
    return timer_;
  }
  deadline_registry& registry() const {
    return *book_;
  }

private:
  caf::actor timer_;
  std::shared_ptr<deadline_registry> book_;
};

/// Spawns DEADLINES: a registry, and the actor that times out its
/// requests when their deadlines pass.
deadline_keeper spawn_deadline_keeper(caf::actor_system& system);

/// self->request(dest, timeout, msg).then(on_value, on_error), with the
/// deadline kept by `keeper` instead of CAF's clock (CAF's own timeout when
/// there is no keeper). The handlers run in `self` as with request().
template <class Answer, class Self, class Dest, class Msg, class OnValue,
          class OnError>
void request_within(Self* self, const deadline_keeper& keeper,
                    const Dest& dest, std::chrono::milliseconds timeout,
                    Msg msg, OnValue on_value, OnError on_error) {
  if (!keeper) {
    self->request(dest, timeout, std::move(msg))
      .then(std::move(on_value), std::move(on_error));
    return;
  }
  auto handle = self->request(dest, caf::infinite, std::move(msg));
  request_key key{self->id(), handle.id().integer_value()};
  auto deadline = self->clock().now() + timeout;
  if (auto at = keeper.registry().book(
        key, caf::actor_cast<caf::strong_actor_ptr>(self), deadline)) {
    // Enqueued on this worker (no thread woken), as a typed actor may not
    // send() to a dynamically typed one.
    caf::actor_cast<caf::abstract_actor*>(keeper.actor())
      ->eq_impl(caf::make_message_id(), nullptr, self->context(),
                deadline_arm_atom::value,
                static_cast<int64_t>(at->time_since_epoch().count()));
  }
  auto failed = [keeper, key,
                 on_error = std::move(on_error)](caf::error& err) mutable {
    keeper.registry().unbook(key);
    on_error(err);
  };
  // A handler that only reads the answer takes it const: CAF then leaves a
  // shared answer (a cache hit's) in place instead of copying it.
  if constexpr (std::is_invocable_v<OnValue&, const Answer&>)
    handle.then(
      [keeper, key,
       on_value = std::move(on_value)](const Answer& answer) mutable {
        keeper.registry().unbook(key);
        on_value(answer);
      },
      std::move(failed));
  else
    handle.then(
      [keeper, key, on_value = std::move(on_value)](Answer& answer) mutable {
        keeper.registry().unbook(key);
        on_value(answer);
      },
      std::move(failed));
}

} // namespace transitd
