// libFuzzer: the Pelias search parser on any response body.
#include "transitd/providers/digitransit_geocoding.hpp"
#include "tests/fuzz/common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)transitd::digitransit::parse_search(transitd::fuzz::text(data, size),
                                            1700000000000);
  return 0;
}
