// The plan_trip contract, rule by rule, on pure functions.

#include "transitd/actors/trip_rules.hpp"
#include "transitd/actors/departures_rules.hpp"

#include <catch2/catch.hpp>

using namespace transitd;

namespace {

constexpr int64_t t0 = 1757930400; // 2025-09-15T10:00:00Z

plan_trip_request request() {
  plan_trip_request r;
  r.context.correlation_id = "cid";
  r.context.received_ms = t0 * 1000;
  r.origin.position = {60.1699, 24.9384};
  r.destination.position = {60.2055, 24.6559};
  return r;
}

trip_leg walk(int64_t start, int64_t end) {
  trip_leg l;
  l.mode = transit_mode::walk;
  l.scheduled_start = start;
  l.scheduled_end = end;
  l.from.name = "A";
  l.to.name = "B";
  return l;
}

trip_leg ride(std::string line, int64_t start, int64_t end,
              std::optional<int64_t> delay = std::nullopt,
              bool cancelled = false) {
  trip_leg l;
  l.mode = transit_mode::bus;
  l.transit = true;
  l.line = std::move(line);
  l.scheduled_start = start;
  l.scheduled_end = end;
  l.from.stop_id = "HSL:1";
  l.to.stop_id = "HSL:2";
  if (delay) {
    l.realtime_start = start + *delay;
    l.realtime_end = end + *delay;
  }
  l.cancelled = cancelled;
  return l;
}

itinerary trip(std::vector<trip_leg> legs, double walk_m = 300,
               int32_t transfers = 0) {
  itinerary it;
  it.legs = std::move(legs);
  it.walk_distance = walk_m;
  it.transfers = transfers;
  return it;
}

trip_plans plans(std::vector<itinerary> list) {
  trip_plans p;
  p.itineraries = std::move(list);
  return p;
}

location_ref here() {
  return from_input({60.1699, 24.9384});
}
location_ref there() {
  return from_input({60.2055, 24.6559});
}

} // namespace

TEST_CASE("plan_trip: validation, ranges and when", "[plan_trip][validation]") {
  CHECK_FALSE(validate(request()));
  auto check_bad = [](plan_trip_request r, const char* names) {
    auto bad = validate(r);
    REQUIRE(bad);
    CHECK(bad->code == ec::validation_error);
    CHECK_THAT(bad->message, Catch::Contains(names));
  };
  auto r = request();
  r.origin.position.lat = 95; // rule 2
  check_bad(r, "origin.position.lat");
  r = request();
  r.destination.position.lon = 200;
  check_bad(r, "destination.position.lon");
  for (int32_t limit : {0, 4}) { // rule 3
    r = request();
    r.limit = limit;
    check_bad(r, "limit");
  }
  for (int32_t walk : {0, 3001}) { // rule 4
    r = request();
    r.constraints.max_walking_distance = walk;
    check_bad(r, "max_walking_distance");
  }
  for (int32_t transfers : {-1, 9}) { // rule 5
    r = request();
    r.constraints.max_transfers = transfers;
    check_bad(r, "max_transfers");
  }
  r = request(); // rule 6
  r.when_type = "arrive";
  check_bad(r, "when_time is required");
  r.when_time = "2025-09-15T12:00:00+03:00";
  CHECK_FALSE(validate(r));
  r.when_time = "tomorrow";
  check_bad(r, "when_time");
  r = request();
  r.constraints.optimize = "fastest";
  check_bad(r, "optimize");
  r = request();
  r.constraints.language = "de-";
  check_bad(r, "language");
  r = request();
  r.origin.type = location_input::kind::label;
  check_bad(r, "origin.label");
}

TEST_CASE("plan_trip: same coordinate origin/destination (rule 1)",
          "[plan_trip][contract][validation]") {
  region hsl;
  auto same = check_places(here(), here(), hsl);
  REQUIRE(same);
  CHECK(same->code == ec::validation_error);
  CHECK_THAT(same->message, Catch::Contains("must differ"));
  // 0.5 m apart is still the same place; 5 m is not.
  auto near = from_input({60.1699045, 24.9384});
  CHECK(check_places(here(), near, hsl));
  auto five = from_input({60.169945, 24.9384});
  CHECK_FALSE(check_places(here(), five, hsl));
}

