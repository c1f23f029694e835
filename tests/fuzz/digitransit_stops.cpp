// libFuzzer: the Digitransit nearby-stops, stop-place and alerts parsers
// (all read GraphQL response bodies) on any response body.
#include "transitd/providers/digitransit_routing.hpp"
#include "tests/fuzz/common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto body = transitd::fuzz::text(data, size);
  (void)transitd::digitransit::parse_nearby_stops(body, 1700000000000);
  (void)transitd::digitransit::parse_stop_place(body, "HSL:1040129");
  transitd::alerts_query stop;
  stop.stop_id = "HSL:1040129";
  stop.time = 1700000000;
  (void)transitd::digitransit::parse_alerts(body, stop, 1700000000000);
  transitd::alerts_query feed;
  feed.time = 1700000000;
  feed.language = "sv";
  (void)transitd::digitransit::parse_alerts(body, feed, 1700000000000);
  return 0;
}
