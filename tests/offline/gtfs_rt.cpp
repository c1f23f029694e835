// GTFS-realtime decoding, checked against an independent decoder: each
// recorded feed (Caltrain, BART) comes with its protobuf-JSON rendering
// made by transitland-lib (Go), and every field we read must agree with it.

#include "transitd/offline/gtfs_rt.hpp"

#include <fstream>
#include <sstream>

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include "gtfs_realtime.pb.h"

namespace json = boost::json;
using namespace transitd;

namespace {

std::string read(const std::string& relative) {
  std::ifstream in{std::string{TRANSITD_FIXTURES_DIR} + "/" + relative,
                   std::ios::binary};
  REQUIRE(in);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// protobuf-JSON writes 64-bit integers as strings.
int64_t number(const json::value& v) {
  if (v.is_string())
    return std::stoll(std::string{v.as_string()});
  return v.to_number<int64_t>();
}

std::string text(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it == o.end() ? std::string{} : std::string{it->value().as_string()};
}

void check_event(const std::optional<gtfs_rt::stop_time_event>& ours,
                 const json::object& stop, std::string_view key) {
  auto it = stop.find(key);
  REQUIRE(ours.has_value() == (it != stop.end()));
  if (!ours)
    return;
  const auto& e = it->value().as_object();
  CHECK(ours->delay_s.has_value() == e.contains("delay"));
  if (ours->delay_s)
    CHECK(*ours->delay_s == number(e.at("delay")));
  CHECK(ours->time.has_value() == e.contains("time"));
  if (ours->time)
    CHECK(*ours->time == number(e.at("time")));
  CHECK(ours->uncertainty_s.has_value() == e.contains("uncertainty"));
  if (ours->uncertainty_s)
    CHECK(*ours->uncertainty_s == number(e.at("uncertainty")));
}

/// Every trip update of `feed` against the JSON rendering's entities.
void check_trip_updates(const gtfs_rt::feed& feed, const json::object& doc) {
  const auto& entities = doc.at("entity").as_array();
  REQUIRE(feed.trip_updates.size() == entities.size());
  CHECK(feed.timestamp
        == static_cast<uint64_t>(number(doc.at("header").at("timestamp"))));
  CHECK(feed.version
        == doc.at("header").at("gtfsRealtimeVersion").as_string());
  CHECK_FALSE(feed.differential);
  for (std::size_t i = 0; i < entities.size(); ++i) {
    const auto& entity = entities[i].as_object();
    const auto& ours = feed.trip_updates[i];
    const auto& update = entity.at("tripUpdate").as_object();
    const auto& trip = update.at("trip").as_object();
    INFO("entity " << ours.entity_id);
    CHECK(ours.entity_id == entity.at("id").as_string());
    CHECK(ours.trip.trip_id == text(trip, "tripId"));
    CHECK(ours.trip.route_id == text(trip, "routeId"));
    CHECK(ours.trip.start_date == text(trip, "startDate"));
    CHECK(ours.trip.start_time == text(trip, "startTime"));
    auto relationship = text(trip, "scheduleRelationship");
    CHECK(gtfs_rt::to_string(ours.trip.relationship)
          == (relationship.empty() || relationship == "SCHEDULED"
                ? "scheduled"
                : relationship == "ADDED" ? "added" : relationship));
    const json::array none;
    const auto& stops = update.contains("stopTimeUpdate")
                          ? update.at("stopTimeUpdate").as_array()
                          : none;
    REQUIRE(ours.stops.size() == stops.size());
    for (std::size_t k = 0; k < stops.size(); ++k) {
      const auto& stop = stops[k].as_object();
      CHECK(ours.stops[k].stop_id == text(stop, "stopId"));
      CHECK(ours.stops[k].stop_sequence.has_value()
            == stop.contains("stopSequence"));
      if (ours.stops[k].stop_sequence)
        CHECK(*ours.stops[k].stop_sequence == number(stop.at("stopSequence")));
      check_event(ours.stops[k].arrival, stop, "arrival");
      check_event(ours.stops[k].departure, stop, "departure");
    }
  }
}

} // namespace

TEST_CASE("GTFS-RT: Caltrain trip updates decode as an independent decoder "
          "reads them",
          "[gtfs_rt]") {
  auto feed = gtfs_rt::decode(
    read("gtfs/caltrain-2023-09/caltrain-trip-updates-2023-11-07.pb"));
  REQUIRE(feed);
  CHECK(feed->trip_updates.size() == 19);
  CHECK(feed->vehicles.empty());
  CHECK(feed->alerts.empty());
  check_trip_updates(
    *feed,
    json::parse(read("gtfs/caltrain-2023-09/"
                     "caltrain-trip-updates-2023-11-07.json"))
      .as_object());
}

TEST_CASE("GTFS-RT: BART trip updates (delays, uncertainty, ADDED trips)",
          "[gtfs_rt]") {
  auto feed = gtfs_rt::decode(
    read("gtfs/bart-2019/bart-trip-updates-2019-08-07.pb"));
  REQUIRE(feed);
  CHECK(feed->trip_updates.size() == 91);
  std::size_t added = 0;
  std::size_t stops = 0;
  for (const auto& u : feed->trip_updates) {
    added += u.trip.relationship == gtfs_rt::trip_relationship::added;
    stops += u.stops.size();
  }
  CHECK(added == 8);
  CHECK(stops == 1060);
  check_trip_updates(
    *feed,
    json::parse(read("gtfs/bart-2019/bart-trip-updates-2019-08-07.json"))
      .as_object());
}

TEST_CASE("GTFS-RT: Caltrain vehicle positions", "[gtfs_rt]") {
  auto feed = gtfs_rt::decode(
    read("gtfs/caltrain-2023-09/caltrain-vehicle-positions-2023-11-07.pb"));
  REQUIRE(feed);
  auto doc = json::parse(read("gtfs/caltrain-2023-09/"
                              "caltrain-vehicle-positions-2023-11-07.json"))
               .as_object();
  const auto& entities = doc.at("entity").as_array();
  REQUIRE(feed->vehicles.size() == entities.size());
  CHECK(feed->trip_updates.empty());
  for (std::size_t i = 0; i < entities.size(); ++i) {
    const auto& v = entities[i].at("vehicle").as_object();
    const auto& ours = feed->vehicles[i];
    CHECK(ours.vehicle.id == v.at("vehicle").at("id").as_string());
    REQUIRE(ours.trip);
    CHECK(ours.trip->trip_id == v.at("trip").at("tripId").as_string());
    CHECK(ours.trip->route_id == v.at("trip").at("routeId").as_string());
    REQUIRE(ours.lat);
    // Floats on the wire: as close as a float holds.
    CHECK(*ours.lat
          == Approx(v.at("position").at("latitude").to_number<double>())
               .margin(1e-5));
    CHECK(*ours.lon
          == Approx(v.at("position").at("longitude").to_number<double>())
               .margin(1e-5));
    CHECK(ours.timestamp
          == static_cast<uint64_t>(number(v.at("timestamp"))));
  }
}

TEST_CASE("GTFS-RT: a truncated, malformed or incomplete message is refused "
          "whole",
          "[gtfs_rt][validation]") {
  auto bytes
    = read("gtfs/caltrain-2023-09/caltrain-trip-updates-2023-11-07.pb");
  // Every cut: refused, or (cut between two entities, which protobuf
  // cannot tell from an end) fewer entities; never a half-read entity.
  auto whole = gtfs_rt::decode(bytes);
  REQUIRE(whole);
  std::size_t refused = 0;
  for (std::size_t n = 0; n + 1 < bytes.size(); ++n) {
    auto cut = gtfs_rt::decode(std::string_view{bytes}.substr(0, n));
    if (!cut) {
      ++refused;
      CHECK_THAT(cut.error().message, Catch::StartsWith(
                                        "GTFS-realtime message refused"));
      continue;
    }
    REQUIRE(cut->trip_updates.size() < 19);
    // The entities it has are the first ones, whole.
    for (std::size_t i = 0; i < cut->trip_updates.size(); ++i) {
      CHECK(cut->trip_updates[i].trip.trip_id
            == whole->trip_updates[i].trip.trip_id);
      CHECK(cut->trip_updates[i].stops.size()
            == whole->trip_updates[i].stops.size());
    }
  }
  CHECK(refused > bytes.size() * 9 / 10);
  auto garbage = gtfs_rt::decode("\xff\xff\xff\xff not protobuf");
  REQUIRE_FALSE(garbage);
  CHECK_THAT(garbage.error().message, Catch::Contains("malformed"));
  // An entity but no header: a required field missing.
  auto headless = gtfs_rt::decode(std::string{"\x12\x03\x0a\x01x", 5});
  REQUIRE_FALSE(headless);
  CHECK_THAT(headless.error().message,
             Catch::Contains("required fields missing: header"));
  auto big = gtfs_rt::decode(bytes, 100);
  REQUIRE_FALSE(big);
  CHECK_THAT(big.error().message, Catch::Contains("more than 100"));
}

TEST_CASE("GTFS-RT: alerts, cancellations, skipped stops and deletions",
          "[gtfs_rt]") {
  // Written with protobuf's own API from our .proto: a differential feed.
  gtfs_rt::pb::FeedMessage message;
  message.mutable_header()->set_gtfs_realtime_version("2.0");
  message.mutable_header()->set_incrementality(
    gtfs_rt::pb::FeedHeader::DIFFERENTIAL);
  message.mutable_header()->set_timestamp(1699405534);
  auto* a = message.add_entity();
  a->set_id("alert-1");
  auto* alert = a->mutable_alert();
  auto* period = alert->add_active_period();
  period->set_start(1699400000);
  auto* informed = alert->add_informed_entity();
  informed->set_route_id("L1");
  informed->set_stop_id("70012");
  alert->set_cause(gtfs_rt::pb::Alert::TECHNICAL_PROBLEM);
  alert->set_effect(gtfs_rt::pb::Alert::SIGNIFICANT_DELAYS);
  alert->set_severity_level(gtfs_rt::pb::Alert::SEVERE);
  auto* en = alert->mutable_header_text()->add_translation();
  en->set_text("Delays on the Local");
  en->set_language("en");
  auto* es = alert->mutable_header_text()->add_translation();
  es->set_text("Retrasos en el Local");
  es->set_language("es");
  auto* c = message.add_entity();
  c->set_id("cancel-1");
  c->mutable_trip_update()->mutable_trip()->set_trip_id("124");
  c->mutable_trip_update()->mutable_trip()->set_schedule_relationship(
    gtfs_rt::pb::TripDescriptor::CANCELED);
  auto* skip = c->mutable_trip_update()->add_stop_time_update();
  skip->set_stop_sequence(3);
  skip->set_schedule_relationship(
    gtfs_rt::pb::TripUpdate::StopTimeUpdate::SKIPPED);
  auto* gone = message.add_entity();
  gone->set_id("old");
  gone->set_is_deleted(true);
  auto* v = message.add_entity();
  v->set_id("v1");
  v->mutable_vehicle()->mutable_position()->set_latitude(91.0f); // off
  v->mutable_vehicle()->mutable_position()->set_longitude(10.0f);
  v->mutable_vehicle()->set_current_status(
    gtfs_rt::pb::VehiclePosition::STOPPED_AT);
  std::string bytes;
  REQUIRE(message.SerializeToString(&bytes));

  auto feed = gtfs_rt::decode(bytes);
  REQUIRE(feed);
  CHECK(feed->differential);
  REQUIRE(feed->alerts.size() == 1);
  const auto& got = feed->alerts[0];
  CHECK(got.cause == "technical-problem");
  CHECK(got.effect == "significant-delays");
  CHECK(got.severity == "severe");
  REQUIRE(got.header.size() == 2);
  CHECK(got.header[1] == std::pair<std::string, std::string>{
                           "es", "Retrasos en el Local"});
  REQUIRE(got.active_periods.size() == 1);
  CHECK(got.active_periods[0].start == 1699400000u);
  CHECK_FALSE(got.active_periods[0].end);
  REQUIRE(got.informed.size() == 1);
  CHECK(got.informed[0].route_id == "L1");
  CHECK(got.informed[0].stop_id == "70012");
  REQUIRE(feed->trip_updates.size() == 1);
  CHECK(feed->trip_updates[0].trip.relationship
        == gtfs_rt::trip_relationship::canceled);
  CHECK(feed->trip_updates[0].stops.at(0).relationship
        == gtfs_rt::stop_relationship::skipped);
  CHECK(feed->deleted == std::vector<std::string>{"old"});
  REQUIRE(feed->vehicles.size() == 1);
  CHECK_FALSE(feed->vehicles[0].lat); // a latitude of 91 is no position
  CHECK(feed->vehicles[0].status == gtfs_rt::vehicle_status::stopped_at);
}
