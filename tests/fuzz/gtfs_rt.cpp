// libFuzzer: GTFS-realtime decoding (protobuf parsing of a FeedMessage and
// its conversion to plain values) on any bytes: refused whole or decoded,
// never a crash, never a half-read entity.

#include <string_view>

#include "providers/gtfs_rt.hpp"
#include "tests/fuzz/common.hpp"

using namespace transitd;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto feed = gtfs_rt::decode(
    std::string_view{reinterpret_cast<const char*>(data), size});
  if (!feed)
    return 0;
  // Positions off the globe are dropped, not passed on.
  for (const auto& v : feed->vehicles)
    if (v.lat && (*v.lat > 90 || *v.lat < -90))
      __builtin_trap();
  return 0;
}
