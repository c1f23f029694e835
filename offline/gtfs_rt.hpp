#pragma once
// GTFS-realtime messages decoded into plain values: trip updates, vehicle
// positions and service alerts, whatever mix a feed carries (the kind is
// read from the content). Decoding is all or nothing: a malformed or
// truncated message, or one missing a field the format requires, is
// refused whole with the reason, never half-read. The protobuf types stay
// inside gtfs_rt.cpp (generated from proto/gtfs_realtime.proto).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "transitd/messages/error.hpp"

namespace transitd::gtfs_rt {

/// A predicted arrival or departure: a delay against the schedule, an
/// absolute time (seconds since the epoch), or both.
struct stop_time_event {
  std::optional<int32_t> delay_s;
  std::optional<int64_t> time;
  std::optional<int32_t> uncertainty_s;
};

enum class stop_relationship : uint8_t { scheduled, skipped, no_data,
                                         unscheduled };

struct stop_time_update {
  std::optional<uint32_t> stop_sequence;
  std::string stop_id;
  std::optional<stop_time_event> arrival;
  std::optional<stop_time_event> departure;
  stop_relationship relationship = stop_relationship::scheduled;
};

enum class trip_relationship : uint8_t {
  scheduled,
  added,
  unscheduled,
  canceled,
  replacement,
  duplicated,
  deleted,
  new_trip,
};

struct trip_descriptor {
  std::string trip_id;
  std::string route_id;
  std::optional<uint32_t> direction_id;
  /// "HH:MM:SS" (may pass 24:00) and "YYYYMMDD", as the feed gives them.
  std::string start_time;
  std::string start_date;
  trip_relationship relationship = trip_relationship::scheduled;
};

struct vehicle_descriptor {
  std::string id;
  std::string label;
};

struct trip_update {
  std::string entity_id;
  trip_descriptor trip;
  vehicle_descriptor vehicle;
  std::vector<stop_time_update> stops;
  std::optional<uint64_t> timestamp;
  std::optional<int32_t> delay_s;
};

enum class vehicle_status : uint8_t { incoming_at, stopped_at,
                                      in_transit_to };

struct vehicle_position {
  std::string entity_id;
  std::optional<trip_descriptor> trip;
  vehicle_descriptor vehicle;
  std::optional<double> lat;
  std::optional<double> lon;
  std::optional<double> bearing;
  std::optional<double> speed_mps;
  std::optional<uint32_t> current_stop_sequence;
  std::string stop_id;
  vehicle_status status = vehicle_status::in_transit_to;
  std::optional<uint64_t> timestamp;
};

/// A text in its languages: (language, text) pairs; the language may be
/// empty (the feed's default).
using translated = std::vector<std::pair<std::string, std::string>>;

struct informed_entity {
  std::string agency_id;
  std::string route_id;
  std::optional<int32_t> route_type;
  std::optional<uint32_t> direction_id;
  std::optional<trip_descriptor> trip;
  std::string stop_id;
};

struct time_range {
  /// Seconds since the epoch; absent: open on that side.
  std::optional<uint64_t> start;
  std::optional<uint64_t> end;
};

struct alert {
  std::string entity_id;
  std::vector<time_range> active_periods;
  std::vector<informed_entity> informed;
  /// The format's names in lower case with dashes ("technical-problem",
  /// "significant-delays", "severe"), as the tools report them.
  std::string cause = "unknown-cause";
  std::string effect = "unknown-effect";
  std::string severity = "unknown-severity";
  translated header;
  translated description;
  translated url;
};

struct feed {
  std::string version;
  /// DIFFERENTIAL: entities add to or replace what is known; otherwise the
  /// message is the whole state.
  bool differential = false;
  std::optional<uint64_t> timestamp;
  std::vector<trip_update> trip_updates;
  std::vector<vehicle_position> vehicles;
  std::vector<alert> alerts;
  /// Entities marked is_deleted (a differential feed's removals).
  std::vector<std::string> deleted;
  /// Entities that carried none of the three kinds (counted, not kept).
  std::size_t other_entities = 0;
  /// What decoding corrected or ignored (timestamps in milliseconds,
  /// timestamps outside 1970..9999), for the source's log and status.
  std::vector<std::string> notes;
};

/// The latest instant any timestamp may name: 9999-12-31T23:59:59Z.
inline constexpr uint64_t latest_timestamp = 253402300799;
/// A timestamp above this is taken for milliseconds (a common producer
/// mistake): as seconds it would lie past the year 5138.
inline constexpr uint64_t milliseconds_above = 100000000000;

/// Every timestamp of `message` as seconds since the epoch within
/// 1970..9999: milliseconds are read as seconds, anything else out of
/// range is dropped; `notes` says how many of each.
void normalise_timestamps(feed& message);

/// Largest message decoded (decoded, a message takes some 30 times its
/// size at worst: this bounds that too).
inline constexpr std::size_t max_message_bytes = 16 * 1024 * 1024;
/// Entities of one message, and stop time updates of one trip update: a
/// message beyond either is refused (the largest agencies publish some
/// 20,000 entities, a trip has at most a few hundred calls).
inline constexpr int max_entities = 200000;
inline constexpr int max_stop_time_updates = 2000;

/// Decodes one FeedMessage; a failure (ec::upstream_error) says why.
outcome<feed> decode(std::string_view bytes,
                     std::size_t max_bytes = max_message_bytes);

/// Names for logs and tests.
std::string_view to_string(trip_relationship r);
std::string_view to_string(stop_relationship r);
std::string_view to_string(vehicle_status s);

} // namespace transitd::gtfs_rt
