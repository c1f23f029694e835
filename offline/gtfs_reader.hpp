#pragma once
// Reading GTFS feeds into a `gtfs::timetable`: zip archives through libzip
// or unpacked folders, CSV by header name, the files and fields routing
// needs. A missing required file or column stops the load with a failure
// naming them; a bad row is skipped, counted and sampled (file:line).

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "transitd/messages/error.hpp"
#include "transitd/offline/csv.hpp"
#include "transitd/offline/gtfs_timetable.hpp"

namespace transitd::gtfs {

/// The files of one feed.
class feed_files {
public:
  virtual ~feed_files() = default;
  /// What the feed is called in messages (its path).
  virtual std::string describe() const = 0;
  virtual bool has(const std::string& file) const = 0;
  /// A byte source of the file; only called when `has(file)`.
  virtual csv_reader::source open(const std::string& file) = 0;
};

/// A zip archive (files at its root or in one folder). Fails naming the
/// path when it is not a readable zip.
outcome<std::unique_ptr<feed_files>> open_zip(const std::string& path);
/// A folder of .txt files.
outcome<std::unique_ptr<feed_files>> open_folder(const std::string& path);
/// A zip file or a folder, whichever `path` is.
outcome<std::unique_ptr<feed_files>> open_feed(const std::string& path);
/// Files held in memory (tests, the fuzz target).
std::unique_ptr<feed_files>
in_memory_feed(std::map<std::string, std::string> files);

struct load_options {
  /// Stops closer than this get a generated footpath (meters); a
  /// transfers.txt entry overrides it for its pair.
  double footpath_radius = 500;
  /// At most this many days of service from the earliest calendar day
  /// (a calendar ending in 2099 is cut here).
  int32_t max_days = 1100;
  /// Days since 1970-01-01 the day window should start near (the
  /// daemon's today); 0: the earliest calendar day.
  int32_t anchor_day = 0;
  /// Set to stop a load early (it then fails as cancelled).
  std::shared_ptr<const std::atomic<bool>> cancel;
};

/// Reads `sources` (merged: journeys cross between them) into one
/// timetable called `name`.
outcome<std::shared_ptr<const timetable>>
load_timetable(const std::string& name,
               std::vector<std::unique_ptr<feed_files>> sources,
               const load_options& options = {});

/// `open_feed` on each path, then `load_timetable`.
outcome<std::shared_ptr<const timetable>>
load_timetable(const std::string& name, const std::vector<std::string>& paths,
               const load_options& options = {});

/// "25:10:00" → 90600; "5:00:00" → 18000; nullopt when malformed.
std::optional<int32_t> parse_gtfs_time(std::string_view text);

/// "20230922" → days since 1970-01-01; nullopt when malformed.
std::optional<int32_t> parse_gtfs_date(std::string_view text);

/// The contract's mode of a GTFS route_type, basic or extended.
transit_mode mode_of_route_type(int32_t route_type);

} // namespace transitd::gtfs
