// The offline engine embedded: a CAF application serves a GTFS feed of its
// own with transitd's router, no network and no key. It subscribes to the
// feed's events (loading, loaded, failed) instead of polling, then asks
// find_stops, get_departures and plan_trip with typed requests.
//
//   embed_offline GTFS_ZIP_OR_FOLDER ISO_TIME FROM_LAT FROM_LON TO_LAT TO_LON
//
// e.g. the Caltrain fixture at 2023-11-07T08:00:00-08:00 from 22nd Street
// (37.7576 -122.3919) to Palo Alto (37.4434 -122.1647): every answer is
// computed for that instant (the engine's one clock). Exits 0 when every
// call succeeds.

#include <chrono>
#include <iostream>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>

#include <transitd/actors/engine.hpp>
#include <transitd/messages/time.hpp>

int main(int argc, char** argv) {
  using namespace std::chrono_literals;
  if (argc != 7) {
    std::cerr << "usage: embed_offline GTFS ISO_TIME FROM_LAT FROM_LON "
                 "TO_LAT TO_LON\n";
    return 2;
  }
  auto instant = transitd::parse_iso8601(argv[2]);
  if (!instant) {
    std::cerr << "not an ISO 8601 time: " << argv[2] << "\n";
    return 2;
  }
  transitd::coordinate from{std::stod(argv[3]), std::stod(argv[4])};
  transitd::coordinate to{std::stod(argv[5]), std::stod(argv[6])};
  caf::actor_system_config cfg;
  transitd::add_message_types(cfg);
  caf::actor_system system{cfg};

  transitd::engine_config config;
  config.variables.path = ":memory:";
  transitd::gtfs_feed_options feed;
  feed.name = "mine";
  feed.sources = {argv[1]};
  config.feeds.push_back(feed);
  // The engine's clock (feeds included): the instant asked for.
  config.clock_offset_ms = *instant * 1000 - transitd::now_ms();
  auto engine = transitd::spawn_engine(system, config);
  int failures = 0;
  {
    caf::scoped_actor self{system};
    // Heard, not polled: the feed's state now, then at each change.
    self->send(engine.feeds.front(), transitd::feed_subscribe{});
    transitd::feed_event event;
    while (event.state == transitd::feed_state::loading) {
      bool heard = false;
      self->receive(
        [&](transitd::feed_event& e) {
          event = std::move(e);
          heard = true;
        },
        caf::after(120s) >> [] {});
      if (!heard)
        break;
    }
    if (event.state != transitd::feed_state::loaded) {
      std::cerr << "feed " << event.feed << " is "
                << transitd::to_string(event.state) << ": " << event.error
                << "\n";
      engine.shutdown();
      return 1;
    }
    std::cout << "feed " << event.feed << ": " << event.stops << " stops, "
              << event.trips << " trips, service " << event.first_day
              << ".." << event.last_day << "\n";

    auto failed = [&](const char* tool) {
      return [&failures, tool](caf::error& err) {
        auto f = transitd::to_failure(err);
        std::cerr << tool << " failed: " << f.message << " (" << f.hint
                  << ")\n";
        ++failures;
      };
    };
    // The stops near the origin, nearest first.
    transitd::find_stops_request stops;
    stops.center = from;
    stops.max_results = 3;
    std::string nearest;
    self->request(engine.router, 10s, stops)
      .receive(
        [&](transitd::find_stops_reply& reply) {
          std::cout << "find_stops:\n";
          for (const auto& s : reply.stops)
            std::cout << "  " << s.id << " " << s.name << "\n";
          if (reply.stops.empty())
            ++failures;
          else
            nearest = reply.stops.front().id;
        },
        failed("find_stops"));
    // Its next departures.
    if (!nearest.empty()) {
      transitd::get_departures_request departures;
      departures.stop = {transitd::stop_ref::kind::id, nearest};
      departures.limit = 3;
      departures.window_minutes = 120;
      self->request(engine.router, 10s, departures)
        .receive(
          [&](transitd::get_departures_reply& reply) {
            std::cout << "get_departures " << reply.stop_id << ":\n";
            for (const auto& d : reply.departures)
              std::cout << "  " << d.line << " to " << d.destination
                        << " at " << d.scheduled_time << "\n";
            if (reply.departures.empty())
              ++failures;
          },
          failed("get_departures"));
    }
    // A trip from the origin to the destination.
    transitd::plan_trip_request trip;
    trip.origin.position = from;
    trip.destination.position = to;
    self->request(engine.router, 10s, trip)
      .receive(
        [&](transitd::plan_trip_reply& reply) {
          std::cout << "plan_trip: " << reply.itineraries.size()
                    << " itineraries\n";
          for (const auto& it : reply.itineraries)
            std::cout << "  " << (it.end - it.start) / 60 << " min, "
                      << it.legs.size() << " legs, " << it.transfers
                      << " transfers\n";
          if (reply.itineraries.empty())
            ++failures;
        },
        failed("plan_trip"));
  }
  engine.shutdown();
  return failures == 0 ? 0 : 1;
}
