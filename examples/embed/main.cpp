// An application with its own CAF actor system (and its own type-ID block)
// that spawns transitd's engine and calls get_departures and plan_trip with
// typed requests: no MCP, no HTTP on our side.
//
//   embed_example ROUTING_URL
//
// ROUTING_URL is a Digitransit GraphQL endpoint, e.g. the mock upstream's
// http://127.0.0.1:PORT/routing/v2/hsl/gtfs/v1. Exits 0 when both calls
// succeed.

#include <chrono>
#include <iostream>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/type_id.hpp>

#include <transitd/actors/engine.hpp>

// The host application's own messages live in its own type-ID block. It
// starts at the first custom ID; transitd's block starts 300 above it
// (TRANSITD_TYPE_ID_OFFSET moves it when a host needs that range).
namespace app {
struct ping {
  std::string text;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ping& x) {
  return f(x.text);
}
} // namespace app

CAF_BEGIN_TYPE_ID_BLOCK(app, caf::first_custom_type_id)
  CAF_ADD_TYPE_ID(app, (app::ping))
CAF_END_TYPE_ID_BLOCK(app)

int main(int argc, char** argv) {
  using namespace std::chrono_literals;
  if (argc != 2) {
    std::cerr << "usage: embed_example ROUTING_URL\n";
    return 2;
  }
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", size_t{2});
  cfg.add_message_types<caf::id_block::app>();
  transitd::add_message_types(cfg);
  caf::actor_system system{cfg};
  // The detached threads CAF runs of its own (transitd::await_detached_stopped).
  auto own_detached = system.detached_actors();

  transitd::engine_config config;
  config.digitransit_routing.url = argv[1];
  config.variables.path = ":memory:";
  config.http_workers_per_upstream = 2;
  auto engine = transitd::spawn_engine(system, config);
  int failures = 0;
  {
    caf::scoped_actor self{system};

    transitd::get_departures_request departures;
    departures.stop = {transitd::stop_ref::kind::id, "HSL:1040129"};
    departures.limit = 3;
    self->request(engine.router, 10s, departures)
      .receive(
        [&](transitd::get_departures_reply& reply) {
          std::cout << "get_departures " << reply.stop_id << " ("
                    << reply.correlation_id << "):\n";
          for (const auto& d : reply.departures)
            std::cout << "  " << d.line << " to " << d.destination << " at "
                      << d.scheduled_time << " ["
                      << transitd::to_string(d.status) << "]\n";
          if (reply.departures.empty())
            ++failures;
        },
        [&](caf::error& err) {
          std::cerr << "get_departures failed: "
                    << transitd::to_failure(err).message << "\n";
          ++failures;
        });

    transitd::plan_trip_request trip;
    trip.origin.position = {60.1699, 24.9384};
    trip.destination.position = {60.2055, 24.6559};
    self->request(engine.router, 10s, trip)
      .receive(
        [&](transitd::plan_trip_reply& reply) {
          std::cout << "plan_trip: " << reply.itineraries.size()
                    << " itineraries\n";
          for (const auto& it : reply.itineraries)
            std::cout << "  " << it.legs.size() << " legs, "
                      << it.transfers << " transfers, " << it.walk_distance
                      << " m on foot\n";
          if (reply.itineraries.empty())
            ++failures;
        },
        [&](caf::error& err) {
          std::cerr << "plan_trip failed: "
                    << transitd::to_failure(err).message << "\n";
          ++failures;
        });
  }
  engine.shutdown();
  // The engine's workers end while the system's clock still runs.
  engine = {};
  transitd::await_detached_stopped(system, own_detached);
  return failures == 0 ? 0 : 1;
}
