#pragma once
#include <algorithm>
// What every tool actor shares: its options, the deadline arithmetic, and
// the skeleton of a call past validation (ask the provider within the
// call's remaining time, build the reply, add the standing warnings,
// deliver).

#include <chrono>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include <caf/actor.hpp>
#include <caf/typed_response_promise.hpp>
#include <spdlog/spdlog.h>

#include "transitd/actors/deadline_keeper.hpp"
#include "transitd/messages/caf_glue.hpp"
#include "transitd/messages/common.hpp"
#include "transitd/messages/error.hpp"

namespace transitd {

struct tool_options {
  /// Upper bound on a provider round trip when the call has no deadline.
  int32_t timeout_ms = 10000;
  /// Attached to every reply (e.g. "demo-data").
  std::vector<warning> standing_warnings;
  /// The engine's clock runs this far from the system clock (--clock:
  /// serving recorded data); results are computed for the shifted time.
  int64_t clock_offset_ms = 0;
  /// DEADLINES (deadline_keeper.hpp): keeps the provider requests'
  /// deadlines; none: CAF's request timeout does.
  deadline_keeper deadlines;
};

/// The instant a call is answered for, epoch seconds: its receipt (else
/// now) on the engine's clock.
int64_t service_now_seconds(const call_context& context,
                            const tool_options& options);

/// Milliseconds left until the call's deadline, else `fallback_ms`; never
/// below 1.
int64_t remaining_ms(const call_context& context, int64_t fallback_ms);

/// The call's remaining time as a CAF request timeout.
inline std::chrono::milliseconds time_left(const call_context& context,
                                           const tool_options& options) {
  return std::chrono::milliseconds{remaining_ms(context, options.timeout_ms)};
}

/// The refusal of an invalid request, logged with the call's id.
inline caf::error rejected(std::string_view actor, const call_context& context,
                           const failure& problem) {
  spdlog::info("[{}] {} rejected: {}", context.correlation_id, actor,
               problem.message);
  return to_error(problem);
}

/// Adds the tool's standing warnings and delivers a built reply; a
/// failed build is delivered as its error.
template <class Reply>
void deliver_reply(caf::typed_response_promise<Reply>& rp, Reply reply,
                   const tool_options& options) {
  for (const auto& w : options.standing_warnings)
    if (std::none_of(reply.warnings.begin(), reply.warnings.end(),
                     [&](const warning& had) { return had.code == w.code; }))
      reply.warnings.push_back(w);
  rp.deliver(std::move(reply));
}

template <class Reply>
void deliver_reply(caf::typed_response_promise<Reply>& rp,
                   outcome<Reply> reply, const tool_options& options) {
  if (!reply) {
    rp.deliver(to_error(reply.error()));
    return;
  }
  deliver_reply(rp, std::move(*reply), options);
}

/// The common shape of a tool call once its request is valid: asks
/// `provider` with `query` within the call's remaining time, turns its
/// `Answer` into the reply with `build` (returning a Reply or an
/// outcome<Reply>) and delivers it with the standing warnings. A provider
/// failure reaches the caller unchanged. `options` lives in the actor's
/// state (callbacks run inside the actor).
template <class Answer, class Reply, class Self, class Provider, class Query,
          class Build>
void ask_provider(Self* self, caf::typed_response_promise<Reply> rp,
                  const Provider& provider, const call_context& context,
                  const tool_options& options, Query query, Build build) {
  auto failed = [rp](caf::error& err) mutable { rp.deliver(std::move(err)); };
  // A build that only reads the answer gets it const (request_within: a
  // shared answer is then not copied).
  if constexpr (std::is_invocable_v<Build&, const Answer&>)
    request_within<Answer>(
      self, options.deadlines, provider, time_left(context, options),
      std::move(query),
      [rp, &options, build = std::move(build)](const Answer& answer) mutable {
        deliver_reply(rp, build(answer), options);
      },
      std::move(failed));
  else
    request_within<Answer>(
      self, options.deadlines, provider, time_left(context, options),
      std::move(query),
      [rp, &options, build = std::move(build)](Answer& answer) mutable {
        deliver_reply(rp, build(answer), options);
      },
      std::move(failed));
}

} // namespace transitd
