// Writes the GraphQL request bodies the Digitransit routing provider sends,
// one JSON file each, for tests/graphql/validate.mjs to check against the
// recorded HSL schema. Built from the provider's own functions, so the
// check sees exactly what goes upstream.
//
//   transitd-graphql-bodies DIR

#include <fstream>
#include <iostream>
#include <string>

#include "transitd/providers/digitransit_routing.hpp"

using namespace transitd;

namespace {

bool write(const std::string& path, const std::string& body) {
  std::ofstream out{path};
  out << body;
  return out.good();
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: transitd-graphql-bodies DIR\n";
    return 2;
  }
  std::string dir = argv[1];
  stop_departures_query departures;
  departures.stop_id = "HSL:1040129";
  departures.start_time = 1757930400;
  nearby_stops_query nearby;
  nearby.center = {60.1699, 24.9384};
  nearby.radius = 500;
  nearby.modes = {transit_mode::tram, transit_mode::bus};
  trip_plan_query plan;
  plan.from = {60.1699, 24.9384};
  plan.to = {60.2055, 24.6559};
  plan.time = 1757930400;
  bool ok = write(dir + "/departures.json",
                  digitransit::make_departures_body(departures))
            && write(dir + "/nearby_stops.json",
                     digitransit::make_nearby_stops_body(nearby))
            && write(dir + "/plan.json", digitransit::make_plan_body(plan));
  if (!ok) {
    std::cerr << "transitd-graphql-bodies: cannot write to " << dir << "\n";
    return 1;
  }
  return 0;
}
