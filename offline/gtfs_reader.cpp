#include "transitd/offline/gtfs_reader.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <unordered_map>

#include <date/date.h>
#include <date/tz.h>
#include <spdlog/spdlog.h>
#include <zip.h>

namespace transitd::gtfs {

namespace {

// -- feed files ---------------------------------------------------------------

class zip_feed : public feed_files {
public:
  zip_feed(std::string path, zip_t* archive, std::string prefix)
    : path_(std::move(path)), archive_(archive), prefix_(std::move(prefix)) {
  }
  ~zip_feed() override {
    zip_discard(archive_);
  }
  std::string describe() const override {
    return path_;
  }
  bool has(const std::string& file) const override {
    return zip_name_locate(archive_, (prefix_ + file).c_str(), 0) >= 0;
  }
  csv_reader::source open(const std::string& file) override {
    auto* entry = zip_fopen(archive_, (prefix_ + file).c_str(), 0);
    std::shared_ptr<zip_file_t> handle{entry, [](zip_file_t* f) {
                                         if (f)
                                           zip_fclose(f);
                                       }};
    return [handle](char* buffer, std::size_t size) -> long {
      if (!handle)
        return -1;
      return static_cast<long>(zip_fread(handle.get(), buffer, size));
    };
  }

private:
  std::string path_;
  zip_t* archive_;
  std::string prefix_;
};

class folder_feed : public feed_files {
public:
  explicit folder_feed(std::filesystem::path path) : path_(std::move(path)) {
  }
  std::string describe() const override {
    return path_.string();
  }
  bool has(const std::string& file) const override {
    std::error_code ec;
    return std::filesystem::is_regular_file(path_ / file, ec);
  }
  csv_reader::source open(const std::string& file) override {
    auto in = std::make_shared<std::ifstream>(path_ / file, std::ios::binary);
    return [in](char* buffer, std::size_t size) -> long {
      if (!*in && !in->eof())
        return -1;
      in->read(buffer, static_cast<std::streamsize>(size));
      return static_cast<long>(in->gcount());
    };
  }

private:
  std::filesystem::path path_;
};

class memory_feed : public feed_files {
public:
  explicit memory_feed(std::map<std::string, std::string> files)
    : files_(std::move(files)) {
  }
  std::string describe() const override {
    return "in-memory feed";
  }
  bool has(const std::string& file) const override {
    return files_.count(file) != 0;
  }
  csv_reader::source open(const std::string& file) override {
    auto text = std::string_view{files_.at(file)};
    auto offset = std::make_shared<std::size_t>(0);
    return [text, offset](char* buffer, std::size_t size) -> long {
      auto n = std::min(size, text.size() - *offset);
      std::memcpy(buffer, text.data() + *offset, n);
      *offset += n;
      return static_cast<long>(n);
    };
  }

private:
  std::map<std::string, std::string> files_;
};

} // namespace

outcome<std::unique_ptr<feed_files>> open_zip(const std::string& path) {
  int code = 0;
  auto* archive = zip_open(path.c_str(), ZIP_RDONLY, &code);
  if (archive == nullptr) {
    zip_error_t error;
    zip_error_init_with_code(&error, code);
    std::string why = zip_error_strerror(&error);
    zip_error_fini(&error);
    return make_failure(ec::data_not_available,
                        "cannot open GTFS zip " + path + ": " + why,
                        "give the path of a GTFS .zip file or folder");
  }
  // Some publishers zip the folder: find stops.txt at the root or one
  // level down.
  std::string prefix;
  if (zip_name_locate(archive, "stops.txt", 0) < 0) {
    auto entries = zip_get_num_entries(archive, 0);
    for (zip_int64_t i = 0; i < entries; ++i) {
      const char* name = zip_get_name(archive, i, 0);
      if (name == nullptr)
        continue;
      std::string entry = name;
      auto slash = entry.find('/');
      if (slash != std::string::npos
          && entry.substr(slash + 1) == "stops.txt") {
        prefix = entry.substr(0, slash + 1);
        break;
      }
    }
  }
  return std::unique_ptr<feed_files>{
    std::make_unique<zip_feed>(path, archive, prefix)};
}

outcome<std::unique_ptr<feed_files>> open_folder(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec))
    return make_failure(ec::data_not_available,
                        "GTFS folder " + path + " does not exist",
                        "give the path of a GTFS .zip file or folder");
  return std::unique_ptr<feed_files>{std::make_unique<folder_feed>(path)};
}

outcome<std::unique_ptr<feed_files>> open_feed(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return open_folder(path);
  if (!std::filesystem::exists(path, ec))
    return make_failure(ec::data_not_available,
                        "GTFS source " + path
                          + (ec ? " cannot be read: " + ec.message()
                                : std::string{" does not exist"}),
                        "give the path of a GTFS .zip file or folder");
  return open_zip(path);
}

std::unique_ptr<feed_files>
in_memory_feed(std::map<std::string, std::string> files) {
  return std::make_unique<memory_feed>(std::move(files));
}

// -- field parsing --------------------------------------------------------------

std::optional<int32_t> parse_gtfs_time(std::string_view text) {
  text = trim_view(text);
  int32_t parts[3] = {0, 0, 0};
  std::size_t part = 0;
  std::size_t i = 0;
  while (part < 3) {
    auto start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9')
      ++i;
    auto digits = i - start;
    if (digits == 0 || digits > (part == 0 ? 3u : 2u))
      return std::nullopt;
    std::from_chars(text.data() + start, text.data() + i, parts[part]);
    ++part;
    if (part < 3) {
      if (i >= text.size() || text[i] != ':')
        return std::nullopt;
      ++i;
    }
  }
  if (i != text.size() || parts[1] > 59 || parts[2] > 59)
    return std::nullopt;
  return parts[0] * 3600 + parts[1] * 60 + parts[2];
}

