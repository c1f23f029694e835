#pragma once
// Timetable snapshots: a built `gtfs::timetable` written to disk in a
// versioned binary form, keyed by a hash of its sources' bytes and of the
// load options that shape it, so that a restart with unchanged sources
// reads the snapshot (a few hundred milliseconds for every MTA feed)
// instead of parsing the CSV again (seconds).
//
// A snapshot is never trusted: one of another format version, of other
// sources or options, truncated, or whose checksum or cross-references do
// not hold is refused with a message saying which, and the caller builds
// from the sources again. Reading never crashes on any bytes (a fuzz target
// reads snapshots).
//
// Layout (little-endian, as the host writes it; a big-endian host refuses
// snapshots by their magic):
//   header: magic "TRANSITD-TIMETABLE\n" (19 bytes), format version (u32),
//           source key (16 bytes), anchor day (i32, when the calendar window
//           was cut at it; else 0), payload size (u64), payload XXH3-64 (u64)
//   payload: every field of the timetable, vectors as a u64 count then the
//           elements (fixed-size fields written one by one, no padding),
//           strings as a u32 length then the bytes.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "transitd/messages/error.hpp"
#include "transitd/offline/gtfs_reader.hpp"
#include "transitd/offline/gtfs_timetable.hpp"

namespace transitd::gtfs {

/// Bumped whenever the timetable's fields or their meaning change.
// 2: footpaths shortest first; 3: stops along a Hilbert curve; 4: the
// bounds' hops kept; 5: a route merged sources define the same is one;
// 6: transfers between given trips or routes not read as the stops';
// 7: a stop merged sources share (the same id, near) is one; 8: a later
// merged source's trip under a taken id renamed ("ID~N"); 9: the hops'
// contraction hierarchy kept.
inline constexpr uint32_t snapshot_version = 9;

/// The key of a timetable built from sources whose contents hash to
/// `source_hashes` (util's content_hash, in order) with `options`: the
/// options that change what is built (footpath radius, day window) are
/// part of it, and so is the format version.
using source_key = std::array<uint8_t, 16>;
source_key key_of_sources(const std::vector<uint64_t>& source_hashes,
                          const load_options& options);

/// The key as 32 hexadecimal digits (for logs).
std::string to_hex(const source_key& key);

/// The snapshot's bytes.
std::string snapshot_bytes(const timetable& tt, const source_key& key);

/// `payload` behind a header of this version for `key` and `anchor_day`,
/// with its size and checksum (what snapshot_bytes does; tests and the fuzz
/// target frame payloads of their own).
std::string frame_snapshot(std::string_view payload, const source_key& key,
                           int32_t anchor_day = 0);

/// What reading a snapshot found.
enum class snapshot_verdict {
  read,          ///< the timetable is the snapshot's
  missing,       ///< no snapshot there
  other_version, ///< written by another format version
  other_sources, ///< of other sources or options
  corrupt,       ///< truncated, checksum or structure wrong
};

struct snapshot_result {
  snapshot_verdict verdict = snapshot_verdict::missing;
  /// Why it was not read (empty when read).
  std::string why;
  std::shared_ptr<const gtfs::timetable> timetable;
};

/// A timetable from snapshot bytes written for `key`. `anchor_day` is the
/// day the load would anchor its window at: a snapshot whose window was cut
/// at another day is of other options.
snapshot_result read_snapshot_bytes(std::string_view bytes,
                                    const source_key& key,
                                    int32_t anchor_day);

/// The file of feed `name`'s snapshot in `dir`.
std::string snapshot_path(const std::string& dir, const std::string& name);

/// Reads the snapshot file at `path` (see read_snapshot_bytes).
snapshot_result read_snapshot(const std::string& path, const source_key& key,
                              int32_t anchor_day);

/// Writes the snapshot of `tt` to `path` atomically (a temporary file
/// renamed over it). Fails naming the path.
outcome<std::size_t> write_snapshot(const std::string& path,
                                    const timetable& tt,
                                    const source_key& key);

} // namespace transitd::gtfs
