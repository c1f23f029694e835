#include "transitd/actors/reach_finder.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "transitd/actors/reach_rules.hpp"

namespace transitd {

namespace {

using finder_pointer
  = reach_finder_actor::stateful_pointer<reach_finder_state>;

/// Asks the provider from `origin` and delivers the reply.
void search(finder_pointer self, caf::typed_response_promise<reachable_reply> rp,
            reachable_request request, reach_origin origin) {
  auto now = service_now_seconds(request.context, self->state.options);
  auto query = make_query(request, origin, now);
  auto context = request.context;
  ask_provider<reach_result>(
    self, rp, self->state.network, context, self->state.options,
    std::move(query),
    [request = std::move(request),
     origin = std::move(origin)](reach_result& answer) {
      return build_reach_reply(request, origin, std::move(answer));
    });
}

} // namespace

reach_finder_actor::behavior_type
reach_finder(reach_finder_actor::stateful_pointer<reach_finder_state> self,
             network_info_actor network, variable_store_actor variable_store,
             tool_options options) {
  self->state.network = std::move(network);
  self->state.variable_store = std::move(variable_store);
  self->state.options = std::move(options);
  return {
    [self](reachable_request& request) -> caf::result<reachable_reply> {
      if (auto invalid = validate(request))
        return rejected(reach_finder_state::name, request.context, *invalid);
      if (!self->state.network)
        return to_error(make_failure(
          ec::data_not_available, "no provider here answers reachable",
          "serve a region with a GTFS feed (engine_config::feeds)"));
      auto rp = self->make_response_promise<reachable_reply>();
      if (request.origin.type != location_input::kind::label) {
        auto origin = origin_of(request.origin);
        search(self, rp, std::move(request), std::move(origin));
        return rp;
      }
      auto context = request.context;
      auto label = request.origin.label;
      self
        ->request(self->state.variable_store,
                  time_left(context, self->state.options),
                  resolve_label{context, label})
        .then(
          [self, rp, request](user_variable& variable) mutable {
            search(self, rp, std::move(request), origin_of(variable));
          },
          [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
      return rp;
    },
  };
}

} // namespace transitd
