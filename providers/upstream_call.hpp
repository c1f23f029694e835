#pragma once
// The one way a provider actor calls its upstream: hand an http_call to its
// UPSTREAM_GATE (limits, breaker, retries), map non-200 answers and
// transport failures to the contract's codes, parse 200 answers, deliver
// through a response promise.

#include <algorithm>
#include <chrono>
#include <string>

#include <caf/typed_response_promise.hpp>
#include <spdlog/spdlog.h>

#include "messages/interfaces.hpp"
#include "messages/time.hpp"
#include "providers/upstream_http.hpp"

namespace transitd {

/// `parse(response)` turns any answered HTTP response into
/// outcome<Result>; transport failures become the contract's codes.
template <class Result, class Self, class Parse>
caf::typed_response_promise<Result>
call_upstream_response(Self* self, const upstream_gate_actor& gate, http_call call,
                       std::string upstream_name, Parse parse) {
  auto rp = self->template make_response_promise<Result>();
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
      [rp, cid, upstream_name, parse](http_response& response) mutable {
        outcome<Result> parsed = parse(response);
        if (!parsed) {
          spdlog::warn("[{}] {}: {}", cid, upstream_name,
                       parsed.error().message);
          rp.deliver(to_error(parsed.error()));
          return;
        }
        rp.deliver(std::move(*parsed));
      },
      [rp, cid, upstream_name](caf::error& err) mutable {
        spdlog::warn("[{}] {}: {}", cid, upstream_name,
                     to_failure(err).message);
        rp.deliver(std::move(err));
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
