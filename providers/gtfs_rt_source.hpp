#pragma once
// One GTFS-realtime source of a feed: a URL polled with conditional
// requests, or a file read again when it changes; what it says now, with
// incremental (DIFFERENTIAL) messages merged into what came before. Used
// by the feed's realtime thread only, never on the CAF scheduler.
//
//  - A URL is fetched no more often than the poll interval, nor before the
//    last answer's Cache-Control max-age ran out; an ETag or Last-Modified
//    of the last answer makes the next request conditional (a 304 costs
//    nothing). After a failure the next attempt waits twice as long as
//    the last (from the interval up to ten minutes).
//  - A file is read when its modification time or size changed.
//  - A message that does not decode is refused whole: the state stays as
//    it was, the failure is counted and logged.

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "transitd/offline/gtfs_rt.hpp"

namespace transitd::gtfs_rt {

struct source_options {
  /// Seconds between polls of a URL (and checks of a file).
  int32_t interval_s = 30;
  /// One poll of a URL as a whole, from connecting to the last byte.
  int32_t timeout_s = 15;
  std::size_t max_bytes = max_message_bytes;
};

/// What a source did, for logs, /readyz and /metrics.
struct source_status {
  /// The source as configured, a URL without its query (keys stay out).
  std::string name;
  /// The header timestamp of the last message applied (seconds since the
  /// epoch; 0: none yet).
  int64_t timestamp = 0;
  int64_t polls = 0;
  int64_t unchanged = 0;
  int64_t failures = 0;
  /// Messages refused as malformed (counted in failures too).
  int64_t refused = 0;
  std::string last_error;
  std::size_t trip_updates = 0;
  std::size_t vehicles = 0;
  std::size_t alerts = 0;
  /// What decoding the last message corrected or ignored (timestamps in
  /// milliseconds...); empty when nothing.
  std::vector<std::string> notes;
};

class source {
public:
  source(std::string location, source_options options);

  /// Polls if due at `now_ms` (a steady clock's milliseconds); true when
  /// what the source says changed.
  bool poll(int64_t now_ms);
  /// When the next poll is due (steady milliseconds).
  int64_t next_due_ms() const {
    return next_due_ms_;
  }
  const source_status& status() const {
    return status_;
  }
  /// What the source says now.
  std::vector<trip_update> trip_updates() const;
  std::vector<vehicle_position> vehicles() const;
  std::vector<alert> alerts() const;

  /// Applies one message as if fetched (tests, and poll itself): a full
  /// dataset replaces the state, a differential one merges into it.
  void apply(feed message);

private:
  /// The bytes of a changed message, empty when unchanged; a failure
  /// message in `error`.
  bool fetch_url(std::string& body, std::string& error);
  bool read_file(std::string& body, std::string& error);
  void failed(int64_t now_ms, std::string error);

  std::string location_;
  source_options options_;
  bool is_url_ = false;
  source_status status_;
  int64_t next_due_ms_ = 0;
  int32_t backoff_s_ = 0;
  // Validators of the last answer (URL), signature of the file read.
  std::string etag_;
  std::string last_modified_;
  int32_t max_age_s_ = 0;
  int64_t file_signature_ = -1;
  // Entities by id, in the order they came.
  template <class T>
  struct keyed {
    std::unordered_map<std::string, std::size_t> index;
    std::vector<T> items;
    std::vector<bool> live;
    void clear() {
      index.clear();
      items.clear();
      live.clear();
    }
    void put(T item);
    void erase(const std::string& id);
    std::vector<T> all() const;
  };
  keyed<trip_update> trips_;
  keyed<vehicle_position> vehicles_;
  keyed<alert> alerts_;
};

/// Seconds of a Cache-Control header's max-age (or s-maxage); 0 when none.
int32_t cache_max_age(std::string_view cache_control);

} // namespace transitd::gtfs_rt