std::optional<int32_t> parse_gtfs_date(std::string_view text) {
  text = trim_view(text);
  if (text.size() != 8)
    return std::nullopt;
  int y = 0;
  unsigned m = 0, d = 0;
  auto num = [&](std::size_t from, std::size_t n, auto& out) {
    auto r = std::from_chars(text.data() + from, text.data() + from + n, out);
    return r.ec == std::errc{} && r.ptr == text.data() + from + n;
  };
  if (!num(0, 4, y) || !num(4, 2, m) || !num(6, 2, d))
    return std::nullopt;
  date::year_month_day ymd{date::year{y}, date::month{m}, date::day{d}};
  if (!ymd.ok())
    return std::nullopt;
  return static_cast<int32_t>(date::sys_days{ymd}.time_since_epoch().count());
}

transit_mode mode_of_route_type(int32_t t) {
  switch (t) {
    case 0: return transit_mode::tram;
    case 1: return transit_mode::subway;
    case 2: return transit_mode::rail;
    case 3: return transit_mode::bus;
    case 4: return transit_mode::ferry;
    case 5: return transit_mode::cable_car;
    case 6: return transit_mode::gondola;
    case 7: return transit_mode::funicular;
    case 11: return transit_mode::trolleybus;
    case 12: return transit_mode::monorail;
    default: break;
  }
  // Extended route types (Google's, from the HVT list), by hundreds.
  if (t >= 100 && t < 200) return transit_mode::rail;
  if (t >= 200 && t < 300) return transit_mode::coach;
  if (t >= 400 && t < 500)
    return t == 403 || t == 404 ? transit_mode::rail : transit_mode::subway;
  if (t == 405) return transit_mode::monorail;
  if (t >= 700 && t < 800) return transit_mode::bus;
  if (t == 800) return transit_mode::trolleybus;
  if (t >= 900 && t < 1000) return transit_mode::tram;
  if (t >= 1000 && t < 1100) return transit_mode::ferry;
  if (t >= 1100 && t < 1200) return transit_mode::airplane;
  if (t >= 1200 && t < 1300) return transit_mode::ferry;
  if (t >= 1300 && t < 1400) return transit_mode::gondola;
  if (t >= 1400 && t < 1500) return transit_mode::funicular;
  if (t >= 1500 && t < 1600) return transit_mode::taxi;
  return transit_mode::other;
}

namespace {

// -- one file, by header ----------------------------------------------------------

/// Reads one file record by record; fields by column name.
class table_reader {
public:
  table_reader(feed_files& feed, std::string file, load_report& report,
               const std::atomic<bool>* cancel = nullptr)
    : feed_(feed), file_(std::move(file)), report_(report),
      reader_(feed.open(file_)), cancel_(cancel) {
  }

  /// Reads the header; a failure when it is missing or lacks `required`.
  std::optional<failure> start(std::initializer_list<const char*> required) {
    std::vector<std::string_view> names;
    if (!reader_.next(names))
      return problem("has no header line");
    header_ = csv_header{names};
    for (const auto* column : required)
      if (!header_.column(column))
        return problem(std::string{"lacks the required column "} + column);
    return std::nullopt;
  }

  std::optional<std::size_t> column(const char* name) const {
    return header_.column(name);
  }

  bool next() {
    if (cancel_ != nullptr && (++rows_ & 0xFFF) == 0 && cancel_->load()) {
      cancelled_ = true;
      return false;
    }
    return reader_.next(fields_);
  }
  /// A read error that ended the file early.
  std::optional<failure> finish() const {
    if (cancelled_)
      return problem("was not read: the load was cancelled");
    if (reader_.error())
      return problem(reader_.error()->message);
    return std::nullopt;
  }

  /// The field in `column` (trimmed; empty when absent).
  std::string_view get(const std::optional<std::size_t>& column) const {
    if (!column || *column >= fields_.size())
      return {};
    return trim_view(fields_[*column]);
  }

  /// Counts a skipped row and keeps a sample.
  void skip(std::string_view why) {
    ++report_.skipped_rows;
    if (report_.samples.size() < 10)
      report_.samples.push_back(file_ + ":" + std::to_string(reader_.line())
                                + ": " + std::string{why});
  }

  failure problem(const std::string& what) const {
    return make_failure(ec::data_not_available,
                        "GTFS " + feed_.describe() + ": " + file_ + " " + what,
                        "fix or replace the feed");
  }

private:
  feed_files& feed_;
  std::string file_;
  load_report& report_;
  csv_reader reader_;
  csv_header header_;
  std::vector<std::string_view> fields_;
  const std::atomic<bool>* cancel_;
  std::size_t rows_ = 0;
  bool cancelled_ = false;
};

template <class T>
bool parse_number(std::string_view text, T& out) {
  if (text.empty())
    return false;
  if constexpr (std::is_floating_point_v<T>) {
    // from_chars for doubles is in libstdc++ 11+.
    auto r = std::from_chars(text.data(), text.data() + text.size(), out);
    return r.ec == std::errc{} && r.ptr == text.data() + text.size()
           && std::isfinite(out);
  } else {
    auto r = std::from_chars(text.data(), text.data() + text.size(), out);
    return r.ec == std::errc{} && r.ptr == text.data() + text.size();
  }
}

template <class T>
T number_or(std::string_view text, T fallback) {
  T value{};
  return parse_number(text, value) ? value : fallback;
}

// -- the builder ----------------------------------------------------------------------

struct raw_stop_time {
  uint32_t trip;
  uint32_t sequence;
  uint32_t stop;
  int32_t arrival;   // -1: not given
  int32_t departure; // -1: not given
  bool pickup;
  bool drop_off;
};

struct frequency {
  uint32_t trip;
  int32_t start;
  int32_t end;
  int32_t headway;
};

struct raw_transfer {
  uint32_t from;
  uint32_t to;
  int32_t type;
  int32_t seconds;
};

struct calendar_row {
  uint32_t service;
  uint8_t weekdays; // bit 0 = Monday
  int32_t start;
  int32_t end;
};

/// frequencies.txt may not expand into more trips than this.
constexpr std::size_t max_frequency_trips = 5'000'000;

struct builder {
  builder(const std::string& feed_name, const load_options& load)
    : name(feed_name), options(load) {
  }

