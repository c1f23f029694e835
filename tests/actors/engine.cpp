// The embedding API: a CAF application spawns the engine in its own actor
// system and calls tools with typed requests. No HTTP on our side (the mock
// upstream stands in for Digitransit).

#include "actors/engine.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <catch2/catch.hpp>

#include "providers/mock/mock_upstream.hpp"

using namespace transitd;
using namespace std::chrono_literals;

TEST_CASE("spawn_engine serves get_departures without HTTP",
          "[engine][embedding]") {
  mock::mock_upstream upstream;
  upstream.start();
  {
    caf::actor_system_config cfg;
    cfg.set("scheduler.max-threads", size_t{2});
    add_message_types(cfg);
    caf::actor_system sys{cfg};
    engine_config config;
    config.digitransit_routing.url = upstream.routing_url();
    config.http_workers_per_upstream = 2;
    auto engine = spawn_engine(sys, config);
    {
      caf::scoped_actor self{sys};
      get_departures_request request;
      request.stop = {stop_ref::kind::id, "HSL:1040129"};
      request.limit = 5;
      bool answered = false;
      self->request(engine.router, 10s, request)
        .receive(
          [&](get_departures_reply& reply) {
            answered = true;
            CHECK(reply.stop_id == "HSL:1040129");
            CHECK(reply.correlation_id.size() == 36);
            CHECK_FALSE(reply.departures.empty());
            CHECK(reply.departures.size() <= 5);
            // No demo flag: no demo warning.
            for (const auto& w : reply.warnings)
              CHECK(w.code != "demo-data");
          },
          [&](caf::error& err) { FAIL(caf::to_string(err)); });
      CHECK(answered);
      // Unknown stops come back as validation errors, typed.
      request.stop.value = "HSL:0000";
      self->request(engine.router, 10s, request)
        .receive([&](get_departures_reply&) { FAIL("expected an error"); },
                 [&](caf::error& err) {
                   CHECK(to_failure(err).code == ec::validation_error);
                 });
    }
    engine.shutdown();
  }
  CHECK(upstream.stats().requests == 2);
  upstream.stop();
}
