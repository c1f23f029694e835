#include "transitd/providers/tfl_station_data.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "transitd/offline/csv.hpp"

namespace transitd {

namespace {

failure unavailable(std::string message) {
  return make_failure(ec::data_not_available, std::move(message),
                      "point station_toilets_options::reader at TfL's "
                      "'station data detailed' directory");
}

outcome<csv_table> read_table(const dataset_reader& read,
                              const std::string& file,
                              std::initializer_list<const char*> columns) {
  auto text = read(file);
  if (!text)
    return unavailable(file + " is missing or unreadable");
  auto table = csv_table::parse(*text);
  if (!table)
    return unavailable(file + ": " + table.error().message);
  for (const char* column : columns)
    if (!table->column(column))
      return unavailable(file + " has no column \"" + column + "\"");
  return table;
}

} // namespace

dataset_reader directory_reader(std::string directory) {
  return [directory](const std::string& file) -> std::optional<std::string> {
    std::ifstream in{directory + "/" + file, std::ios::binary};
    if (!in)
      return std::nullopt;
    std::ostringstream out;
    out << in.rdbuf();
    if (in.bad())
      return std::nullopt;
    return out.str();
  };
}

outcome<station_dataset> load_station_data(const dataset_reader& read) {
  auto stations = read_table(read, "Stations.csv", {"UniqueId", "Name"});
  if (!stations)
    return stations.error();
  auto toilets = read_table(read, "Toilets.csv",
                            {"StationUniqueId", "IsAccessible",
                             "HasBabyChanging", "IsInsideGateLine",
                             "Location", "IsFeeCharged", "Type"});
  if (!toilets)
    return toilets.error();
  station_dataset data;
  std::unordered_map<std::string, std::size_t> by_id;
  for (const auto& row : stations->rows()) {
    station_record s;
    s.unique_id = stations->field(row, "UniqueId");
    s.name = stations->field(row, "Name");
    if (s.unique_id.empty() || s.name.empty())
      continue;
    s.key = normalise_station_name(s.name);
    by_id.emplace(s.unique_id, data.stations.size());
    data.stations.push_back(std::move(s));
  }
  for (const auto& row : toilets->rows()) {
    auto id = toilets->field(row, "StationUniqueId");
    auto station = by_id.find(id);
    if (station == by_id.end()) {
      ++data.orphan_toilets;
      continue;
    }
    toilet_detail t;
    auto location = toilets->field(row, "Location");
    if (!location.empty()) {
      t.platform_numbers = extract_platform_numbers(location);
      t.location = std::move(location);
    }
    t.accessible = parse_flag(toilets->field(row, "IsAccessible"));
    t.baby_changing = parse_flag(toilets->field(row, "HasBabyChanging"));
    t.inside_gate_line = parse_flag(toilets->field(row, "IsInsideGateLine"));
    t.fee_charged = parse_flag(toilets->field(row, "IsFeeCharged"));
    t.type = toilets->field(row, "Type");
    data.stations[station->second].toilets.push_back(std::move(t));
  }
  return data;
}

std::string normalise_station_name(std::string_view name) {
  std::string out;
  bool space = true; // no leading space
  auto put = [&](char c) {
    if (c == ' ') {
      if (!space)
        out.push_back(' ');
      space = true;
    } else {
      out.push_back(c);
      space = false;
    }
  };
  for (std::size_t i = 0; i < name.size(); ++i) {
    auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x80) {
      if (std::isalnum(c))
        put(static_cast<char>(std::tolower(c)));
      else if (c == '&') {
        put(' ');
        for (char x : std::string_view{"and"})
          put(x);
        put(' ');
      } else if (c == '\'' || c == '.')
        continue; // King's → kings, St. → st
      else
        put(' ');
      continue;
    }
    // Latin-1 supplement in UTF-8 (C3 xx): fold accented letters.
    if (c == 0xC3 && i + 1 < name.size()) {
      auto n = static_cast<unsigned char>(name[++i]);
      static const char folded[] =
        "aaaaaaaceeeeiiiidnooooo*ouuuuyts" // C3 80..9F (upper case)
        "aaaaaaaceeeeiiiidnooooo/ouuuuyty"; // C3 A0..BF (lower case)
      if (n >= 0x80 && n <= 0xBF) {
        char f = folded[n - 0x80];
        if (std::isalpha(static_cast<unsigned char>(f)))
          put(f);
        else
          put(' ');
      }
      continue;
    }
    // Other non-ASCII bytes: keep as they are.
    out.push_back(static_cast<char>(c));
    space = false;
  }
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  return out;
}

std::vector<int32_t> extract_platform_numbers(std::string_view location) {
  std::string lower{location};
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  std::vector<int32_t> numbers;
  std::size_t pos = 0;
  while ((pos = lower.find("platform", pos)) != std::string::npos) {
    pos += 8;
    if (pos < lower.size() && lower[pos] == 's')
      ++pos;
    // Numbers joined by spaces, commas, "and", "&", "/", "-".
    while (pos < lower.size()) {
      if (std::isdigit(static_cast<unsigned char>(lower[pos]))) {
        int32_t n = 0;
        while (pos < lower.size()
               && std::isdigit(static_cast<unsigned char>(lower[pos]))) {
          n = n * 10 + (lower[pos] - '0');
          if (n > 1000)
            break;
          ++pos;
        }
        if (std::find(numbers.begin(), numbers.end(), n) == numbers.end())
          numbers.push_back(n);
        continue;
      }
      if (lower.compare(pos, 3, "and") == 0) {
        pos += 3;
        continue;
      }
      char c = lower[pos];
      if (c == ' ' || c == ',' || c == '&' || c == '/' || c == '-') {
        ++pos;
        continue;
      }
      break;
    }
  }
  return numbers;
}

} // namespace transitd