  const std::string& name;
  const load_options& options;
  std::shared_ptr<timetable> out = std::make_shared<timetable>();
  load_report& report = out->report;

  std::unordered_map<std::string, uint32_t> stop_ids;
  std::unordered_map<std::string, uint16_t> zone_ids;
  std::vector<raw_stop_time> stop_times;
  /// The agency zone of each trip's feed: stop_times are in it.
  std::vector<uint16_t> trip_zones;
  std::vector<frequency> frequencies;
  std::vector<raw_transfer> transfers;
  std::vector<calendar_row> calendars;
  std::vector<std::tuple<uint32_t, int32_t, bool>> exceptions;
  int32_t min_day = std::numeric_limits<int32_t>::max();
  int32_t max_day = std::numeric_limits<int32_t>::min();

  uint16_t zone(const std::string& tz) {
    auto [it, added] = zone_ids.emplace(tz, out->zones.size());
    if (added)
      out->zones.push_back(tz);
    return it->second;
  }

  std::optional<failure> read_source(feed_files& feed, std::size_t source);
  std::optional<failure> finish();

  bool cancelled() const {
    return options.cancel && options.cancel->load();
  }
  failure cancelled_failure() const {
    return make_failure(ec::data_not_available,
                        "loading GTFS feed " + name + " was cancelled", "");
  }
  /// " (N rows skipped, e.g. FILE:LINE: why)" when rows were skipped.
  std::string skipped_note() const {
    if (report.skipped_rows == 0)
      return {};
    return " (" + std::to_string(report.skipped_rows)
           + " rows skipped, e.g. " + report.samples.front() + ")";
  }
};

/// Keys of one source, so ids may repeat between merged feeds.
struct source_keys {
  std::unordered_map<std::string, uint32_t> routes;
  std::unordered_map<std::string, uint32_t> trips;
  std::unordered_map<std::string, uint32_t> services;
  std::unordered_map<std::string, uint32_t> stops;
  uint32_t service_base = 0;
};

std::optional<failure> builder::read_source(feed_files& feed,
                                            std::size_t source) {
  source_keys keys;
  for (const char* file : {"agency.txt", "stops.txt", "routes.txt",
                           "trips.txt", "stop_times.txt"})
    if (!feed.has(file))
      return make_failure(ec::data_not_available,
                          "GTFS " + feed.describe() + " lacks the required "
                            + "file " + file,
                          "fix or replace the feed");
  if (!feed.has("calendar.txt") && !feed.has("calendar_dates.txt"))
    return make_failure(ec::data_not_available,
                        "GTFS " + feed.describe()
                          + " has neither calendar.txt nor calendar_dates.txt",
                        "fix or replace the feed");

  // agency.txt: the time zone of every agency (GTFS: all the same).
  uint16_t agency_zone = 0;
  {
    table_reader t{feed, "agency.txt", report, options.cancel.get()};
    if (auto bad = t.start({"agency_timezone"}))
      return bad;
    auto tz = t.column("agency_timezone");
    bool found = false;
    while (t.next()) {
      std::string name_of_zone{t.get(tz)};
      if (!found && !name_of_zone.empty()) {
        try {
          date::locate_zone(name_of_zone);
        } catch (const std::exception&) {
          return t.problem("names an unknown time zone \"" + name_of_zone
                           + "\"");
        }
        agency_zone = zone(name_of_zone);
        found = true;
      }
    }
    if (auto bad = t.finish())
      return bad;
    if (!found)
      return t.problem("gives no agency_timezone");
  }

  // stops.txt
  {
    table_reader t{feed, "stops.txt", report, options.cancel.get()};
    if (auto bad = t.start({"stop_id", "stop_lat", "stop_lon"}))
      return bad;
    auto id = t.column("stop_id");
    auto name_col = t.column("stop_name");
    auto lat = t.column("stop_lat");
    auto lon = t.column("stop_lon");
    auto type = t.column("location_type");
    auto parent = t.column("parent_station");
    auto platform = t.column("platform_code");
    auto wheelchair = t.column("wheelchair_boarding");
    auto stop_tz = t.column("stop_timezone");
    std::vector<std::pair<uint32_t, std::string>> parents;
    while (t.next()) {
      std::string stop_id{t.get(id)};
      if (stop_id.empty()) {
        t.skip("empty stop_id");
        continue;
      }
      stop s;
      s.location_type = static_cast<uint8_t>(number_or<int>(t.get(type), 0));
      if (!parse_number(t.get(lat), s.position.lat)
          || !parse_number(t.get(lon), s.position.lon)
          || !(std::abs(s.position.lat) <= 90)
          || !(std::abs(s.position.lon) <= 180)) {
        // Generic nodes and boarding areas may lack them; routing needs
        // none of those, and a stop without a place cannot be routed.
        if (s.location_type <= 2)
          t.skip("stop " + stop_id + " has no valid stop_lat/stop_lon");
        continue;
      }
      if (keys.stops.count(stop_id) != 0) {
        t.skip("duplicate stop_id " + stop_id);
        continue;
      }
      s.name = std::string{t.get(name_col)};
      s.platform_code = std::string{t.get(platform)};
      s.wheelchair_boarding
        = static_cast<uint8_t>(std::clamp(number_or<int>(t.get(wheelchair), 0),
                                          0, 2));
      s.zone = agency_zone;
      std::string tz{t.get(stop_tz)};
      if (!tz.empty()) {
        try {
          date::locate_zone(tz);
          s.zone = zone(tz);
        } catch (const std::exception&) {
          t.skip("stop " + stop_id + " names an unknown stop_timezone");
        }
      }
      // Exposed ids stay the feed's; a clash with an earlier merged feed
      // gets the source's number.
      s.id = stop_ids.count(stop_id) == 0
               ? stop_id
               : stop_id + "~" + std::to_string(source + 1);
      auto index = static_cast<uint32_t>(out->stops.size());
      keys.stops.emplace(stop_id, index);
      stop_ids.emplace(s.id, index);
      std::string parent_id{t.get(parent)};
      if (!parent_id.empty())
        parents.emplace_back(index, std::move(parent_id));
      out->stops.push_back(std::move(s));
    }
    if (auto bad = t.finish())
      return bad;
    for (auto& [child, parent_id] : parents) {
      auto it = keys.stops.find(parent_id);
      if (it == keys.stops.end() || it->second == child)
        continue; // an unknown parent: the stop stands alone
      out->stops[child].parent = it->second;
    }
    // A station's parent chain is at most one level in GTFS; cut cycles.
    for (auto& s : out->stops)
      if (s.parent != none && out->stops[s.parent].parent != none
          && out->stops[out->stops[s.parent].parent].parent != none)
        s.parent = none;
  }

  // routes.txt
  {
    table_reader t{feed, "routes.txt", report, options.cancel.get()};
    if (auto bad = t.start({"route_id", "route_type"}))
      return bad;
    auto id = t.column("route_id");
    auto short_name = t.column("route_short_name");
    auto long_name = t.column("route_long_name");
    auto type = t.column("route_type");
    while (t.next()) {
      route r;
      r.id = std::string{t.get(id)};
      if (r.id.empty() || keys.routes.count(r.id) != 0) {
        t.skip("empty or duplicate route_id");
        continue;
      }
      if (!parse_number(t.get(type), r.route_type) || r.route_type < 0) {
        t.skip("route " + r.id + " has no valid route_type");
        continue;
      }
      r.mode = mode_of_route_type(r.route_type);
      r.short_name = std::string{t.get(short_name)};
      r.long_name = std::string{t.get(long_name)};
      keys.routes.emplace(r.id, out->routes.size());
      out->routes.push_back(std::move(r));
    }
    if (auto bad = t.finish())
      return bad;
  }

  // calendar.txt and calendar_dates.txt
  auto service_of = [&](std::string_view id) {
    auto [it, added] = keys.services.emplace(
      std::string{id}, static_cast<uint32_t>(keys.services.size()));
    return keys.service_base + it->second;
  };
  keys.service_base = static_cast<uint32_t>(
    std::accumulate(calendars.begin(), calendars.end(), uint32_t{0},
                    [](uint32_t m, const calendar_row& c) {
                      return std::max(m, c.service + 1);
                    }));
  for (auto& e : exceptions)
    keys.service_base = std::max(keys.service_base, std::get<0>(e) + 1);
  if (feed.has("calendar.txt")) {
    table_reader t{feed, "calendar.txt", report, options.cancel.get()};
    if (auto bad = t.start({"service_id", "monday", "tuesday", "wednesday",
                            "thursday", "friday", "saturday", "sunday",
                            "start_date", "end_date"}))
      return bad;
    auto id = t.column("service_id");
    std::optional<std::size_t> days[7] = {
      t.column("monday"), t.column("tuesday"), t.column("wednesday"),
      t.column("thursday"), t.column("friday"), t.column("saturday"),
      t.column("sunday")};
    auto start = t.column("start_date");
    auto end = t.column("end_date");
    while (t.next()) {
      auto from = parse_gtfs_date(t.get(start));
      auto to = parse_gtfs_date(t.get(end));
      if (t.get(id).empty() || !from || !to || *to < *from) {
        t.skip("calendar row without a service_id or valid dates");
        continue;
      }
      calendar_row c{service_of(t.get(id)), 0, *from, *to};
      for (int d = 0; d < 7; ++d)
        if (t.get(days[d]) == "1")
          c.weekdays |= static_cast<uint8_t>(1u << d);
      calendars.push_back(c);
      min_day = std::min(min_day, *from);
      max_day = std::max(max_day, *to);
    }
    if (auto bad = t.finish())
      return bad;
  }
  if (feed.has("calendar_dates.txt")) {
    table_reader t{feed, "calendar_dates.txt", report, options.cancel.get()};
    if (auto bad = t.start({"service_id", "date", "exception_type"}))
      return bad;
    auto id = t.column("service_id");
    auto day = t.column("date");
    auto type = t.column("exception_type");
    while (t.next()) {
      auto d = parse_gtfs_date(t.get(day));
      auto kind = t.get(type);
      if (t.get(id).empty() || !d || (kind != "1" && kind != "2")) {
        t.skip("calendar_dates row without a service_id, date or "
               "exception_type 1/2");
        continue;
      }
      exceptions.emplace_back(service_of(t.get(id)), *d, kind == "1");
      if (kind == "1") {
        min_day = std::min(min_day, *d);
        max_day = std::max(max_day, *d);
      }
    }
    if (auto bad = t.finish())
      return bad;
  }

  // trips.txt
  {
    table_reader t{feed, "trips.txt", report, options.cancel.get()};
    if (auto bad = t.start({"route_id", "service_id", "trip_id"}))
      return bad;
    auto route_col = t.column("route_id");
    auto service = t.column("service_id");
    auto id = t.column("trip_id");
    auto headsign = t.column("trip_headsign");
    auto direction = t.column("direction_id");
    auto wheelchair = t.column("wheelchair_accessible");
    while (t.next()) {
      trip x;
      x.id = std::string{t.get(id)};
      auto r = keys.routes.find(std::string{t.get(route_col)});
      if (x.id.empty() || keys.trips.count(x.id) != 0) {
        t.skip("empty or duplicate trip_id");
        continue;
      }
      if (r == keys.routes.end()) {
        t.skip("trip " + x.id + " names an unknown route_id");
        continue;
      }
      auto s = keys.services.find(std::string{t.get(service)});
      if (s == keys.services.end()) {
        t.skip("trip " + x.id + " names a service_id without a calendar");
        continue;
      }
      x.route = r->second;
      x.service = keys.service_base + s->second;
      x.headsign = std::string{t.get(headsign)};
      x.direction = t.get(direction) == "1" ? 1 : 0;
      x.wheelchair = static_cast<uint8_t>(
        std::clamp(number_or<int>(t.get(wheelchair), 0), 0, 2));
      keys.trips.emplace(x.id, out->trips.size());
      out->trips.push_back(std::move(x));
      trip_zones.push_back(agency_zone);
    }
    if (auto bad = t.finish())
      return bad;
  }

  // stop_times.txt
  {
    table_reader t{feed, "stop_times.txt", report, options.cancel.get()};
    if (auto bad = t.start({"trip_id", "stop_id", "stop_sequence",
                            "arrival_time", "departure_time"}))
      return bad;
    auto trip_col = t.column("trip_id");
    auto stop_col = t.column("stop_id");
    auto sequence = t.column("stop_sequence");
    auto arrival = t.column("arrival_time");
    auto departure = t.column("departure_time");
    auto pickup = t.column("pickup_type");
    auto drop_off = t.column("drop_off_type");
    std::string key;
    uint32_t last_trip = none;
    std::string last_trip_id;
    while (t.next()) {
      auto trip_id = t.get(trip_col);
      uint32_t trip_index = last_trip;
      if (trip_id != last_trip_id) {
        key.assign(trip_id);
        auto it = keys.trips.find(key);
        trip_index = it == keys.trips.end() ? none : it->second;
        last_trip = trip_index;
        last_trip_id = key;
      }
      if (trip_index == none) {
        t.skip("stop time of an unknown trip_id");
        continue;
      }
      key.assign(t.get(stop_col));
      auto s = keys.stops.find(key);
      if (s == keys.stops.end()) {
        t.skip("stop time at an unknown stop_id " + key);
        continue;
      }
      uint32_t seq = 0;
      if (!parse_number(t.get(sequence), seq)) {
        t.skip("stop time without a valid stop_sequence");
        continue;
      }
      raw_stop_time st{trip_index, seq, s->second, -1, -1, true, true};
      auto a = t.get(arrival);
      auto d = t.get(departure);
      if (!a.empty()) {
        auto v = parse_gtfs_time(a);
        if (!v) {
          t.skip("malformed arrival_time");
          continue;
        }
        st.arrival = *v;
      }
      if (!d.empty()) {
        auto v = parse_gtfs_time(d);
        if (!v) {
          t.skip("malformed departure_time");
          continue;
        }
        st.departure = *v;
      }
      if (st.arrival < 0)
        st.arrival = st.departure;
      if (st.departure < 0)
        st.departure = st.arrival;
      st.pickup = t.get(pickup) != "1";
      st.drop_off = t.get(drop_off) != "1";
      stop_times.push_back(st);
    }
    if (auto bad = t.finish())
      return bad;
  }

  if (feed.has("frequencies.txt")) {
    table_reader t{feed, "frequencies.txt", report, options.cancel.get()};
    if (auto bad = t.start({"trip_id", "start_time", "end_time",
                            "headway_secs"}))
      return bad;
    auto id = t.column("trip_id");
    auto start = t.column("start_time");
    auto end = t.column("end_time");
    auto headway = t.column("headway_secs");
    while (t.next()) {
      auto it = keys.trips.find(std::string{t.get(id)});
      auto from = parse_gtfs_time(t.get(start));
      auto to = parse_gtfs_time(t.get(end));
      int32_t every = 0;
      if (it == keys.trips.end() || !from || !to || *to <= *from
          || !parse_number(t.get(headway), every) || every < 60) {
        t.skip("frequency without a known trip, a time range or a headway of "
               "at least 60 s");
        continue;
      }
      frequencies.push_back({it->second, *from, *to, every});
    }
    if (auto bad = t.finish())
      return bad;
  }

  if (feed.has("transfers.txt")) {
    table_reader t{feed, "transfers.txt", report, options.cancel.get()};
    if (auto bad = t.start({"from_stop_id", "to_stop_id"}))
      return bad;
    auto from = t.column("from_stop_id");
    auto to = t.column("to_stop_id");
    auto type = t.column("transfer_type");
    auto time = t.column("min_transfer_time");
    while (t.next()) {
      auto a = keys.stops.find(std::string{t.get(from)});
      auto b = keys.stops.find(std::string{t.get(to)});
      if (a == keys.stops.end() || b == keys.stops.end())
        continue; // trip-to-trip and route transfers name no stops
      raw_transfer x{a->second, b->second, number_or<int32_t>(t.get(type), 0),
                     std::max(0, number_or<int32_t>(t.get(time), 0))};
      transfers.push_back(x);
    }
    if (auto bad = t.finish())
      return bad;
  }

  if (feed.has("feed_info.txt")) {
    table_reader t{feed, "feed_info.txt", report, options.cancel.get()};
    if (!t.start({})) {
      auto start = t.column("feed_start_date");
      auto end = t.column("feed_end_date");
      if (t.next()) {
        if (auto d = parse_gtfs_date(t.get(start)); d && report.first_day.empty())
          report.first_day = date::format("%F", date::sys_days{date::days{*d}});
        if (auto d = parse_gtfs_date(t.get(end)); d && report.last_day.empty())
          report.last_day = date::format("%F", date::sys_days{date::days{*d}});
      }
    }
  }
  return std::nullopt;
}

/// Fills times a feed leaves empty between timepoints, in proportion to
/// the stops passed.
bool interpolate(std::vector<raw_stop_time>::iterator begin,
                 std::vector<raw_stop_time>::iterator end) {
  if (begin == end || begin->departure < 0 || std::prev(end)->arrival < 0)
    return false;
  auto last = begin;
  for (auto it = std::next(begin); it != end; ++it) {
    if (it->arrival < 0)
      continue;
    auto gap = std::distance(last, it);
    for (auto k = 1; k < gap; ++k) {
      auto t = last->departure
               + static_cast<int32_t>(
                 int64_t{it->arrival - last->departure} * k / gap);
      std::next(last, k)->arrival = t;
      std::next(last, k)->departure = t;
    }
    last = it;
  }
  return true;
}

std::optional<failure> builder::finish() {
  auto& tt = *out;
  tt.name = name;
  if (tt.stops.empty())
    return make_failure(ec::data_not_available,
                        "GTFS feed " + name + " has no usable stops" + skipped_note(),
                        "fix or replace the feed");
  // Service days: the calendars' range, cut at max_days.
  if (min_day > max_day)
    return make_failure(ec::data_not_available,
                        "GTFS feed " + name + " has no day of service" + skipped_note(),
                        "fix or replace the feed");
  if (max_day - min_day + 1 > options.max_days) {
    // Anchored at the day asked for (today), else at the earliest: a stale
    // calendar row of 2010 must not push 2026's service out of range.
    if (options.anchor_day != 0)
      min_day = std::clamp(options.anchor_day, min_day,
                           std::max(min_day, max_day - options.max_days + 1));
    max_day = std::min(max_day, min_day + options.max_days - 1);
  }
  tt.first_day = min_day;
  tt.day_count = max_day - min_day + 1;
  uint32_t services = 0;
  for (auto& c : calendars)
    services = std::max(services, c.service + 1);
  for (auto& e : exceptions)
    services = std::max(services, std::get<0>(e) + 1);
  tt.runs.assign(static_cast<std::size_t>(services) * tt.day_count, 0);
  for (auto& c : calendars) {
    for (auto d = std::max(c.start, min_day); d <= std::min(c.end, max_day);
         ++d) {
      // 1970-01-01 was a Thursday (Monday = 0 → Thursday = 3).
      auto weekday = ((d % 7) + 7 + 3) % 7;
      if (c.weekdays & (1u << weekday))
        tt.runs[static_cast<std::size_t>(c.service) * tt.day_count
                + (d - min_day)] = 1;
    }
  }
  for (auto& [service, day, added] : exceptions)
    if (day >= min_day && day <= max_day)
      tt.runs[static_cast<std::size_t>(service) * tt.day_count
              + (day - min_day)] = added ? 1 : 0;
  if (report.first_day.empty())
    report.first_day = date::format("%F", date::sys_days{date::days{min_day}});
  if (report.last_day.empty())
    report.last_day = date::format("%F", date::sys_days{date::days{max_day}});
  // Day origins per zone: noon minus 12 hours, local (GTFS's definition).
  tt.day_origins.resize(tt.zones.size());
  for (std::size_t z = 0; z < tt.zones.size(); ++z) {
    const auto* tz = date::locate_zone(tt.zones[z]);
    auto& origins = tt.day_origins[z];
    for (auto d = min_day - 1; d <= max_day + 1; ++d) {
      auto noon = date::local_seconds{date::days{d}} + std::chrono::hours{12};
      auto utc = tz->to_sys(noon, date::choose::earliest);
      origins.push_back(utc.time_since_epoch().count() - 12 * 3600);
    }
  }

  // Trips: sort the stop times, interpolate, expand frequencies.
  std::sort(stop_times.begin(), stop_times.end(),
            [](const raw_stop_time& a, const raw_stop_time& b) {
              return a.trip != b.trip ? a.trip < b.trip
                                      : a.sequence < b.sequence;
            });
  std::vector<std::pair<std::size_t, std::size_t>> ranges(tt.trips.size(),
                                                          {0, 0});
  for (std::size_t i = 0; i < stop_times.size();) {
    auto j = i;
    while (j < stop_times.size() && stop_times[j].trip == stop_times[i].trip)
      ++j;
    ranges[stop_times[i].trip] = {i, j};
    i = j;
  }
  std::vector<char> is_frequency(tt.trips.size(), 0);
  for (auto& f : frequencies)
    is_frequency[f.trip] = 1;
  std::stable_sort(frequencies.begin(), frequencies.end(),
                   [](const frequency& a, const frequency& b) {
                     return a.trip < b.trip;
                   });

  // Group trips by their stop sequence and rules.
  struct shape {
    std::vector<pattern_stop> stops;
    std::vector<std::pair<uint32_t, std::vector<stop_time>>> trips;
  };
  std::unordered_map<std::string, std::size_t> shape_index;
  std::vector<shape> shapes;
  auto add_trip = [&](uint32_t trip_index,
                      std::vector<raw_stop_time>::iterator begin,
                      std::vector<raw_stop_time>::iterator end,
                      int32_t shift) {
    std::string key;
    std::vector<pattern_stop> ps;
    std::vector<stop_time> ts;
    for (auto it = begin; it != end; ++it) {
      ps.push_back({it->stop, it->pickup, it->drop_off, it->sequence});
      ts.push_back({it->arrival + shift, it->departure + shift});
      uint32_t k = it->stop * 4 + (it->pickup ? 1 : 0) + (it->drop_off ? 2 : 0);
      key.append(reinterpret_cast<const char*>(&k), sizeof k);
      // Realtime updates name calls by sequence: one per pattern stop.
      key.append(reinterpret_cast<const char*>(&it->sequence),
                 sizeof it->sequence);
    }
    auto zone_of = trip_zones[trip_index];
    key.append(reinterpret_cast<const char*>(&zone_of), sizeof zone_of);
    // One service per pattern: whether it runs on a day is one lookup,
    // and every trip a binary search finds runs.
    auto service = tt.trips[trip_index].service;
    key.append(reinterpret_cast<const char*>(&service), sizeof service);
    auto [it, added] = shape_index.emplace(key, shapes.size());
    if (added)
      shapes.push_back({std::move(ps), {}});
    shapes[it->second].trips.emplace_back(trip_index, std::move(ts));
  };
  std::size_t used = 0;
  for (uint32_t tr = 0; tr < ranges.size(); ++tr) {
    auto [b, e] = ranges[tr];
    if (e - b < 2) {
      if (e > b) {
        ++report.skipped_rows;
      }
      continue; // a trip needs two calls
    }
    auto begin = stop_times.begin() + static_cast<std::ptrdiff_t>(b);
    auto end = stop_times.begin() + static_cast<std::ptrdiff_t>(e);
    if (!interpolate(begin, end)) {
      ++report.skipped_rows;
      if (report.samples.size() < 10)
        report.samples.push_back("stop_times.txt: trip " + tt.trips[tr].id
                                 + " has no time at its first or last stop");
      continue;
    }
    bool monotone = true;
    for (auto it = begin; it != end; ++it) {
      if (it->departure < it->arrival
          || (it != begin && it->arrival < std::prev(it)->departure))
        monotone = false;
    }
    if (!monotone) {
      ++report.skipped_rows;
      if (report.samples.size() < 10)
        report.samples.push_back("stop_times.txt: trip " + tt.trips[tr].id
                                 + " goes back in time");
      continue;
    }
    used += e - b;
    if (!is_frequency[tr]) {
      add_trip(tr, begin, end, 0);
      continue;
    }
    auto [first_row, last_row] = std::equal_range(
      frequencies.begin(), frequencies.end(), frequency{tr, 0, 0, 0},
      [](const frequency& a, const frequency& b) { return a.trip < b.trip; });
    for (auto f = first_row; f != last_row; ++f) {
      for (auto start = f->start; start < f->end; start += f->headway) {
        if (report.frequency_trips >= max_frequency_trips)
          throw std::length_error(
            "frequencies.txt expands into more than "
            + std::to_string(max_frequency_trips) + " trips");
        auto copy = tt.trips[tr];
        copy.id += "@" + std::to_string(start);
        auto index = static_cast<uint32_t>(tt.trips.size());
        tt.trips.push_back(std::move(copy));
        trip_zones.push_back(trip_zones[tr]);
        add_trip(index, begin, end, start - begin->departure);
        if (cancelled())
          return cancelled_failure();
        ++report.frequency_trips;
      }
    }
  }
  report.stop_times = used;

  if (cancelled())
    return cancelled_failure();
  // Patterns: each shape's trips sorted, then split so none overtakes.
  for (auto& sh : shapes) {
    std::sort(sh.trips.begin(), sh.trips.end(),
              [](const auto& a, const auto& b) {
                return a.second[0].departure < b.second[0].departure;
              });
    std::vector<std::vector<std::size_t>> lanes;
    for (std::size_t i = 0; i < sh.trips.size(); ++i) {
      bool placed = false;
      for (auto& lane : lanes) {
        const auto& prev = sh.trips[lane.back()].second;
        const auto& cur = sh.trips[i].second;
        bool fifo = true;
        for (std::size_t k = 0; k < cur.size() && fifo; ++k)
          fifo = prev[k].arrival <= cur[k].arrival
                 && prev[k].departure <= cur[k].departure;
        if (fifo) {
          lane.push_back(i);
          placed = true;
          break;
        }
      }
      if (!placed)
        lanes.push_back({i});
    }
    for (auto& lane : lanes) {
      pattern p;
      p.stops_begin = static_cast<uint32_t>(tt.pattern_stops.size());
      p.stop_count = static_cast<uint32_t>(sh.stops.size());
      p.trips_begin = static_cast<uint32_t>(tt.pattern_trips.size());
      p.trip_count = static_cast<uint32_t>(lane.size());
      p.times_begin = static_cast<uint32_t>(tt.times.size());
      p.zone = trip_zones[sh.trips[lane[0]].first];
      p.service = tt.trips[sh.trips[lane[0]].first].service;
      tt.pattern_stops.insert(tt.pattern_stops.end(), sh.stops.begin(),
                              sh.stops.end());
      for (auto i : lane) {
        tt.pattern_trips.push_back(sh.trips[i].first);
        tt.times.insert(tt.times.end(), sh.trips[i].second.begin(),
                        sh.trips[i].second.end());
      }
      tt.patterns.push_back(p);
    }
  }
  stop_times.clear();
  stop_times.shrink_to_fit();

  // Transfers: a station's entry applies to its child stops.
  std::map<std::pair<uint32_t, uint32_t>, std::optional<int32_t>> overrides;
  {
    std::vector<std::vector<uint32_t>> kids(tt.stops.size());
    for (uint32_t s = 0; s < tt.stops.size(); ++s)
      if (tt.stops[s].parent != none)
        kids[tt.stops[s].parent].push_back(s);
    auto expand = [&](uint32_t s) {
      std::vector<uint32_t> all{s};
      all.insert(all.end(), kids[s].begin(), kids[s].end());
      return all;
    };
    // Station-level entries first, so a stop-level entry wins.
    std::stable_sort(transfers.begin(), transfers.end(),
                     [&](const raw_transfer& a, const raw_transfer& b) {
                       return (kids[a.from].empty() && kids[a.to].empty())
                              < (kids[b.from].empty() && kids[b.to].empty());
                     });
    for (auto& x : transfers)
      for (auto a : expand(x.from))
        for (auto b : expand(x.to)) {
          if (x.type == 3)
            overrides[{a, b}] = std::nullopt; // not possible
          else if (x.type == 2 || x.seconds > 0)
            overrides[{a, b}] = x.seconds;
          else
            overrides.erase({a, b}); // type 0/1: the generated footpath
        }
  }
  if (cancelled())
    return cancelled_failure();
  tt.finish(options.footpath_radius);
  // Apply the overrides to the generated footpaths.
  tt.change_seconds.assign(tt.stops.size(), 0);
  std::vector<std::vector<footpath>> outs(tt.stops.size());
  for (uint32_t s = 0; s < tt.stops.size(); ++s)
    for (auto i = tt.out_begin[s]; i < tt.out_begin[s + 1]; ++i)
      outs[s].push_back(tt.out[i]);
  for (auto& [pair, seconds] : overrides) {
    auto [a, b] = pair;
    if (!tt.routable(a) || !tt.routable(b))
      continue;
    if (a == b) {
      if (seconds)
        tt.change_seconds[a] = *seconds;
      continue;
    }
    auto& list = outs[a];
    auto it = std::find_if(list.begin(), list.end(),
                           [b = b](const footpath& f) { return f.stop == b; });
    if (!seconds) {
      if (it != list.end())
        list.erase(it);
      continue;
    }
    auto meters = static_cast<int32_t>(
      std::lround(distance_m(tt.stops[a].position, tt.stops[b].position)));
    if (it != list.end())
      it->seconds = *seconds;
    else
      list.push_back({b, *seconds, meters});
  }
  tt.out.clear();
  tt.out_begin.assign(1, 0);
  std::vector<std::vector<footpath>> ins(tt.stops.size());
  for (uint32_t s = 0; s < tt.stops.size(); ++s) {
    for (auto& f : outs[s]) {
      tt.out.push_back(f);
      ins[f.stop].push_back({s, f.seconds, f.meters});
    }
    tt.out_begin.push_back(static_cast<uint32_t>(tt.out.size()));
  }
  tt.in.clear();
  tt.in_begin.assign(1, 0);
  for (uint32_t s = 0; s < tt.stops.size(); ++s) {
    tt.in.insert(tt.in.end(), ins[s].begin(), ins[s].end());
    tt.in_begin.push_back(static_cast<uint32_t>(tt.in.size()));
  }

  report.stops = tt.stops.size();
  report.routes = tt.routes.size();
  report.trips = tt.trips.size();
  report.patterns = tt.patterns.size();
  report.footpaths = tt.out.size();
  if (tt.patterns.empty())
    return make_failure(ec::data_not_available,
                        "GTFS feed " + name + " has no trip with two stop times" + skipped_note(),
                        "fix or replace the feed");
  return std::nullopt;
}

} // namespace

