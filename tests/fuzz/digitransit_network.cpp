// libFuzzer: Digitransit's trip and routes parsers (providers/
// digitransit_network). The first byte picks the parser and the question.
#include "transitd/providers/digitransit_network.hpp"
#include "tests/fuzz/common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0)
    return 0;
  auto body = transitd::fuzz::text(data + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      transitd::trip_query q;
      q.trip_id = "HSL:1";
      (void)transitd::digitransit::parse_trip(body, q, "20261014", 0);
      break;
    }
    case 1: {
      transitd::route_query q;
      q.route = "55";
      (void)transitd::digitransit::parse_routes(body, q, 0);
      break;
    }
    default: {
      transitd::route_query q;
      q.stop = "HSL:1";
      (void)transitd::digitransit::parse_routes(body, q, 0);
    }
  }
  return 0;
}
