// libFuzzer: the Digitransit departures parser on any response body.
#include "transitd/providers/digitransit_routing.hpp"
#include "tests/fuzz/common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)transitd::digitransit::parse_departures(transitd::fuzz::text(data, size),
                                                "HSL:1040129", 1700000000000);
  return 0;
}
