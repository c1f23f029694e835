// libFuzzer: GTFS-realtime decoding (protobuf parsing of a FeedMessage and
// its conversion to plain values) on any bytes, refused whole or decoded,
// and every trip update decoded applied to a fixed schedule: never a
// crash, and no departure before its arrival.

#include <string_view>

#include "transitd/offline/gtfs_rt.hpp"
#include "transitd/offline/gtfs_rt_trip.hpp"
#include "tests/fuzz/common.hpp"

using namespace transitd;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto feed = gtfs_rt::decode(
    std::string_view{reinterpret_cast<const char*>(data), size});
  if (!feed)
    return 0;
  static const std::vector<gtfs_rt::scheduled_call> schedule = [] {
    std::vector<gtfs_rt::scheduled_call> calls;
    for (uint32_t i = 1; i <= 20; ++i)
      calls.push_back({i, std::to_string(i),
                       static_cast<int32_t>(30000 + 300 * i),
                       static_cast<int32_t>(30030 + 300 * i)});
    return calls;
  }();
  for (const auto& u : feed->trip_updates) {
    auto applied = gtfs_rt::apply(u, schedule, 1'700'000'000);
    for (const auto& c : applied.calls)
      if (c.status == gtfs_rt::call_status::predicted
          && c.departure < c.arrival)
        __builtin_trap();
  }
  return 0;
}
