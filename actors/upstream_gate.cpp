#include "transitd/actors/upstream_gate.hpp"

#include <algorithm>
#include <chrono>

#include <caf/actor_system.hpp>
#include <caf/exit_reason.hpp>
#include <caf/sec.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "transitd/actors/rate_limiter.hpp"
#include "transitd/messages/time.hpp"
#include "transitd/messages/trips.hpp"
#include "transitd/providers/upstream_http.hpp"

namespace transitd {

namespace {

using gate_pointer = upstream_gate_actor::stateful_pointer<upstream_gate_state>;
using call_entry = upstream_gate_state::call_entry;

void admit(gate_pointer self, uint64_t id);
void pump(gate_pointer self);

/// Milliseconds left of the call's deadline (wall clock, as set by the
/// transport), or a large value when it has none.
int64_t left_ms(const http_call& call) {
  if (call.context.deadline_ms == 0)
    return int64_t{1} << 40;
  return call.context.deadline_ms - now_ms();
}

int32_t attempt_cap(const upstream_gate_state& st, const http_call& call) {
  auto cap = st.options.retry.max_attempts;
  if (call.max_attempts > 0)
    cap = std::min(cap, call.max_attempts);
  return std::max<int32_t>(1, cap);
}

/// What the breaker learns from a call's end.
enum class verdict { none, success, failure };

/// The call's key in the breaker's window: its correlation id, its relaxed
/// sub-query counted with it.
std::string breaker_call(const http_call& call) {
  return std::string{call_id_of(call.context.correlation_id)};
}

/// The query's key: the same request counts once, whoever sends it.
std::string breaker_query(const http_call& call) {
  auto h = std::hash<std::string>{}(call.method + ' ' + call.origin
                                    + call.target + '\n' + call.body);
  return std::to_string(h);
}

/// Delivers the call's final answer (a response or an error), tells the
/// breaker the call's outcome (one per call, whatever its attempts) and
/// forgets it.
template <class Answer>
void finish(gate_pointer self, uint64_t id, Answer answer,
            verdict outcome = verdict::none) {
  auto& st = self->state;
  auto it = st.calls.find(id);
  if (it == st.calls.end())
    return;
  auto& entry = it->second;
  if (entry.admitted) {
    if (outcome == verdict::none) {
      if (entry.probe)
        st.breaker.on_abandoned();
    } else {
      st.breaker.record(breaker_call(entry.call), breaker_query(entry.call),
                        outcome == verdict::failure, clock_ms(self),
                        entry.probe);
    }
  }
  entry.rp.deliver(std::move(answer));
  st.calls.erase(it);
}

void resume_after(gate_pointer self, uint64_t id, int64_t delay_ms) {
  self->delayed_send(caf::actor_cast<upstream_gate_actor>(self),
                     std::chrono::milliseconds{std::max<int64_t>(0, delay_ms)},
                     gate_resume{id});
}

/// Schedules another attempt after a backoff when the policy and the
/// deadline allow; returns false when the call must end now.
bool schedule_retry(gate_pointer self, uint64_t id, call_entry& entry) {
  auto& st = self->state;
  if (entry.cancelled || entry.attempts >= attempt_cap(st, entry.call))
    return false;
  std::uniform_real_distribution<double> unit{0.0, 1.0};
  auto wait = backoff_ms(st.options.retry, entry.attempts, unit(st.random));
  if (wait + st.options.retry.min_attempt_ms > left_ms(entry.call))
    return false;
  ++st.retries;
  spdlog::info("[{}] {}: retry {} in {} ms", entry.call.context.correlation_id,
               st.options.name, entry.attempts, wait);
  report_progress(entry.call.context,
                  st.options.name + ": attempt "
                    + std::to_string(entry.attempts) + " failed, retrying in "
                    + std::to_string(wait) + " ms");
  resume_after(self, id, wait);
  return true;
}

/// The call an attempt belonged to, unless it is gone or was cancelled
/// meanwhile (then it is answered `cancelled` here).
upstream_gate_state::call_entry* live_call(gate_pointer self, uint64_t id) {
  auto& st = self->state;
  auto it = st.calls.find(id);
  if (it == st.calls.end())
    return nullptr;
  if (it->second.cancelled) {
    finish(self, id, make_error(ec::cancelled, "the call was cancelled"));
    return nullptr;
  }
  return &it->second;
}

void on_response(gate_pointer self, uint64_t id, http_response response) {
  auto& st = self->state;
  auto* found = live_call(self, id);
  if (found == nullptr)
    return;
  auto& entry = *found;
  response.attempts = entry.attempts;
  switch (classify_status(response.status)) {
    case attempt_class::throttled: {
      // 429: the upstream is alive but wants a pause; every call to it
      // waits until its Retry-After.
      ++st.throttled;
      auto wait_s = parse_retry_after(response.retry_after,
                                      response.received_ms, 1);
      self->send(st.limiter,
                 hold_off{upstream_key(st.options.name), wait_s * 1000});
      if (entry.attempts < attempt_cap(st, entry.call)
          && wait_s * 1000 + st.options.retry.min_attempt_ms
               <= left_ms(entry.call)) {
        ++st.retries;
        spdlog::info("[{}] {}: 429, retry after {} s",
                     entry.call.context.correlation_id, st.options.name,
                     wait_s);
        resume_after(self, id, wait_s * 1000);
        return;
      }
      finish(self, id, std::move(response), verdict::success);
      return;
    }
    case attempt_class::failed:
      ++st.failures;
      if (schedule_retry(self, id, entry))
        return;
      finish(self, id, std::move(response), verdict::failure);
      return;
    default:
      finish(self, id, std::move(response), verdict::success);
  }
}

void on_failure(gate_pointer self, uint64_t id, const caf::error& err) {
  auto& st = self->state;
  auto* found = live_call(self, id);
  if (found == nullptr)
    return;
  auto& entry = *found;
  auto f = to_failure(err);
  if (classify_failure(f.code) != attempt_class::failed) {
    finish(self, id, err);
    return;
  }
  ++st.failures;
  if (schedule_retry(self, id, entry))
    return;
  finish(self, id, err, verdict::failure);
}

void send_attempt(gate_pointer self, uint64_t id, std::size_t worker) {
  auto& st = self->state;
  auto& entry = st.calls.at(id);
  st.busy[worker] = true;
  entry.worker = static_cast<int32_t>(worker);
  ++entry.attempts;
  ++st.total_attempts;
  report_progress(entry.call.context,
                  st.options.name + ": upstream attempt "
                    + std::to_string(entry.attempts));
  auto call = entry.call;
  call.timeout_ms = static_cast<int32_t>(std::clamp<int64_t>(
    left_ms(entry.call), 1, entry.call.timeout_ms));
  auto started = clock_ms(self);
  // The worker enforces the HTTP timeouts, each wait's and the whole
  // attempt's; this guard only covers a worker stuck elsewhere (a slow DNS
  // lookup, a TLS handshake trickled byte by byte), which it aborts.
  auto guard = std::chrono::milliseconds{call.timeout_ms + 2000};
  // Both outcomes first free the worker, then decide the call's fate.
  auto attempt_over = [self, id, worker, started] {
    auto& st = self->state;
    st.busy[worker] = false;
    st.attempt_ms_total += clock_ms(self) - started;
    if (auto it = st.calls.find(id); it != st.calls.end())
      it->second.worker = -1;
  };
  self->request(st.workers[worker].actor, guard, std::move(call))
    .then(
      [self, id, attempt_over](http_response& response) {
        attempt_over();
        on_response(self, id, std::move(response));
        pump(self);
      },
      [self, id, worker, attempt_over](caf::error& err) {
        // The guard fired: the worker is stuck outside its socket's
        // timeouts. Shut its connection so it is free for the next call.
        if (err == caf::sec::request_timeout)
          self->state.workers[worker].abort->abort();
        attempt_over();
        on_failure(self, id, err);
        pump(self);
      });
}

/// Sends queued calls to idle workers, oldest first.
void pump(gate_pointer self) {
  auto& st = self->state;
  while (!st.queue.empty()) {
    auto idle = std::find(st.busy.begin(), st.busy.end(), false);
    if (idle == st.busy.end())
      return;
    auto id = st.queue.front();
    st.queue.pop_front();
    auto it = st.calls.find(id);
    if (it == st.calls.end())
      continue; // cancelled while queued
    if (left_ms(it->second.call) <= 0) {
      finish(self, id, make_error(ec::upstream_timeout,
                                  "no " + st.options.name
                                    + " connection became free before the "
                                      "deadline",
                                  "retry later"));
      continue;
    }
    auto& entry = it->second;
    // A call's retries need no second verdict: the breaker counts calls.
    auto now = clock_ms(self);
    auto half_open = st.breaker.current(now)
                     == circuit_breaker::state::half_open;
    if (!entry.admitted && !st.breaker.allow(now)) {
      ++st.rejected_open;
      auto wait_s = (st.breaker.retry_in_ms(clock_ms(self)) + 999) / 1000;
      finish(self, id, make_error(ec::upstream_error,
                                  "upstream " + st.options.name
                                    + " is failing; calls fail fast until it "
                                      "recovers",
                                  "retry in about "
                                    + std::to_string(std::max<int64_t>(1,
                                                                       wait_s))
                                    + " s"));
      continue;
    }
    if (!entry.admitted) {
      entry.admitted = true;
      entry.probe = half_open;
    }
    send_attempt(self, id, static_cast<std::size_t>(idle - st.busy.begin()));
  }
}

/// Answers the call rate-limited, with when to retry.
void refuse_limited(gate_pointer self, uint64_t id, std::string message,
                    int64_t retry_after_ms) {
  ++self->state.rejected_limited;
  auto seconds = static_cast<int32_t>(
    std::max<int64_t>(1, (retry_after_ms + 999) / 1000));
  finish(self, id,
         make_error(ec::rate_limited, std::move(message),
                    "wait retryAfter seconds", seconds));
}

/// Asks the limiter for `ask`; `then` runs with the call's entry and the
/// permit, unless the call has ended meanwhile.
template <class Then>
void ask_permit(gate_pointer self, uint64_t id, acquire_permit ask,
                Then then) {
  self->request(self->state.limiter, std::chrono::seconds{5}, std::move(ask))
    .then(
      [self, id, then](permit p) mutable {
        auto it = self->state.calls.find(id);
        if (it != self->state.calls.end())
          then(it->second, p);
      },
      [self, id](caf::error& err) { finish(self, id, std::move(err)); });
}

/// Queues a call that holds its outbound token for a worker.
void enqueue(gate_pointer self, uint64_t id) {
  auto& st = self->state;
  auto it = st.calls.find(id);
  if (it == st.calls.end())
    return;
  it->second.permitted = false; // spent; a retry takes another
  if (st.queue.size() >= st.options.max_queue) {
    refuse_limited(self, id,
                   "too many calls waiting for upstream " + st.options.name,
                   1000);
    return;
  }
  st.queue.push_back(id);
  pump(self);
}

/// Takes an outbound permit, then queues the call for a worker. Decided
/// at once: a token due before the call's deadline is reserved (the call
/// waits for it on a timer, holding nothing), one due later refuses the
/// call with rate-limited and when to retry.
void admit(gate_pointer self, uint64_t id) {
  auto& st = self->state;
  auto it = st.calls.find(id);
  if (it == st.calls.end())
    return;
  if (it->second.permitted) {
    enqueue(self, id);
    return;
  }
  const auto& principal = it->second.call.context.principal;
  if (st.options.principal_shares && !it->second.share_taken
      && !principal.empty() && principal != "local") {
    // The principal's own share first: one agent cannot take the quota.
    ask_permit(self, id,
               acquire_permit{share_key(upstream_key(st.options.name),
                                        principal)},
               [self, id](call_entry& entry, const permit& p) {
                 if (!p.granted) {
                   refuse_limited(self, id,
                                  "this client's share of upstream "
                                    + self->state.options.name
                                    + "'s quota is used up",
                                  p.retry_after_ms);
                   return;
                 }
                 entry.share_taken = true;
                 admit(self, id);
               });
    return;
  }
  auto max_wait = std::max<int64_t>(
    0, std::min<int64_t>(left_ms(it->second.call), int64_t{1} << 31)
         - st.options.retry.min_attempt_ms);
  ask_permit(self, id, acquire_permit{upstream_key(st.options.name), max_wait},
             [self, id](call_entry& entry, const permit& p) {
               auto& st = self->state;
               if (p.granted && p.wait_ms > 0) {
                 entry.permitted = true;
                 resume_after(self, id, p.wait_ms);
                 return;
               }
               if (!p.granted) {
                 if (p.retry_after_ms + st.options.retry.min_attempt_ms
                     <= left_ms(entry.call)) {
                   resume_after(self, id, p.retry_after_ms);
                   return;
                 }
                 refuse_limited(self, id,
                                "upstream " + st.options.name
                                  + " is rate limited; no request could be "
                                    "sent before the deadline",
                                p.retry_after_ms);
                 return;
               }
               enqueue(self, id);
             });
}

} // namespace

upstream_gate_actor::behavior_type
upstream_gate(upstream_gate_actor::stateful_pointer<upstream_gate_state> self,
              upstream_gate_options options, rate_limiter_actor limiter,
              std::vector<http_worker> workers) {
  auto& st = self->state;
  st.breaker = circuit_breaker{options.breaker};
  st.options = std::move(options);
  st.limiter = std::move(limiter);
  st.workers = std::move(workers);
  st.busy.assign(st.workers.size(), false);
  std::vector<http_client_actor> owned;
  for (const auto& w : st.workers)
    owned.push_back(w.actor);
  self->attach_functor([owned](const caf::error&) {
    for (const auto& w : owned)
      caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
  });
  return {
    [self](http_call& call) -> caf::result<http_response> {
      auto& st = self->state;
      if (st.workers.empty())
        return make_error(ec::internal_error,
                          "upstream " + st.options.name + " has no workers");
      auto id = ++st.next_id;
      ++st.total_calls;
      auto rp = self->make_response_promise<http_response>();
      st.calls.emplace(id, call_entry{std::move(call), rp});
      admit(self, id);
      return rp;
    },
    [self](const cancel_call& request) {
      auto& st = self->state;
      std::vector<uint64_t> waiting;
      for (auto& [id, entry] : st.calls) {
        if (!cancel_covers(request.correlation_id,
                           entry.call.context.correlation_id)
            || entry.cancelled)
          continue;
        entry.cancelled = true;
        ++st.cancelled;
        if (entry.worker >= 0)
          st.workers[static_cast<std::size_t>(entry.worker)].abort->abort();
        else
          waiting.push_back(id);
      }
      for (auto id : waiting)
        finish(self, id, make_error(ec::cancelled, "the call was cancelled"));
    },
    [self](const gate_resume& resume) {
      auto& st = self->state;
      auto it = st.calls.find(resume.id);
      if (it == st.calls.end())
        return;
      admit(self, resume.id);
    },
    [self](get_counters) {
      auto& st = self->state;
      auto now = clock_ms(self);
      counters c;
      const auto& n = st.options.name;
      c.add(n + ".calls", st.total_calls);
      c.add(n + ".attempts", st.total_attempts);
      c.add(n + ".retries", st.retries);
      c.add(n + ".failures", st.failures);
      c.add(n + ".throttled", st.throttled);
      c.add(n + ".rejected_breaker_open", st.rejected_open);
      c.add(n + ".rejected_rate_limited", st.rejected_limited);
      c.add(n + ".cancelled", st.cancelled);
      c.add(n + ".attempt_ms_total", st.attempt_ms_total);
      c.add(n + ".breaker_opened", st.breaker.times_opened());
      c.add(n + ".breaker_open",
            st.breaker.current(now) == circuit_breaker::state::closed ? 0 : 1);
      c.add(n + ".breaker_window_calls",
            static_cast<int64_t>(st.breaker.calls_in_window()));
      c.add(n + ".breaker_window_failures",
            static_cast<int64_t>(st.breaker.failures_in_window()));
      c.add(n + ".in_flight",
            std::count(st.busy.begin(), st.busy.end(), true));
      c.add(n + ".queued", static_cast<int64_t>(st.queue.size()));
      return c;
    },
  };
}

upstream_gate_actor spawn_upstream_gate(caf::actor_system& system,
                                        upstream_gate_options options,
                                        rate_limiter_actor limiter,
                                        std::size_t workers) {
  std::vector<http_worker> pool;
  pool.reserve(std::max<std::size_t>(1, workers));
  for (std::size_t i = 0; i < std::max<std::size_t>(1, workers); ++i)
    pool.push_back(spawn_http_client(system));
  return system.spawn(upstream_gate, std::move(options), std::move(limiter),
                      std::move(pool));
}

} // namespace transitd
