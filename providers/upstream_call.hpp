#pragma once
// The one way a provider actor calls its upstream: hand an http_call to its
// UPSTREAM_GATE (limits, breaker, retries), map non-200 answers and
// transport failures to the contract's codes, parse 200 answers, deliver
// through a response promise.

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include <caf/typed_response_promise.hpp>
#include <spdlog/spdlog.h>

#include "transitd/messages/interfaces.hpp"
#include "transitd/messages/caf_glue.hpp"
#include "transitd/messages/time.hpp"
#include "transitd/providers/upstream_http.hpp"

namespace transitd {

/// What every provider actor keeps to reach its upstream: the URL split
/// once at start (a bad one is logged, and then every call answers
/// upstream-error), the gate, the attempt timeout and the key header.
struct upstream_client {
  /// For logs and errors ("Digitransit routing").
  std::string name;
  std::string origin;
  std::string path;
  upstream_gate_actor gate;
  int32_t timeout_ms = 5000;
  /// The header carrying the API key, and the key (empty: not sent).
  std::string key_header;
  std::string key;

  upstream_client() = default;
  upstream_client(std::string upstream_name, std::string_view url,
                  upstream_gate_actor upstream_gate, int32_t attempt_timeout_ms,
                  std::string api_key_header, std::string api_key)
    : name(std::move(upstream_name)),
      gate(std::move(upstream_gate)),
      timeout_ms(attempt_timeout_ms),
      key_header(std::move(api_key_header)),
      key(std::move(api_key)) {
    if (auto split = split_url(url)) {
      origin = split->origin;
      path = split->path;
    } else {
      spdlog::error("{}: {}", name, split.error().message);
    }
  }

  /// The failure of every call when the URL could not be used.
  std::optional<caf::error> unusable() const {
    if (!origin.empty())
      return std::nullopt;
    return make_error(ec::upstream_error,
                      "the " + name + " URL is not usable");
  }

  /// An attempt of `method` on `target` (path and query, from the origin),
  /// with the key header when there is a key.
  http_call make_call(const call_context& context, std::string method,
                      std::string target) const {
    http_call call;
    call.context = context;
    call.method = std::move(method);
    call.origin = origin;
    call.target = std::move(target);
    call.timeout_ms = timeout_ms;
    if (!key.empty())
      call.headers.emplace_back(key_header, key);
    return call;
  }
};

/// `parse(response)` turns any answered HTTP response into
/// outcome<Result>; transport failures become the contract's codes;
/// `done(outcome<Result>)` receives either (for a call that goes on).
template <class Result, class Self, class Parse, class Done>
void call_upstream_then(Self* self, const upstream_gate_actor& gate,
                        http_call call, std::string upstream_name,
                        Parse parse, Done done) {
  auto cid = call.context.correlation_id;
  // The gate enforces the HTTP timeouts and the deadline between retries;
  // the request timeout only guards against a lost gate.
  int64_t guard_ms = int64_t{call.timeout_ms} * 4 + 1000;
  if (call.context.deadline_ms != 0)
    guard_ms = std::max<int64_t>(1000,
                                 call.context.deadline_ms - now_ms() + 500);
  auto guard = std::chrono::milliseconds{guard_ms};
  self->request(gate, guard, std::move(call))
    .then(
      [cid, upstream_name, parse, done](http_response& response) mutable {
        outcome<Result> parsed = parse(response);
        if (!parsed)
          spdlog::warn("[{}] {}: {}", cid, upstream_name,
                       parsed.error().message);
        done(std::move(parsed));
      },
      [cid, upstream_name, done](caf::error& err) mutable {
        auto f = to_failure(err);
        spdlog::warn("[{}] {}: {}", cid, upstream_name, f.message);
        done(outcome<Result>{std::move(f)});
      });
}

/// As `call_upstream_then`, delivering through a response promise.
template <class Result, class Self, class Parse>
caf::typed_response_promise<Result>
call_upstream_response(Self* self, const upstream_gate_actor& gate, http_call call,
                       std::string upstream_name, Parse parse) {
  auto rp = self->template make_response_promise<Result>();
  call_upstream_then<Result>(self, gate, std::move(call),
                             std::move(upstream_name), std::move(parse),
                             [rp](outcome<Result> result) mutable {
                               if (result)
                                 rp.deliver(std::move(*result));
                               else
                                 rp.deliver(to_error(result.error()));
                             });
  return rp;
}

/// The common case: a 200 answer is parsed by `parse(body, received_ms)`,
/// anything else is mapped by classify_http_failure.
template <class Result, class Self, class Parse>
caf::typed_response_promise<Result>
call_upstream(Self* self, const upstream_gate_actor& gate, http_call call,
              std::string upstream_name, Parse parse) {
  auto name = upstream_name;
  return call_upstream_response<Result>(
    self, gate, std::move(call), std::move(upstream_name),
    [parse, name](const http_response& response) -> outcome<Result> {
      if (response.status != 200)
        return classify_http_failure(response, name);
      return parse(response.body, response.received_ms);
    });
}

} // namespace transitd