TEST_CASE("plan_trip: outside the region is unsupported-region (D15)",
          "[plan_trip][contract]") {
  region hsl;
  auto tampere = from_input({61.4978, 23.7610});
  auto bad = check_places(here(), tampere, hsl);
  REQUIRE(bad);
  CHECK(bad->code == ec::unsupported_region);
  CHECK_THAT(bad->message, Catch::Contains("destination"));
  CHECK_FALSE(check_places(here(), there(), hsl));
}

TEST_CASE("plan_trip: realtime, mixed and scheduled detection (rule 4)",
          "[plan_trip][contract]") {
  auto all_rt = trip({walk(t0, t0 + 60), ride("550", t0 + 60, t0 + 600, 30)});
  auto none = trip({ride("7", t0, t0 + 600)});
  auto mixed = trip({ride("550", t0, t0 + 600, 0), ride("7", t0 + 700,
                                                          t0 + 900)});
  CHECK(schedule_type({&all_rt}) == "realtime");
  CHECK(schedule_type({&none}) == "scheduled");
  CHECK(schedule_type({&mixed}) == "mixed");
  CHECK(schedule_type({&all_rt, &none}) == "mixed");
  // Walking legs do not count either way.
  auto walk_only = trip({walk(t0, t0 + 60)});
  CHECK(schedule_type({&walk_only}) == "scheduled");
}

TEST_CASE("plan_trip: leg status thresholds (D11)", "[plan_trip]") {
  CHECK(leg_status(ride("1", t0, t0 + 60, 61)) == std::optional{departure_status::delayed});
  CHECK(leg_status(ride("1", t0, t0 + 60, -61)) == std::optional{departure_status::delayed});
  CHECK(leg_status(ride("1", t0, t0 + 60, 60)) == std::optional{departure_status::on_time});
  CHECK(leg_status(ride("1", t0, t0 + 60)) == std::optional{departure_status::scheduled_only});
  CHECK(leg_status(ride("1", t0, t0 + 60, 0, true)) == std::optional{departure_status::cancelled});
  CHECK_FALSE(leg_status(walk(t0, t0 + 60)));
}

TEST_CASE("plan_trip: disruption is a cancellation or > 300 s (rule 2)",
          "[plan_trip][contract]") {
  CHECK(is_disrupted(trip({ride("550", t0, t0 + 600, 301)})));
  CHECK_FALSE(is_disrupted(trip({ride("550", t0, t0 + 600, 300)})));
  CHECK(is_disrupted(trip({ride("550", t0, t0 + 600, 0, true)})));
  CHECK(is_disrupted(plans({})));
  CHECK_FALSE(is_disrupted(plans({trip({ride("550", t0, t0 + 600, 10)})})));
}

TEST_CASE("plan_trip: the relaxed query follows rule 2", "[plan_trip]") {
  auto r = request();
  r.constraints.optimize = "few_transfers";
  r.constraints.max_walking_distance = 2800;
  auto primary = make_primary_query(r, here(), there(), t0);
  auto relaxed = make_relaxed_query(r, here(), there(), t0);
  CHECK(primary.transfer_cost == 600);
  CHECK(relaxed.transfer_cost == 0); // optimize = balanced
  // Routers of their own: what a vehicle more must gain.
  CHECK(primary.ride_worth_s == 600);
  CHECK(relaxed.ride_worth_s == 180);
  // +25 % walking, capped at 3000 m: a lower walk reluctance.
  CHECK(relaxed.walk_reluctance == Approx(walk_reluctance_for(3000)));
  CHECK(relaxed.walk_reluctance < primary.walk_reluctance);
  r.constraints.max_walking_distance = 1500;
  CHECK(make_relaxed_query(r, here(), there(), t0).walk_reluctance
        == Approx(walk_reluctance_for(1875)));
  CHECK(walk_reluctance_for(1500) == Approx(2.0));
}

TEST_CASE("plan_trip: optimize sets what a vehicle more must gain on a "
          "router of our own",
          "[plan_trip]") {
  auto r = request();
  auto worth = [&](const char* optimize) {
    r.constraints.optimize = optimize;
    return make_primary_query(r, here(), there(), t0).ride_worth_s;
  };
  CHECK(worth("balanced") == 180);
  CHECK(worth("few_transfers") == 600);
  CHECK(worth("shortest_time") == 0);
  // The default query (the bench's, the tests') is balanced's.
  CHECK(trip_plan_query{}.ride_worth_s == 180);
}

