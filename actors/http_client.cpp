#include "actors/http_client.hpp"

#include <chrono>
#include <memory>
#include <random>
#include <thread>
#include <string>
#include <unordered_map>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <httplib.h>
#include <spdlog/spdlog.h>

#include "messages/time.hpp"
#include "providers/upstream_http.hpp"

namespace transitd {

namespace {

struct http_client_state {
  static inline const char* name = "http_client";
  /// One client per origin: keeps the TCP/TLS connection alive.
  std::unordered_map<std::string, std::unique_ptr<httplib::Client>> clients;
  /// Backoff jitter.
  std::minstd_rand random{std::random_device{}()};
};

httplib::Client& client_for(http_client_state& state,
                            const std::string& origin) {
  auto& slot = state.clients[origin];
  if (!slot) {
    slot = std::make_unique<httplib::Client>(origin);
    slot->set_keep_alive(true);
    slot->set_tcp_nodelay(true);
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
    slot->enable_server_certificate_verification(true);
#endif
  }
  return *slot;
}

void apply_timeout(httplib::Client& client, int32_t timeout_ms) {
  auto seconds = timeout_ms / 1000;
  auto micros = (timeout_ms % 1000) * 1000;
  client.set_connection_timeout(seconds, micros);
  client.set_read_timeout(seconds, micros);
  client.set_write_timeout(seconds, micros);
}

outcome<http_response> attempt(http_client_state& state,
                               const http_call& call) {
  auto& client = client_for(state, call.origin);
  apply_timeout(client, call.timeout_ms);
  httplib::Headers headers;
  for (const auto& [name, value] : call.headers)
    headers.emplace(name, value);
  auto started = std::chrono::steady_clock::now();
  auto result = call.method == "POST"
                  ? client.Post(call.target.c_str(), headers, call.body,
                                call.content_type.c_str())
                  : client.Get(call.target.c_str(), headers);
  auto elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - started)
                      .count();
  if (!result) {
    auto reason = httplib::to_string(result.error());
    // A dropped keep-alive connection is not the upstream's fault: the next
    // call reconnects. Forget the client so its state starts clean.
    state.clients.erase(call.origin);
    if (elapsed_ms + 50 >= call.timeout_ms)
      return make_failure(ec::upstream_timeout,
                        "upstream " + call.origin + " did not answer within "
                          + std::to_string(call.timeout_ms) + " ms",
                        "retry later");
    return make_failure(ec::network_error,
                        "cannot reach upstream " + call.origin + ": " + reason,
                        "check the upstream URL and the network");
  }
  http_response response;
  response.status = result->status;
  response.body = std::move(result->body);
  response.content_type = result->get_header_value("Content-Type");
  response.retry_after = result->get_header_value("Retry-After");
  response.received_ms = now_ms();
  return response;
}

bool retryable_status(int status) {
  return status == 429 || status == 502 || status == 503 || status == 504;
}

/// Sleeps `ms` unless that would pass the call's deadline (leaving room for
/// one more attempt); returns whether it slept.
bool wait_before_retry(const http_call& call, int64_t ms) {
  if (call.context.deadline_ms != 0
      && now_ms() + ms + call.timeout_ms / 2 > call.context.deadline_ms)
    return false;
  std::this_thread::sleep_for(std::chrono::milliseconds{ms});
  return true;
}

outcome<http_response> perform(http_client_state& state,
                               const http_call& call) {
  const auto& cid = call.context.correlation_id;
  for (int32_t n = 1;; ++n) {
    auto result = attempt(state, call);
    bool last = n >= call.max_attempts;
    if (result) {
      auto& response = *result;
      response.attempts = n;
      if (last || !retryable_status(response.status))
        return result;
      int64_t wait_ms = 0;
      if (response.status == 429) {
        // Honour the upstream's Retry-After (seconds; 1 s when absent).
        wait_ms = 1000 * parse_retry_after(response.retry_after,
                                           response.received_ms, 1);
      } else {
        std::uniform_int_distribution<int64_t> jitter{0, 100LL << n};
        wait_ms = jitter(state.random);
      }
      if (!wait_before_retry(call, wait_ms))
        return result;
      spdlog::info("[{}] upstream {} answered {}, retry {} after {} ms", cid,
                   call.origin, response.status, n, wait_ms);
      continue;
    }
    // Transport failure: retry refused/reset connections, not timeouts (a
    // hung upstream seldom recovers within one call's deadline).
    if (last || result.error().code != ec::network_error)
      return result;
    std::uniform_int_distribution<int64_t> jitter{0, 100LL << n};
    auto wait_ms = jitter(state.random);
    if (!wait_before_retry(call, wait_ms))
      return result;
    spdlog::info("[{}] upstream {} unreachable, retry {} after {} ms", cid,
                 call.origin, n, wait_ms);
  }
}

http_client_actor::behavior_type
http_client(http_client_actor::stateful_pointer<http_client_state> self) {
  return {
    [self](const http_call& call) -> caf::result<http_response> {
      try {
        auto result = perform(self->state, call);
        if (!result)
          return to_error(result.error());
        return std::move(*result);
      } catch (const std::exception& ex) {
        spdlog::error("[{}] HTTP client failed: {}",
                      call.context.correlation_id, ex.what());
        return make_error(ec::network_error,
                          std::string{"HTTP client failed: "} + ex.what());
      }
    },
  };
}

} // namespace

http_client_actor spawn_http_client(caf::actor_system& system) {
  return system.spawn<caf::detached>(http_client);
}

http_client_pool::http_client_pool(caf::actor_system& system,
                                   std::size_t size) {
  workers_.reserve(size);
  for (std::size_t i = 0; i < size; ++i)
    workers_.push_back(spawn_http_client(system));
}

const http_client_actor& http_client_pool::next() {
  const auto& worker = workers_[next_];
  next_ = (next_ + 1) % workers_.size();
  return worker;
}

} // namespace transitd
