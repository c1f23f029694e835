#include "transitd/actors/http_client.hpp"

#include <chrono>
#include <memory>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "transitd/messages/time.hpp"

namespace transitd {

namespace {

struct http_client_state {
  static inline const char* name = "http_client";
  /// Keeps one connection per origin alive.
  std::unique_ptr<http_fetcher> fetcher;
  std::size_t max_response_bytes = default_max_response_bytes;
  http_client_clock clock;
};

outcome<http_response> attempt(http_client_state& state,
                               const http_call& call) {
  http_fetch_request request;
  request.method = call.method;
  request.url = call.origin + call.target;
  request.headers = call.headers;
  if (call.method == "POST") {
    request.body = call.body;
    request.content_type = call.content_type;
  }
  http_fetch_options options;
  options.timeout = std::chrono::milliseconds{call.timeout_ms};
  options.max_bytes = state.max_response_bytes;
  options.clock = state.clock;
  auto result = state.fetcher->fetch(request, options);
  if (auto* problem = std::get_if<http_fetch_failure>(&result)) {
    switch (problem->kind) {
      case http_fetch_error::too_large:
        return make_failure(ec::upstream_error,
                            "upstream " + call.origin
                              + " sent a response over "
                              + std::to_string(state.max_response_bytes)
                              + " bytes",
                            "retry later");
      case http_fetch_error::timeout:
        return make_failure(ec::upstream_timeout,
                            "upstream " + call.origin
                              + " did not answer within "
                              + std::to_string(call.timeout_ms) + " ms",
                            "retry later");
      case http_fetch_error::cancelled:
        return make_failure(ec::cancelled, "the upstream call was aborted");
      default:
        return make_failure(ec::network_error,
                            "cannot reach upstream " + call.origin + ": "
                              + problem->message,
                            "check the upstream URL and the network");
    }
  }
  auto& answered = std::get<http_fetch_response>(result);
  http_response response;
  response.status = answered.status;
  response.body = std::move(answered.body);
  response.content_type = answered.header("Content-Type");
  response.retry_after = answered.header("Retry-After");
  response.received_ms = now_ms();
  return response;
}

http_client_actor::behavior_type
http_client(http_client_actor::stateful_pointer<http_client_state> self,
            std::shared_ptr<http_abort> abort,
            std::size_t max_response_bytes, http_client_clock clock) {
  self->state.fetcher = std::make_unique<http_fetcher>(true,
                                                      std::move(abort));
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
        self->state.fetcher->abort_handle()->end();
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
