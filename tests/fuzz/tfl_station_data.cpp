// libFuzzer: TfL station data loading (CSV parsing, columns, joins). The
// input is Stations.csv, a NUL byte, then Toilets.csv.
#include <optional>
#include <string>

#include "transitd/providers/tfl_station_data.hpp"
#include "tests/fuzz/common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto input = transitd::fuzz::text(data, size);
  auto split = input.find('\0');
  std::string stations{input.substr(0, split)};
  std::string toilets{split == std::string_view::npos
                        ? std::string_view{}
                        : input.substr(split + 1)};
  auto read = [&](const std::string& file) -> std::optional<std::string> {
    if (file == "Stations.csv")
      return stations;
    if (file == "Toilets.csv")
      return toilets;
    return std::nullopt;
  };
  auto loaded = transitd::load_station_data(read);
  if (loaded)
    for (const auto& station : loaded->stations)
      (void)transitd::normalise_station_name(station.name);
  return 0;
}
