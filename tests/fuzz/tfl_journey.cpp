// libFuzzer: the TfL Journey Planner parser. The first byte picks the HTTP
// status (200, 300, 400, 404, 429, 500), the rest is the body.
#include "transitd/providers/tfl_journey.hpp"
#include "tests/fuzz/common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0)
    return 0;
  static const int statuses[] = {200, 300, 400, 404, 429, 500};
  transitd::http_response response;
  response.status = statuses[data[0] % 6];
  response.body = std::string{transitd::fuzz::text(data + 1, size - 1)};
  (void)transitd::tfl::parse_journey_response(response);
  return 0;
}