TEST_CASE("plan_trip: deduplication removes duplicate fingerprints (D14)",
          "[plan_trip][contract]") {
  auto scheduled = trip({ride("550", t0, t0 + 600)});
  auto realtime = trip({ride("550", t0, t0 + 600, 30)});
  auto other = trip({ride("7", t0 + 60, t0 + 900)});
  CHECK(fingerprint(scheduled) == fingerprint(realtime));
  CHECK(fingerprint(scheduled) != fingerprint(other));
  CHECK_THAT(fingerprint(other), Catch::StartsWith("fnv1a64:"));
  auto merged = merge_plans(plans({scheduled, realtime, other}), nullptr);
  CHECK(merged.before_dedupe == 3);
  REQUIRE(merged.itineraries.size() == 2);
  // The duplicate with realtime data wins.
  CHECK(merged.itineraries[0].legs[0].realtime_start);
  auto reply = build_plan_reply(request(), here(), there(), t0,
                                std::move(merged), 0, false);
  REQUIRE(reply);
  CHECK(reply->deduplicated_from == 3);
}

TEST_CASE("plan_trip: relaxed itineraries stand in as alternatives (D13)",
          "[plan_trip][contract]") {
  auto disrupted = trip({ride("550", t0, t0 + 600, 420)});
  auto alternative = trip({ride("7", t0 + 60, t0 + 1000)}, 1700);
  auto relaxed = plans({disrupted, alternative});
  auto merged = merge_plans(plans({disrupted}), &relaxed);
  REQUIRE(merged.itineraries.size() == 2);
  // Healthy first; the new one is flagged, the duplicate of the primary not.
  CHECK(merged.itineraries[0].legs[0].line == std::optional<std::string>{"7"});
  CHECK(merged.itineraries[0].disruption_alternative);
  CHECK_FALSE(merged.itineraries[1].disruption_alternative);
  CHECK(merged.before_dedupe == 3);
}

TEST_CASE("plan_trip: limit after dedupe, warnings (rules 3, 5)",
          "[plan_trip][contract]") {
  auto r = request();
  r.limit = 1;
  r.constraints.max_walking_distance = 500;
  r.constraints.step_free = true;
  auto a = trip({ride("550", t0, t0 + 600, 10)}, 400);
  auto b = trip({ride("7", t0, t0 + 700)}, 900);
  auto reply = build_plan_reply(r, here(), there(), t0,
                                merge_plans(plans({b, a}), nullptr), 0, false);
  REQUIRE(reply);
  CHECK(reply->itineraries.size() == 1);
  std::vector<std::string> codes;
  for (const auto& w : reply->warnings)
    codes.push_back(w.code);
  CHECK(codes
        == std::vector<std::string>{"truncated-results",
                                    "unsupported-accessibility-flag"});
  // The walkier one alone: its walking breaks maxWalkingDistance.
  auto only_b = build_plan_reply(r, here(), there(), t0,
                                 merge_plans(plans({b}), nullptr), 0, false);
  REQUIRE(only_b);
  CHECK(only_b->warnings.at(0).code == "preference-unmet");
}

TEST_CASE("plan_trip: itineraries over maxTransfers are left out",
          "[plan_trip]") {
  auto r = request();
  r.constraints.max_transfers = 0;
  auto one = trip({ride("550", t0, t0 + 300), ride("M1", t0 + 400, t0 + 900)},
                  300, 1);
  auto none = build_plan_reply(r, here(), there(), t0,
                               merge_plans(plans({one}), nullptr), 0, true);
  REQUIRE_FALSE(none);
  CHECK(none.error().code == ec::no_itinerary_found);
}

TEST_CASE("plan_trip: nothing found under a lowered maxTransfers names it "
          "in the hint",
          "[plan_trip]") {
  auto r = request();
  r.constraints.max_transfers = 0;
  trip_plans nothing;
  auto reply = build_plan_reply(r, here(), there(), t0,
                                merge_plans(plans({}), &nothing), 0, true);
  REQUIRE_FALSE(reply);
  CHECK(reply.error().code == ec::no_itinerary_found);
  CHECK_THAT(reply.error().hint,
             Catch::Contains("more transfers (maxTransfers is 0)"));
  CHECK_THAT(reply.error().hint, Catch::Contains("maxWalkingDistance"));
}

