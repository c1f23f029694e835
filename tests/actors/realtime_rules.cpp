// The vehicle_positions and service_alerts rules, without actors.

#include "transitd/actors/realtime_rules.hpp"

#include <catch2/catch.hpp>

using namespace transitd;

TEST_CASE("vehicle_positions rule 1: a route or a point, on the globe",
          "[realtime_rules]") {
  vehicle_positions_request r;
  auto none = validate(r);
  REQUIRE(none);
  CHECK(none->code == ec::validation_error);
  CHECK(none->message.find("route, near") != std::string::npos);
  r.route = "L1";
  CHECK_FALSE(validate(r));
  r.route.clear();
  r.near = coordinate{37.39, -122.07};
  CHECK_FALSE(validate(r));
  r.near = coordinate{91, 0};
  auto off = validate(r);
  REQUIRE(off);
  CHECK(off->message.find("near") != std::string::npos);
  r.near = coordinate{37.39, -122.07};
  r.route = "L1";
  r.radius = 700;
  auto q = make_query(r);
  CHECK(q.route == "L1");
  REQUIRE(q.center);
  CHECK(q.radius == 700);
}

TEST_CASE("vehicle_positions rules 2-4: limit with a warning, times in the "
          "feed's zone, ages never negative, freshness",
          "[realtime_rules]") {
  vehicle_list upstream;
  upstream.timezone = "America/Los_Angeles";
  upstream.timestamp_ms = 1699405559000;
  upstream.warnings.push_back({"realtime-stale", "x"});
  for (int i = 0; i < 5; ++i) {
    vehicle_report v;
    v.vehicle_id = std::to_string(i);
    v.timestamp = 1699405549 + i * 10; // the last ones after "now"
    upstream.vehicles.push_back(v);
  }
  vehicle_positions_request r;
  r.context.correlation_id = "c-1";
  r.limit = 3;
  auto reply = build_vehicle_list(r, upstream, 1699405569);
  REQUIRE(reply.vehicles.size() == 3);
  CHECK(reply.vehicles[0].report.vehicle_id == "0");
  CHECK(reply.vehicles[0].age_seconds == 20);
  CHECK(reply.vehicles[2].age_seconds == 0);
  CHECK(reply.vehicles[0].reported_at == "2023-11-07T17:05:49-08:00");
  CHECK(reply.data_freshness == "2023-11-08T01:05:59Z");
  CHECK(reply.correlation_id == "c-1");
  REQUIRE(reply.warnings.size() == 2);
  CHECK(reply.warnings[0].code == "realtime-stale");
  CHECK(reply.warnings[1].code == "truncated-results");
  CHECK(reply.warnings[1].message.find("5 vehicles") != std::string::npos);
  r.limit = 5;
  auto whole = build_vehicle_list(r, upstream, 1699405569);
  CHECK(whole.vehicles.size() == 5);
  CHECK(whole.vehicles[4].age_seconds == 0); // reported after now
  CHECK(whole.warnings.size() == 1);
}

TEST_CASE("service_alerts rules 1-2: one subject at most, or a point; "
          "when is now or ISO 8601",
          "[realtime_rules]") {
  service_alerts_request r;
  auto none = make_query(r, 1000);
  REQUIRE_FALSE(none);
  CHECK(none.error().code == ec::validation_error);
  r.stop = "caltrain:70211";
  r.route = "L1";
  auto two = make_query(r, 1000);
  REQUIRE_FALSE(two);
  CHECK(two.error().message.find("one of stop, route, trip and feed")
        != std::string::npos);
  service_alerts_request trip_and_feed;
  trip_and_feed.trip = "caltrain:124";
  trip_and_feed.feed = "caltrain";
  CHECK_FALSE(make_query(trip_and_feed, 1000));
  trip_and_feed.feed.clear();
  REQUIRE(make_query(trip_and_feed, 1000));
  CHECK(make_query(trip_and_feed, 1000)->trip_id == "caltrain:124");
  r.route.clear();
  auto stop = make_query(r, 1000);
  REQUIRE(stop);
  CHECK(stop->stop_id == "caltrain:70211");
  CHECK(stop->time == 1000);
  r.when = "2023-11-07T17:05:34-08:00";
  CHECK(make_query(r, 1000)->time == 1699405534);
  r.when = "tomorrow";
  auto bad = make_query(r, 1000);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("tomorrow") != std::string::npos);
  service_alerts_request region;
  region.near = coordinate{37.39, -122.07};
  region.language = "es";
  auto q = make_query(region, 5);
  REQUIRE(q);
  CHECK(q->language == "es");
  REQUIRE(q->center);
  region.near = coordinate{0, 181};
  CHECK_FALSE(make_query(region, 5));
}

TEST_CASE("service_alerts rules 3-4: limit with a warning, periods in the "
          "provider's zone, open ends left out",
          "[realtime_rules]") {
  alert_list upstream;
  upstream.timezone = "America/Los_Angeles";
  for (int i = 0; i < 3; ++i) {
    service_alert a;
    a.id = "a" + std::to_string(i);
    a.periods.push_back({1699400000, std::nullopt});
    upstream.alerts.push_back(a);
  }
  service_alerts_request r;
  r.limit = 2;
  auto reply = build_alert_list(r, upstream, 1699405534);
  REQUIRE(reply.alerts.size() == 2);
  CHECK(reply.alerts[0].alert.id == "a0");
  REQUIRE(reply.alerts[0].windows.size() == 1);
  CHECK(reply.alerts[0].windows[0].start == "2023-11-07T15:33:20-08:00");
  CHECK(reply.alerts[0].windows[0].end.empty());
  CHECK(reply.at == "2023-11-07T17:05:34-08:00");
  REQUIRE(reply.warnings.size() == 1);
  CHECK(reply.warnings[0].code == "truncated-results");
}

TEST_CASE("service_alerts rule 3: most severe first, then the latest "
          "starting, the provider's order where they tie",
          "[realtime_rules]") {
  alert_list upstream;
  auto add = [&](std::string id, std::string severity, int64_t start) {
    service_alert a;
    a.id = std::move(id);
    a.severity = std::move(severity);
    if (start > 0)
      a.periods.push_back({start, std::nullopt});
    upstream.alerts.push_back(a);
  };
  add("info-old", "info", 100);
  add("unknown", "unknown-severity", 500);
  add("warning-old", "warning", 100);
  add("severe", "severe", 0);
  add("warning-new", "warning", 300);
  add("info-tie-1", "info", 100);
  service_alerts_request r;
  r.limit = 10;
  auto reply = build_alert_list(r, upstream, 1000);
  std::vector<std::string> ids;
  for (const auto& a : reply.alerts)
    ids.push_back(a.alert.id);
  CHECK(ids == std::vector<std::string>{"severe", "warning-new", "warning-old",
                                        "info-old", "info-tie-1", "unknown"});
}