outcome<std::shared_ptr<const timetable>>
load_timetable(const std::string& name,
               std::vector<std::unique_ptr<feed_files>> sources,
               const load_options& options) {
  builder b{name, options};
  try {
    for (std::size_t i = 0; i < sources.size(); ++i)
      if (auto bad = b.read_source(*sources[i], i))
        return *bad;
    if (auto bad = b.finish())
      return *bad;
  } catch (const std::bad_alloc&) {
    return make_failure(ec::data_not_available,
                        "GTFS feed " + name + " does not fit in memory",
                        "load a smaller feed or give the daemon more memory");
  } catch (const std::exception& ex) {
    return make_failure(ec::data_not_available,
                        "GTFS feed " + name + " could not be read: "
                          + ex.what(),
                        "fix or replace the feed");
  }
  return std::shared_ptr<const timetable>{std::move(b.out)};
}

outcome<std::shared_ptr<const timetable>>
load_timetable(const std::string& name, const std::vector<std::string>& paths,
               const load_options& options) {
  std::vector<std::unique_ptr<feed_files>> sources;
  for (const auto& path : paths) {
    auto feed = open_feed(path);
    if (!feed)
      return feed.error();
    sources.push_back(std::move(*feed));
  }
  return load_timetable(name, std::move(sources), options);
}

} // namespace transitd::gtfs
