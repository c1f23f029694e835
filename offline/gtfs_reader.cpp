#include "transitd/offline/gtfs_reader.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <date/date.h>
#include <spdlog/spdlog.h>
#include <zip.h>

#include "transitd/offline/gtfs_builder.hpp"

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

outcome<std::shared_ptr<const timetable>>
load_timetable(const std::string& name,
               std::vector<std::unique_ptr<feed_files>> sources,
               const load_options& options) {
  detail::builder b{name, options};
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