TEST_CASE("plan_trip: deduplicatedFrom survives itineraries left out for "
          "maxTransfers (rules 1, 5)",
          "[plan_trip][contract]") {
  auto r = request();
  r.constraints.max_transfers = 0;
  auto direct = trip({ride("550", t0, t0 + 600)});
  auto same = trip({ride("550", t0, t0 + 600, 30)}); // its duplicate
  auto change = trip({ride("550", t0, t0 + 300), ride("M1", t0 + 400, t0 + 900)},
                     300, 1);
  auto reply = build_plan_reply(
    r, here(), there(), t0, merge_plans(plans({direct, same, change}), nullptr),
    0, false);
  REQUIRE(reply);
  REQUIRE(reply->itineraries.size() == 1);
  CHECK(reply->itineraries[0].transfers == 0);
  // Three came back, one was a duplicate: the meta says so even though
  // another was dropped for its transfer.
  CHECK(reply->deduplicated_from == 3);
  REQUIRE(reply->warnings.size() == 1);
  CHECK(reply->warnings[0].code == "preference-unmet");
  CHECK_THAT(reply->warnings[0].message,
             Catch::Contains("1 itineraries exceeded maxTransfers"));
  // Without a duplicate there is nothing to report.
  auto no_dupe = build_plan_reply(r, here(), there(), t0,
                                  merge_plans(plans({direct, change}), nullptr),
                                  0, false);
  REQUIRE(no_dupe);
  CHECK(no_dupe->deduplicated_from == 0);
}

TEST_CASE("plan_trip: lowWalkingDistance is reported when every choice walks "
          "over 1 km (rule 5)",
          "[plan_trip][contract]") {
  auto r = request();
  r.constraints.max_walking_distance = 2000;
  r.constraints.low_walking_distance = true;
  auto walky = trip({ride("7", t0, t0 + 700)}, 1400);
  auto reply = build_plan_reply(r, here(), there(), t0,
                                merge_plans(plans({walky}), nullptr), 0, false);
  REQUIRE(reply);
  REQUIRE(reply->warnings.size() == 1);
  CHECK(reply->warnings[0].code == "preference-unmet");
  CHECK_THAT(reply->warnings[0].message, Catch::Contains("lowWalkingDistance"));
  // Within 1 km, or without the preference: no warning.
  auto short_walk = trip({ride("7", t0, t0 + 700)}, 900);
  auto fine = build_plan_reply(r, here(), there(), t0,
                               merge_plans(plans({short_walk}), nullptr), 0,
                               false);
  REQUIRE(fine);
  CHECK(fine->warnings.empty());
  // The preference also weighs walking more in the query itself.
  auto asked = make_primary_query(r, here(), there(), t0);
  r.constraints.low_walking_distance = false;
  auto plain = make_primary_query(r, here(), there(), t0);
  CHECK(asked.walk_reluctance == Approx(plain.walk_reluctance * 1.5));
  auto unasked = build_plan_reply(r, here(), there(), t0,
                                  merge_plans(plans({walky}), nullptr), 0,
                                  false);
  REQUIRE(unasked);
  CHECK(unasked->warnings.empty());
}

TEST_CASE("plan_trip: dataFreshness is the later of the upstream's data and "
          "the request's arrival",
          "[plan_trip][contract]") {
  auto r = request(); // received at t0
  auto one = trip({ride("550", t0, t0 + 600)});
  // Data fetched before the request (a cache hit): the request's time.
  auto older = build_plan_reply(r, here(), there(), t0,
                                merge_plans(plans({one}), nullptr),
                                (t0 - 120) * 1000, false);
  REQUIRE(older);
  CHECK(older->data_freshness == "2025-09-15T10:00:00Z");
  // Data newer than the request: its own time.
  auto newer = build_plan_reply(r, here(), there(), t0,
                                merge_plans(plans({one}), nullptr),
                                (t0 + 5) * 1000, false);
  REQUIRE(newer);
  CHECK(newer->data_freshness == "2025-09-15T10:00:05Z");
  // On a simulated clock a day behind, the request arrived a day earlier.
  auto simulated = build_plan_reply(r, here(), there(), t0 - 86400,
                                    merge_plans(plans({one}), nullptr),
                                    (t0 - 86400 + 5) * 1000, false,
                                    -86400 * 1000);
  REQUIRE(simulated);
  CHECK(simulated->data_freshness == "2025-09-14T10:00:05Z");
}

