#include "transitd/actors/http_client.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <httplib.h>
#include <spdlog/spdlog.h>

#include "transitd/messages/time.hpp"

namespace transitd {

void http_abort::begin(httplib::Client* client) {
  std::lock_guard<std::mutex> guard{mutex_};
  active_ = client;
}

void http_abort::end() {
  std::lock_guard<std::mutex> guard{mutex_};
  active_ = nullptr;
}

bool http_abort::abort() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (active_ == nullptr)
    return false;
  active_->stop();
  ++aborted_;
  return true;
}

std::size_t http_abort::aborted() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return aborted_;
}

namespace {

struct http_client_state {
  static inline const char* name = "http_client";
  /// One client per origin: keeps the TCP/TLS connection alive.
  std::unordered_map<std::string, std::unique_ptr<httplib::Client>> clients;
  std::shared_ptr<http_abort> abort;
  std::size_t max_response_bytes = default_max_response_bytes;
  http_client_clock clock;

  std::chrono::steady_clock::time_point now() const {
    return clock ? clock() : std::chrono::steady_clock::now();
  }
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
  httplib::Request request;
  request.method = call.method;
  request.path = call.target;
  for (const auto& [name, value] : call.headers)
    request.headers.emplace(name, value);
  if (call.method == "POST") {
    request.body = call.body;
    if (!call.content_type.empty())
      request.headers.emplace("Content-Type", call.content_type);
  }
  auto started = state.now();
  // httplib bounds each wait for bytes, not the whole response nor its
  // size: an upstream trickling its body, or sending without end, is cut
  // off here.
  auto deadline = started + std::chrono::milliseconds{call.timeout_ms};
  enum class cut { none, too_large, too_slow } cut_off = cut::none;
  std::string body;
  request.content_receiver = [&](const char* data, std::size_t n, uint64_t,
                                 uint64_t) {
    if (body.size() + n > state.max_response_bytes) {
      cut_off = cut::too_large;
      return false;
    }
    if (state.now() > deadline) {
      cut_off = cut::too_slow;
      return false;
    }
    body.append(data, n);
    return true;
  };
  state.abort->begin(&client);
  auto result = client.send(request);
  state.abort->end();
  auto elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      state.now() - started)
                      .count();
  if (!result) {
    auto reason = httplib::to_string(result.error());
    // A dropped keep-alive connection is not the upstream's fault: the next
    // call reconnects. Forget the client so its state starts clean (and a
    // body cut off midway is not read as the next response).
    state.clients.erase(call.origin);
    if (cut_off == cut::too_large)
      return make_failure(ec::upstream_error,
                          "upstream " + call.origin + " sent a response over "
                            + std::to_string(state.max_response_bytes)
                            + " bytes",
                          "retry later");
    if (cut_off == cut::too_slow || elapsed_ms + 50 >= call.timeout_ms)
      return make_failure(ec::upstream_timeout,
                          "upstream " + call.origin + " did not answer within "
                            + std::to_string(call.timeout_ms) + " ms",
                          "retry later");
    if (result.error() == httplib::Error::Canceled)
      return make_failure(ec::cancelled, "the upstream call was aborted");
    return make_failure(ec::network_error,
                        "cannot reach upstream " + call.origin + ": " + reason,
                        "check the upstream URL and the network");
  }
  http_response response;
  response.status = result->status;
  response.body = std::move(body);
  response.content_type = result->get_header_value("Content-Type");
  response.retry_after = result->get_header_value("Retry-After");
  response.received_ms = now_ms();
  return response;
}

http_client_actor::behavior_type
http_client(http_client_actor::stateful_pointer<http_client_state> self,
            std::shared_ptr<http_abort> abort,
            std::size_t max_response_bytes, http_client_clock clock) {
  self->state.abort = std::move(abort);
  self->state.max_response_bytes = max_response_bytes;
  self->state.clock = std::move(clock);
  return {
    [self](const http_call& call) -> caf::result<http_response> {
      try {
        auto result = attempt(self->state, call);
        if (!result)
          return to_error(result.error());
        return std::move(*result);
      } catch (const std::exception& ex) {
        self->state.abort->end();
        spdlog::error("[{}] HTTP client failed: {}",
                      call.context.correlation_id, ex.what());
        return make_error(ec::network_error,
                          std::string{"HTTP client failed: "} + ex.what());
      }
    },
  };
}

} // namespace

http_worker spawn_http_client(caf::actor_system& system,
                              std::size_t max_response_bytes,
                              http_client_clock clock) {
  auto abort = std::make_shared<http_abort>();
  return {system.spawn<caf::detached>(http_client, abort, max_response_bytes,
                                      std::move(clock)),
          abort};
}

} // namespace transitd
