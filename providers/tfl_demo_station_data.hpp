#pragma once
// A small station data set of our own making, in TfL's "station data
// detailed" format (Stations.csv, Toilets.csv in the 2026 layout), for the
// demo default. TfL's files are not redistributed; real data: see
// docs/tools/stationToilets.md.

#include "transitd/providers/tfl_station_data.hpp"

namespace transitd {

/// Serves the built-in Stations.csv and Toilets.csv.
dataset_reader demo_station_data_reader();

} // namespace transitd
