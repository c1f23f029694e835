#pragma once
// What a host hears about a GTFS feed's timetable: it sends `feed_subscribe`
// to a FEED actor and then receives a `feed_event` at once (the state as it
// stands) and at every change (loaded, reloaded, failed). No polling.

#include <cstdint>
#include <string>
#include <string_view>

namespace transitd {

enum class feed_state : uint8_t {
  /// The first load is still running: calls answer data-not-available
  /// with a retry time.
  loading,
  /// A timetable is served (after the first load or a reload).
  loaded,
  /// The last load failed; `serving` says whether an earlier timetable is
  /// still served.
  failed,
};

/// "loading", "loaded", "failed".
inline std::string_view to_string(feed_state state) noexcept {
  switch (state) {
    case feed_state::loading:
      return "loading";
    case feed_state::loaded:
      return "loaded";
    default:
      return "failed";
  }
}

/// Subscribes the sender to the feed's events.
struct feed_subscribe {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, feed_subscribe&) {
  return f();
}

struct feed_event {
  std::string feed;
  feed_state state = feed_state::loading;
  /// failed: why.
  std::string error;
  /// A timetable is served (loaded, or failed with an earlier one kept).
  bool serving = false;
  /// The served timetable: its size, service days and load time.
  int64_t stops = 0;
  int64_t trips = 0;
  std::string first_day;
  std::string last_day;
  int64_t load_ms = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, feed_event& x) {
  return f(x.feed, x.state, x.error, x.serving, x.stops, x.trips, x.first_day,
           x.last_day, x.load_ms);
}

} // namespace transitd
