// The loader's step for shapes.txt: each path read, ordered and
// simplified, so a trip can be drawn along the street or track it takes.

#include <algorithm>
#include <cmath>

#include "transitd/offline/gtfs_builder.hpp"
#include "transitd/util/polyline.hpp"

namespace transitd::gtfs::detail {

namespace {

struct raw_point {
  uint32_t sequence = 0;
  float lat = 0;
  float lon = 0;
};

} // namespace

std::optional<failure> builder::read_shapes(feed_files& feed,
                                            source_keys& keys) {
  table_reader t{feed, "shapes.txt", report, options.cancel.get()};
  if (auto bad = t.start({"shape_id", "shape_pt_lat", "shape_pt_lon",
                          "shape_pt_sequence"})) {
    // Optional: trips are then drawn through their stops.
    t.skip(bad->message + "; shapes ignored");
    return std::nullopt;
  }
  auto id_col = t.column("shape_id");
  auto lat_col = t.column("shape_pt_lat");
  auto lon_col = t.column("shape_pt_lon");
  auto seq_col = t.column("shape_pt_sequence");
  std::unordered_map<std::string, uint32_t> ids;
  std::vector<std::vector<raw_point>> paths;
  std::vector<std::string> names; // in the file's order
  std::string key;
  std::size_t rows = 0;
  bool over = false;
  while (t.next()) {
    if (++rows > max_shape_rows) {
      if (!over)
        t.skip("shapes.txt holds more than "
               + std::to_string(max_shape_rows)
               + " points; the rest are ignored");
      over = true;
      continue;
    }
    raw_point p;
    double lat = 0, lon = 0;
    if (!parse_number(t.get(lat_col), lat) || !parse_number(t.get(lon_col), lon)
        || !(std::abs(lat) <= 90) || !(std::abs(lon) <= 180)
        || !parse_number(t.get(seq_col), p.sequence)) {
      t.skip("shape point without a valid shape_pt_lat, shape_pt_lon or "
             "shape_pt_sequence");
      continue;
    }
    key.assign(t.get(id_col));
    if (key.empty()) {
      t.skip("shape point without a shape_id");
      continue;
    }
    p.lat = static_cast<float>(lat);
    p.lon = static_cast<float>(lon);
    auto [it, added] = ids.emplace(key, static_cast<uint32_t>(paths.size()));
    if (added) {
      paths.emplace_back();
      names.push_back(key);
    }
    paths[it->second].push_back(p);
  }
  if (auto bad = t.finish())
    return bad;
  auto& tt = *out;
  std::unordered_map<std::string, uint32_t>{}.swap(ids);
  for (std::size_t index = 0; index < paths.size(); ++index) {
    auto& raw = paths[index];
    if (raw.size() < 2)
      continue;
    if (tt.shape_points.size() >= max_shape_points_total) {
      if (report.samples.size() < 10)
        report.samples.push_back("shapes.txt: over "
                                 + std::to_string(max_shape_points_total)
                                 + " points kept; later shapes ignored");
      break;
    }
    std::stable_sort(raw.begin(), raw.end(),
                     [](const raw_point& a, const raw_point& b) {
                       return a.sequence < b.sequence;
                     });
    std::vector<coordinate> line;
    line.reserve(raw.size());
    for (const auto& p : raw)
      line.push_back({p.lat, p.lon});
    std::vector<raw_point>{}.swap(raw);
    line = simplify_path(std::move(line), shape_tolerance_m,
                         max_shape_points);
    keys.shapes.emplace(names[index], static_cast<uint32_t>(tt.shape_begin.size() - 1));
    for (const auto& c : line)
      tt.shape_points.push_back({static_cast<float>(c.lat),
                                 static_cast<float>(c.lon)});
    tt.shape_begin.push_back(static_cast<uint32_t>(tt.shape_points.size()));
  }
  return std::nullopt;
}

} // namespace transitd::gtfs::detail
