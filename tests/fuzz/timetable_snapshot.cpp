// libFuzzer: reading timetable snapshots on any bytes: refused with a
// verdict or read into a timetable whose every index holds, never a crash.
// The first byte chooses: odd, the rest is a payload framed with the right
// version, key and checksum (so the fuzzer reaches the payload's reader);
// even, the rest is read as a whole file. Seeds
// (tests/fuzz/seeds/timetable_snapshot) are payloads of the bilingual and
// hostile test feeds behind the byte 0x01.

#include <string>

#include "transitd/offline/gtfs_answers.hpp"
#include "transitd/offline/gtfs_snapshot.hpp"
#include "transitd/offline/raptor.hpp"
#include "tests/fuzz/common.hpp"

using namespace transitd;
using namespace transitd::gtfs;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0)
    return 0;
  static const source_key key = key_of_sources({}, load_options{});
  auto rest = fuzz::text(data + 1, size - 1);
  auto bytes = (data[0] & 1) != 0 ? frame_snapshot(rest, key)
                                  : std::string{rest};
  auto read = read_snapshot_bytes(bytes, key, 0);
  if (read.verdict != snapshot_verdict::read)
    return 0;
  // What was read is used as a feed is: lookups, departures, a search,
  // and written again.
  const auto& tt = *read.timetable;
  if (!tt.stops.empty()) {
    static_cast<void>(tt.find_stop(tt.stops[0].id));
    static_cast<void>(tt.stops_near(tt.stops[0].position, 300));
    static_cast<void>(tt.stop_and_children(0));
    static_cast<void>(tt.modes_at(0));
    stop_departures_query q;
    q.stop_id = tt.name + ":" + tt.stops[0].id;
    q.start_time = tt.day_origins.empty() || tt.day_origins[0].size() < 2
                     ? 0
                     : tt.day_origins[0][1] + 8 * 3600;
    q.time_range_seconds = 3600;
    q.max_departures = 10;
    static_cast<void>(departures_at(tt, q));
    if (tt.stops.size() > 1) {
      raptor router{tt};
      trip_plan_query plan;
      plan.from = tt.stops[0].position;
      plan.to = tt.stops.back().position;
      plan.time = q.start_time;
      plan.first = 2;
      static_cast<void>(plan_trips(router, tt, plan));
    }
  }
  static_cast<void>(snapshot_bytes(tt, key));
  return 0;
}
