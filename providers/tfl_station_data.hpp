#pragma once
// TfL's "station data detailed" files: stations and their toilets, loaded
// by header name so both the 2024 and the 2026 Toilets.csv layouts work,
// plus the station-name matching of D20.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "transitd/messages/error.hpp"
#include "transitd/messages/london.hpp"

namespace transitd {

struct station_record {
  std::string unique_id;
  std::string name;
  /// normalise_station_name(name), precomputed.
  std::string key;
  std::vector<toilet_detail> toilets;
};

struct station_dataset {
  std::vector<station_record> stations;
  /// Toilet rows whose station is not in Stations.csv (left out).
  std::size_t orphan_toilets = 0;
};

/// Reads a file of the dataset by name; nullopt when missing or unreadable.
using dataset_reader
  = std::function<std::optional<std::string>(const std::string& file)>;

/// Loads Stations.csv and Toilets.csv through `read`; a data-not-available
/// failure names the file that is missing, unreadable or lacks a column.
outcome<station_dataset> load_station_data(const dataset_reader& read);

/// A reader over a directory on disk.
dataset_reader directory_reader(std::string directory);

/// Lower-case, accents folded (é → e), punctuation dropped ("King's" →
/// "kings", "St. Pancras" → "st pancras"), "&" → "and", spaces collapsed.
std::string normalise_station_name(std::string_view name);

/// "Located on platforms 2,3,4" → {2, 3, 4}; "Platforms 3 and 4" → {3, 4};
/// numbers count only after the word platform(s).
std::vector<int32_t> extract_platform_numbers(std::string_view location);

} // namespace transitd
