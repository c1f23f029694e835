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
// The gateway's shards keep their own book; tool actors ask the
// DEADLINES actor (request_within), which keeps one for them.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
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

/// The timer message of a keeper.
using deadline_due_atom = caf::atom_constant<caf::atom("dl_due")>;
using deadline_book_atom = caf::atom_constant<caf::atom("dl_book")>;
using deadline_unbook_atom = caf::atom_constant<caf::atom("dl_unbook")>;

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

/// Spawns the DEADLINES actor: it books (requester, request id, deadline),
/// unbooks answered requests, and times out the others.
caf::actor spawn_deadline_keeper(caf::actor_system& system);

/// self->request(dest, timeout, msg).then(on_value, on_error), with the
/// deadline kept by `keeper` instead of CAF's clock (CAF's own timeout when
/// there is no keeper). The handlers run in `self` as with request().
template <class Answer, class Self, class Dest, class Msg, class OnValue,
          class OnError>
void request_within(Self* self, const caf::actor& keeper, const Dest& dest,
                    std::chrono::milliseconds timeout, Msg msg,
                    OnValue on_value, OnError on_error) {
  if (!keeper) {
    self->request(dest, timeout, std::move(msg))
      .then(std::move(on_value), std::move(on_error));
    return;
  }
  auto handle = self->request(dest, caf::infinite, std::move(msg));
  auto id = handle.id().integer_value();
  auto me = caf::actor_cast<caf::strong_actor_ptr>(self);
  auto deadline = self->clock().now() + timeout;
  // Enqueued on this worker (no thread woken), as a typed actor may not
  // send() to a dynamically typed one.
  caf::actor_cast<caf::abstract_actor*>(keeper)->eq_impl(
    caf::make_message_id(), nullptr, self->context(), deadline_book_atom::value,
    me, id, static_cast<int64_t>(deadline.time_since_epoch().count()));
  handle.then(
    [self, keeper, id, on_value = std::move(on_value)](Answer& answer) mutable {
      caf::actor_cast<caf::abstract_actor*>(keeper)->eq_impl(
        caf::make_message_id(), nullptr, self->context(),
        deadline_unbook_atom::value, self->id(), id);
      on_value(answer);
    },
    [self, keeper, id,
     on_error = std::move(on_error)](caf::error& err) mutable {
      caf::actor_cast<caf::abstract_actor*>(keeper)->eq_impl(
        caf::make_message_id(), nullptr, self->context(),
        deadline_unbook_atom::value, self->id(), id);
      on_error(err);
    });
}

} // namespace transitd
