// STATION_TOILETS: matching and errors (its TPS limit: tool_router.cpp).

#include "transitd/actors/station_toilets.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/exit_reason.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <catch2/catch.hpp>

#include "transitd/providers/tfl_demo_station_data.hpp"

using namespace transitd;
using namespace std::chrono_literals;

namespace {

struct toilets_fixture {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;

  toilets_fixture() {
    add_message_types(cfg);
    sys = std::make_unique<caf::actor_system>(cfg);
  }

  caf::expected<station_toilets_reply> ask(const station_toilets_actor& a,
                                           std::string name) {
    caf::scoped_actor self{*sys};
    caf::expected<station_toilets_reply> out{caf::error{}};
    self->request(a, 5s, station_toilets_request{{"cid", "p", 0, 0, {}}, name})
      .receive([&](station_toilets_reply& r) { out = std::move(r); },
               [&](caf::error& e) { out = std::move(e); });
    return out;
  }

  station_toilets_actor spawn(dataset_reader reader) {
    station_toilets_options options;
    options.reader = std::move(reader);
    options.source = "test";
    return spawn_station_toilets(*sys, options);
  }
};

} // namespace

TEST_CASE_METHOD(toilets_fixture, "stationToilets: exact, ambiguous, unknown",
                 "[station_toilets][actor]") {
  auto actor = spawn(demo_station_data_reader());
  auto abbey = ask(actor, "abbey wood");
  REQUIRE(abbey);
  CHECK_FALSE(abbey->disambiguation_required);
  CHECK(abbey->station_unique_id == "HUBABW");
  CHECK(abbey->toilets.size() == 3);
  CHECK(abbey->toilets[2].platform_numbers == std::vector<int32_t>{3, 4});
  CHECK(abbey->correlation_id == "cid");
  auto ambiguous = ask(actor, "Abbey");
  REQUIRE(ambiguous);
  CHECK(ambiguous->disambiguation_required);
  CHECK(ambiguous->suggestions.size() == 2);
  auto none = ask(actor, "Hogwarts");
  REQUIRE_FALSE(none);
  CHECK(to_failure(none.error()).code == ec::station_not_found);
  auto blank = ask(actor, "   ");
  REQUIRE_FALSE(blank);
  CHECK(to_failure(blank.error()).code == ec::validation_error);
  // A station without toilets is a success with an empty list.
  auto bank = ask(actor, "Bank");
  REQUIRE(bank);
  CHECK(bank->toilets.empty());
  caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
}

TEST_CASE_METHOD(toilets_fixture, "stationToilets without data answers "
                                  "DATA_NOT_AVAILABLE",
                 "[station_toilets][actor]") {
  auto actor = spawn(directory_reader("/nonexistent/station-data"));
  auto reply = ask(actor, "Abbey Wood");
  REQUIRE_FALSE(reply);
  auto f = to_failure(reply.error());
  CHECK(f.code == ec::data_not_available);
  CHECK_THAT(f.message, Catch::Contains("Stations.csv"));
  caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
}
