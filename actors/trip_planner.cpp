#include "transitd/actors/trip_planner.hpp"

#include <algorithm>
#include <chrono>
#include <memory>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "transitd/messages/time.hpp"

namespace transitd {

namespace {

using planner_pointer
  = trip_planner_actor::stateful_pointer<trip_planner_state>;

/// One plan_trip call in flight. Every callback runs inside the actor, so
/// the fields need no locking; the last callback to finish frees it.
struct plan_call {
  caf::typed_response_promise<plan_trip_reply> rp;
  plan_trip_request request;
  int64_t time = 0;
  location_ref origin;
  location_ref destination;
  // Label resolution.
  int labels_pending = 0;
  std::optional<failure> label_failure;
  // The fan-out (D12): answers and failures of both queries.
  std::optional<trip_plans> primary;
  std::optional<trip_plans> relaxed;
  std::optional<caf::error> primary_error;
  bool primary_done = false;
  bool relax_sent = false;
  bool relaxed_done = false;
  bool done = false;
};

using call_ptr = std::shared_ptr<plan_call>;

std::chrono::milliseconds time_left(planner_pointer self,
                                    const call_ptr& call) {
  return std::chrono::milliseconds{
    remaining_ms(call->request.context, self->state.options.tool.timeout_ms)};
}

void send_relaxed(planner_pointer self, const call_ptr& call);

/// The relaxed query's own correlation id: cancelling it leaves the
/// primary's upstream work alone.
std::string relaxed_id(const call_ptr& call) {
  return transitd::relaxed_id(call->request.context.correlation_id);
}

void fail(const call_ptr& call, caf::error err) {
  if (call->done)
    return;
  call->done = true;
  call->rp.deliver(std::move(err));
}

/// The relaxed query is no longer needed: stop its upstream attempt (the
/// gate aborts it, as for notifications/cancelled).
void cancel_relaxed(planner_pointer self, const call_ptr& call) {
  if (!call->relax_sent || call->relaxed_done)
    return;
  call->relaxed_done = true;
  self->send(self->state.journey_planner, cancel_call{relaxed_id(call)});
}

/// Replies from the primary answer and, when it is disrupted, the relaxed
/// one.
void finish(planner_pointer self, const call_ptr& call) {
  if (call->done)
    return;
  const auto& primary = *call->primary;
  bool disrupted = is_disrupted(primary);
  bool relax_allowed = call->request.include_disruption_alt;
  // The relaxed answer counts only when the primary is disrupted or empty.
  const trip_plans* relaxed = disrupted && call->relaxed ? &*call->relaxed
                                                         : nullptr;
  auto merged = merge_plans(primary, relaxed);
  auto freshness = std::max(primary.fetched_ms,
                            relaxed ? relaxed->fetched_ms : int64_t{0});
  // The provider's instant: a time without an offset read where it is.
  auto time = primary.time != 0 ? primary.time : call->time;
  auto reply = build_plan_reply(call->request, call->origin,
                                call->destination, time,
                                std::move(merged), freshness,
                                relax_allowed && disrupted,
                                self->state.options.tool.clock_offset_ms);
  call->done = true;
  if (!reply) {
    call->rp.deliver(to_error(reply.error()));
    return;
  }
  // The planner's own (a stale realtime source), then the standing ones.
  for (const auto& w : primary.warnings)
    if (std::find(reply->warnings.begin(), reply->warnings.end(), w)
        == reply->warnings.end())
      reply->warnings.push_back(w);
  for (const auto& w : self->state.options.tool.standing_warnings)
    reply->warnings.push_back(w);
  call->rp.deliver(std::move(*reply));
}

/// Decides what the answers so far allow: a failed or healthy primary
/// answers at once (the relaxed query, if out, is cancelled); a disrupted
/// or empty one waits for the relaxed answer, asking for it first in
/// sequential mode.
void decide(planner_pointer self, const call_ptr& call) {
  if (call->done || !call->primary_done)
    return;
  if (call->primary_error) {
    cancel_relaxed(self, call);
    fail(call, *call->primary_error);
    return;
  }
  bool needs_relaxed = call->request.include_disruption_alt
                       && is_disrupted(*call->primary);
  if (!needs_relaxed) {
    cancel_relaxed(self, call);
    finish(self, call);
    return;
  }
  if (!call->relax_sent) {
    send_relaxed(self, call); // sequential mode: only now
    return;
  }
  if (call->relaxed_done)
    finish(self, call);
}

void send_relaxed(planner_pointer self, const call_ptr& call) {
  call->relax_sent = true;
  auto query = make_relaxed_query(call->request, call->origin,
                                  call->destination, call->time);
  query.context.correlation_id = relaxed_id(call);
  self->request(self->state.journey_planner, time_left(self, call), query)
    .then(
      [self, call](trip_plans& plans) {
        if (call->done || call->relaxed_done)
          return;
        call->relaxed_done = true;
        report_progress(call->request.context,
                        "relaxed plan answered: "
                          + std::to_string(plans.itineraries.size())
                          + " itineraries");
        call->relaxed = std::move(plans);
        decide(self, call);
      },
      [self, call](caf::error& err) {
        if (call->done || call->relaxed_done)
          return; // cancelled by us, or no longer wanted
        call->relaxed_done = true;
        // The alternative is a bonus: its failure leaves the primary.
        spdlog::info("[{}] relaxed trip query failed: {}",
                     call->request.context.correlation_id,
                     to_failure(err).message);
        report_progress(call->request.context, "relaxed plan failed");
        decide(self, call);
      });
}

/// Labels are resolved: check the places and fan the queries out.
void plan(planner_pointer self, const call_ptr& call) {
  if (call->label_failure) {
    fail(call, to_error(*call->label_failure));
    return;
  }
  if (auto bad = check_places(call->origin, call->destination,
                              self->state.options.area,
                              self->state.options.check_area)) {
    fail(call, to_error(*bad));
    return;
  }
  // D12: the relaxed query goes out at the same time, not after; sent
  // right after the primary, so that a feed sees the search the answer
  // waits for first: it takes the least busy router, and the speculative
  // one only an idle router (on a busy daemon it waits, and is most often
  // cancelled before it starts). An upstream provider gets both within
  // microseconds either way.
  auto primary = make_primary_query(call->request, call->origin,
                                    call->destination, call->time);
  self->request(self->state.journey_planner, time_left(self, call), primary)
    .then(
      [self, call](trip_plans& plans) {
        call->primary_done = true;
        report_progress(call->request.context,
                        "primary plan answered: "
                          + std::to_string(plans.itineraries.size())
                          + " itineraries");
        call->primary = std::move(plans);
        decide(self, call);
      },
      [self, call](caf::error& err) {
        call->primary_done = true;
        call->primary_error = std::move(err);
        decide(self, call);
      });
  if (call->request.include_disruption_alt
      && self->state.options.speculative_relax)
    send_relaxed(self, call);
}

/// One place resolved (or failed): plan once every place is.
void place_done(planner_pointer self, const call_ptr& call,
                std::optional<failure> problem) {
  if (problem && !call->label_failure)
    call->label_failure = std::move(problem);
  if (--call->labels_pending == 0)
    plan(self, call);
}

/// A stop as trip end (D21): where its provider places it. `label` names
/// the saved stop it came from, if any.
void look_up_stop(planner_pointer self, const call_ptr& call,
                  const std::string& stop_id, location_ref& target,
                  std::optional<std::string> label) {
  stop_lookup q{call->request.context, stop_id,
                call->request.constraints.language};
  self->request(self->state.journey_planner, time_left(self, call), q)
    .then(
      [self, call, &target, label](stop_place& place) {
        target = from_stop_place(place, label ? "variable" : "input");
        target.label = label;
        place_done(self, call, std::nullopt);
      },
      [self, call](caf::error& err) {
        place_done(self, call, to_failure(err));
      });
}

void resolve(planner_pointer self, const call_ptr& call,
             const location_input& input, location_ref& target,
             const std::string& field) {
  if (input.type == location_input::kind::coords) {
    target = from_input(input.position);
    return;
  }
  ++call->labels_pending;
  if (input.type == location_input::kind::stop) {
    look_up_stop(self, call, input.stop_id, target, std::nullopt);
    return;
  }
  self
    ->request(self->state.variable_store, time_left(self, call),
              resolve_label{call->request.context, input.label})
    .then(
      [self, call, &target, field](user_variable& variable) {
        if (variable.type == variable_type::stop) {
          // A saved stop works as a label too (D21).
          look_up_stop(self, call, variable.stop_id, target, variable.key);
          return;
        }
        auto ref = from_variable(variable, field);
        if (ref)
          target = std::move(*ref);
        place_done(self, call,
                   ref ? std::nullopt : std::optional<failure>{ref.error()});
      },
      [self, call](caf::error& err) {
        place_done(self, call, to_failure(err));
      });
}

} // namespace

trip_planner_actor::behavior_type
trip_planner(trip_planner_actor::stateful_pointer<trip_planner_state> self,
             journey_planner_actor journey_planner,
             variable_store_actor variable_store,
             trip_planner_options options) {
  self->state.journey_planner = std::move(journey_planner);
  self->state.variable_store = std::move(variable_store);
  self->state.options = std::move(options);
  return {
    [self](plan_trip_request& request) -> caf::result<plan_trip_reply> {
      if (auto invalid = validate(request)) {
        spdlog::info("[{}] trip plan rejected: {}",
                     request.context.correlation_id, invalid->message);
        return to_error(*invalid);
      }
      auto call = std::make_shared<plan_call>();
      call->rp = self->make_response_promise<plan_trip_reply>();
      auto now = service_now_seconds(request.context, self->state.options.tool);
      call->time = resolve_time(request, now);
      call->request = std::move(request);
      // The references point into *call, which the callbacks keep alive.
      resolve(self, call, call->request.origin, call->origin, "origin");
      resolve(self, call, call->request.destination, call->destination,
              "destination");
      if (call->labels_pending == 0)
        plan(self, call);
      return call->rp;
    },
  };
}

} // namespace transitd
