// The CAF side of the vocabulary: errors survive the trip through
// caf::error, and every message type serialises and deserialises (what a
// process boundary would do to it).

#include "transitd/messages/caf_glue.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/sec.hpp>
#include <catch2/catch.hpp>

using namespace transitd;

TEST_CASE("failures round-trip through caf::error", "[errors][caf]") {
  auto original = make_failure(ec::rate_limited, "slow down", "wait", 7);
  auto err = to_error(original);
  CHECK(err.category() == caf::atom("transitd"));
  auto back = to_failure(err);
  CHECK(back.code == ec::rate_limited);
  CHECK(back.message == "slow down");
  CHECK(back.hint == "wait");
  CHECK(back.retry_after == 7);
}

TEST_CASE("CAF's own errors map to contract codes", "[errors][caf]") {
  CHECK(to_failure(caf::make_error(caf::sec::request_timeout)).code
        == ec::upstream_timeout);
  CHECK(to_failure(caf::make_error(caf::sec::request_receiver_down)).code
        == ec::internal_error);
}

TEST_CASE("tool messages serialise and deserialise", "[caf][messages]") {
  caf::actor_system_config cfg;
  add_message_types(cfg);
  caf::actor_system sys{cfg};
  get_departures_reply reply;
  reply.stop_id = "HSL:1";
  reply.stop_name = "Kamppi";
  reply.realtime_used = true;
  reply.data_freshness = "2025-09-15T10:00:00Z";
  reply.correlation_id = "c";
  departure d;
  d.line = "7";
  d.mode = transit_mode::tram;
  d.scheduled_time = "2025-09-15T10:05:00Z";
  d.realtime_time = "2025-09-15T10:06:00Z";
  d.delay_seconds = 60;
  d.status = departure_status::on_time;
  reply.departures.push_back(d);
  reply.warnings.push_back({"truncated-results", "cut"});
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  REQUIRE_FALSE(sink(reply));
  get_departures_reply copy;
  caf::binary_deserializer source{sys, buf};
  REQUIRE_FALSE(source(copy));
  CHECK(copy.stop_id == "HSL:1");
  CHECK(copy.stop_name == std::optional<std::string>{"Kamppi"});
  REQUIRE(copy.departures.size() == 1);
  CHECK(copy.departures[0].realtime_time
        == std::optional<std::string>{"2025-09-15T10:06:00Z"});
  CHECK(copy.departures[0].delay_seconds == std::optional<int32_t>{60});
  CHECK_FALSE(copy.departures[0].platform);
  CHECK(copy.departures[0].mode == transit_mode::tram);
  CHECK(copy.warnings == reply.warnings);
}

TEST_CASE("the type-ID block registers every message type", "[caf]") {
  caf::actor_system_config cfg;
  add_message_types(cfg);
  caf::actor_system sys{cfg};
  CHECK(sys.types().make_value("transitd::get_departures_request"));
  CHECK(sys.types().make_value("transitd::stop_departures"));
  CHECK(sys.types().make_value("transitd::http_call"));
}
