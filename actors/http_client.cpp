#include "actors/http_client.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <httplib.h>
#include <spdlog/spdlog.h>

#include "messages/time.hpp"

namespace transitd {

namespace {

struct http_client_state {
  static inline const char* name = "http_client";
  /// One client per origin: keeps the TCP/TLS connection alive.
  std::unordered_map<std::string, std::unique_ptr<httplib::Client>> clients;
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

caf::result<http_response> perform(http_client_state& state,
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
      return make_error(ec::upstream_timeout,
                        "upstream " + call.origin + " did not answer within "
                          + std::to_string(call.timeout_ms) + " ms",
                        "retry later");
    return make_error(ec::network_error,
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

http_client_actor::behavior_type
http_client(http_client_actor::stateful_pointer<http_client_state> self) {
  return {
    [self](const http_call& call) -> caf::result<http_response> {
      try {
        return perform(self->state, call);
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