TEST_CASE("plan_trip: no itinerary found after the relax attempt",
          "[plan_trip][contract]") {
  trip_plans nothing;
  auto empty = merge_plans(plans({}), &nothing);
  auto reply = build_plan_reply(request(), here(), there(), t0,
                                std::move(empty), 0, true);
  REQUIRE_FALSE(reply);
  CHECK(reply.error().code == ec::no_itinerary_found);
  CHECK_THAT(reply.error().message, Catch::Contains("relaxed"));
  CHECK_THAT(reply.error().hint, Catch::Contains("maxWalkingDistance"));
  // At the default limit on changes, it is not the advice.
  CHECK_THAT(reply.error().hint, !Catch::Contains("maxTransfers"));
}

TEST_CASE("plan_trip: LocationRef enrichment from variables",
          "[plan_trip][labels]") {
  CHECK(here().raw_source == "input");
  CHECK_FALSE(here().label);
  user_variable home;
  home.key = "home";
  home.type = variable_type::location;
  home.lat = 60.17;
  home.lon = 24.94;
  home.name = "Home";
  home.address = "Mannerheimintie 1";
  auto ref = from_variable(home, "origin");
  REQUIRE(ref);
  CHECK(ref->label == std::optional<std::string>{"home"});
  CHECK(ref->name == std::optional<std::string>{"Home"});
  CHECK(ref->address == std::optional<std::string>{"Mannerheimintie 1"});
  CHECK(ref->raw_source == "variable");
  CHECK(ref->position.lat == Approx(60.17));
  user_variable stop;
  stop.key = "work";
  stop.type = variable_type::stop;
  stop.stop_id = "HSL:1";
  // A saved stop is looked up at its provider first (D21): given here,
  // it is the caller's mistake, named.
  auto wrong = from_variable(stop, "destination");
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().code == ec::internal_error);
  CHECK_THAT(wrong.error().message, Catch::Contains("work"));
  // The stop as its provider placed it.
  auto placed = from_stop_place(
    stop_place{"HSL:1", "Rautatientori", {60.171, 24.941}, "Europe/Helsinki"},
    "variable");
  CHECK(placed.stop_id == std::optional<std::string>{"HSL:1"});
  CHECK(placed.name == std::optional<std::string>{"Rautatientori"});
  CHECK(placed.raw_source == "variable");
  CHECK(placed.position.lon == Approx(24.941));
}

TEST_CASE("plan_trip: the request time resolves", "[plan_trip]") {
  auto r = request();
  CHECK(resolve_time(r, t0) == t0);
  r.when_time = "2025-09-15T13:30:00+03:00";
  CHECK(resolve_time(r, t0) == t0 + 1800);
}

TEST_CASE("plan_trip: the reply carries leg status, start, end and duration "
          "(no renderer needed)",
          "[plan_trip][contract][embedding]") {
  // Walk, then a bus 7 minutes late, then a cancelled tram.
  auto it = trip({walk(t0, t0 + 120), ride("550", t0 + 120, t0 + 600, 420),
                  ride("7", t0 + 1200, t0 + 1500, std::nullopt, true)});
  auto merged = merge_plans(plans({it}), nullptr);
  auto reply = build_plan_reply(request(), here(), there(), t0,
                                std::move(merged), 0, false);
  REQUIRE(reply);
  REQUIRE(reply->itineraries.size() == 1);
  const auto& got = reply->itineraries[0];
  CHECK(got.start == t0);
  CHECK(got.end == t0 + 1500);
  CHECK(got.duration_seconds == 1500);
  CHECK(got.schedule_type == "realtime"); // a cancellation is realtime news
  CHECK_FALSE(got.legs[0].status); // walking has none
  CHECK(got.legs[1].status == std::optional{departure_status::delayed});
  CHECK(got.legs[1].delay_seconds == std::optional<int64_t>{420});
  CHECK(got.legs[2].status == std::optional{departure_status::cancelled});
  // D11 is one rule for departures and legs.
  CHECK(classify_status(false, 61) == departure_status::delayed);
  CHECK(classify_status(false, -60) == departure_status::on_time);
  CHECK(classify_status(false, std::nullopt)
        == departure_status::scheduled_only);
  CHECK(classify_status(true, 0) == departure_status::cancelled);
}
