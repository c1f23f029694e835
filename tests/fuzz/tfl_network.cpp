// libFuzzer: TfL's StopPoint, Arrivals and Line Status parsers. The first
// byte picks the HTTP status (200, 404, 429, 500) and the parser, the rest
// is the body.
#include "transitd/providers/tfl_network.hpp"
#include "tests/fuzz/common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0)
    return 0;
  static const int statuses[] = {200, 404, 429, 500};
  transitd::http_response response;
  response.status = statuses[data[0] % 4];
  response.body = std::string{transitd::fuzz::text(data + 1, size - 1)};
  switch ((data[0] / 4) % 3) {
    case 0:
      (void)transitd::tfl::parse_stop_point(response, "HUBOXC");
      break;
    case 1: {
      int64_t newest = 0;
      (void)transitd::tfl::parse_arrivals(response, newest);
      break;
    }
    default:
      (void)transitd::tfl::parse_line_status(response);
  }
  (void)transitd::tfl::is_stop_id(response.body);
  return 0;
}
