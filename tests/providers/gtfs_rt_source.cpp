// A GTFS-realtime source: full and incremental messages merged, a file read
// again only when it changed, a URL polled with conditional requests and
// Cache-Control, failures backed off and malformed messages refused whole.
// Time is the caller's (poll takes it), so nothing here waits.

#include "transitd/providers/gtfs_rt_source.hpp"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

// Before httplib.h: <netdb.h> defines NO_DATA, a name the format uses.
#include "gtfs_realtime.pb.h"

#include <catch2/catch.hpp>
#include <httplib.h>

using namespace transitd;
using namespace transitd::gtfs_rt;
namespace pb = transitd::gtfs_rt::pb;

namespace {

/// A message with one trip update per id (delay `delay`), full or
/// differential, and deletions.
std::string message(const std::vector<std::string>& trips, int32_t delay,
                    uint64_t timestamp, bool differential = false,
                    const std::vector<std::string>& deleted = {}) {
  pb::FeedMessage m;
  m.mutable_header()->set_gtfs_realtime_version("2.0");
  m.mutable_header()->set_timestamp(timestamp);
  m.mutable_header()->set_incrementality(
    differential ? pb::FeedHeader::DIFFERENTIAL : pb::FeedHeader::FULL_DATASET);
  for (const auto& id : trips) {
    auto* e = m.add_entity();
    e->set_id(id);
    auto* tu = e->mutable_trip_update();
    tu->mutable_trip()->set_trip_id(id);
    tu->set_delay(delay);
  }
  for (const auto& id : deleted) {
    auto* e = m.add_entity();
    e->set_id(id);
    e->set_is_deleted(true);
  }
  return m.SerializeAsString();
}

std::vector<std::string> ids(const source& s) {
  std::vector<std::string> out;
  for (const auto& t : s.trip_updates())
    out.push_back(t.trip.trip_id);
  std::sort(out.begin(), out.end());
  return out;
}

struct temp_file {
  std::string path;
  temp_file() {
    static std::atomic<int> n{0};
    path = (std::filesystem::temp_directory_path()
            / ("transitd-rt-" + std::to_string(::getpid()) + "-"
               + std::to_string(n++) + ".pb"))
             .string();
  }
  ~temp_file() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
  void write(const std::string& bytes) const {
    std::ofstream out{path, std::ios::binary | std::ios::trunc};
    out << bytes;
  }
};

} // namespace

TEST_CASE("GTFS-RT source: Cache-Control max-age", "[gtfs_rt][source]") {
  CHECK(cache_max_age("max-age=30") == 30);
  CHECK(cache_max_age("public, max-age=15") == 15);
  CHECK(cache_max_age("max-age=60, s-maxage=20") == 20);
  CHECK(cache_max_age("no-cache") == 0);
  CHECK(cache_max_age("max-age=30, no-store") == 0);
  CHECK(cache_max_age("") == 0);
  CHECK(cache_max_age("xmax-age=30") == 0);
  CHECK(cache_max_age("max-age=") == 0);
  CHECK(cache_max_age("max-age=99999999999999") == 86400);
}

TEST_CASE("GTFS-RT source: a full dataset replaces, a differential one "
          "merges and deletes",
          "[gtfs_rt][source]") {
  source s{"unused.pb", {}};
  auto full = decode(message({"a", "b"}, 60, 1000));
  REQUIRE(full);
  s.apply(*full);
  CHECK(ids(s) == std::vector<std::string>{"a", "b"});
  CHECK(s.status().timestamp == 1000);
  auto more = decode(message({"b", "c"}, 120, 1010, true, {"a"}));
  REQUIRE(more);
  s.apply(*more);
  CHECK(ids(s) == std::vector<std::string>{"b", "c"});
  for (const auto& t : s.trip_updates())
    CHECK(*t.delay_s == 120); // b replaced
  CHECK(s.status().trip_updates == 2);
  auto again = decode(message({"d"}, 0, 1020));
  REQUIRE(again);
  s.apply(*again);
  CHECK(ids(s) == std::vector<std::string>{"d"});
  CHECK(s.status().timestamp == 1020);
}

TEST_CASE("GTFS-RT source: a file is read when it changes; malformed and "
          "missing ones keep what was read, backing off",
          "[gtfs_rt][source]") {
  temp_file file;
  file.write(message({"a"}, 60, 1000));
  source_options options;
  options.interval_s = 10;
  source s{file.path, options};
  CHECK(s.poll(0));
  CHECK(ids(s) == std::vector<std::string>{"a"});
  CHECK(s.next_due_ms() == 10000);
  CHECK_FALSE(s.poll(5000)); // not due
  CHECK(s.status().polls == 1);
  CHECK_FALSE(s.poll(10000)); // due, unchanged
  CHECK(s.status().unchanged == 1);
  file.write(message({"a", "b"}, 60, 1030));
  CHECK(s.poll(20000));
  CHECK(ids(s) == std::vector<std::string>{"a", "b"});
  CHECK(s.status().timestamp == 1030);

  // Truncated: refused whole, the state stays.
  auto bytes = message({"c", "d", "e"}, 60, 1060);
  file.write(bytes.substr(0, bytes.size() - 3));
  CHECK_FALSE(s.poll(30000));
  CHECK(s.status().refused == 1);
  CHECK(s.status().failures == 1);
  CHECK_FALSE(s.status().last_error.empty());
  CHECK(ids(s) == std::vector<std::string>{"a", "b"});
  CHECK(s.status().timestamp == 1030);

  // Gone: each failure waits twice as long, up to ten minutes.
  std::filesystem::remove(file.path);
  CHECK_FALSE(s.poll(40000));
  auto first_wait = s.next_due_ms() - 40000;
  CHECK_FALSE(s.poll(s.next_due_ms()));
  CHECK(s.next_due_ms() - (40000 + first_wait) == 2 * first_wait);
  for (int i = 0; i < 20; ++i)
    s.poll(s.next_due_ms());
  auto at = s.next_due_ms();
  s.poll(at);
  CHECK(s.next_due_ms() - at == 600000);
  CHECK(ids(s) == std::vector<std::string>{"a", "b"});
  // Back: read, and the interval is the poll interval again.
  file.write(message({"z"}, 0, 1100));
  at = s.next_due_ms();
  CHECK(s.poll(at));
  CHECK(ids(s) == std::vector<std::string>{"z"});
  CHECK(s.next_due_ms() - at == 10000);
  CHECK(s.status().last_error.empty());
}

TEST_CASE("GTFS-RT source: a file replaced with the same size and time is "
          "still seen; timestamps in milliseconds are read as seconds",
          "[gtfs_rt][source]") {
  temp_file file;
  // The same length ("a" and "b"), then the modification time put back.
  file.write(message({"a"}, 60, 1000));
  source_options options;
  options.interval_s = 10;
  source s{file.path, options};
  CHECK(s.poll(0));
  auto written = std::filesystem::last_write_time(file.path);
  auto first = message({"a"}, 60, 1000);
  auto second = message({"b"}, 60, 1000);
  REQUIRE(first.size() == second.size());
  file.write(second);
  std::filesystem::last_write_time(file.path, written);
  CHECK(s.poll(10000));
  CHECK(ids(s) == std::vector<std::string>{"b"});
  // A producer writing milliseconds: read as seconds, and said once.
  file.write(message({"b"}, 60, 1791981000123));
  CHECK(s.poll(20000));
  CHECK(s.status().timestamp == 1791981000);
  REQUIRE(s.status().notes.size() == 1);
  CHECK_THAT(s.status().notes[0], Catch::Contains("milliseconds"));
  // Beyond the year 9999 even as milliseconds: ignored.
  file.write(message({"b"}, 60, UINT64_MAX / 2));
  CHECK(s.poll(30000));
  CHECK(s.status().timestamp == 1791981000); // the last usable one stays
  CHECK_THAT(s.status().notes.at(0), Catch::Contains("1970..9999"));
}

TEST_CASE("GTFS-RT source: a URL is polled with conditional requests, no "
          "sooner than its max-age, and backs off on errors",
          "[gtfs_rt][source]") {
  httplib::Server server;
  std::atomic<int> requests{0};
  std::atomic<int> conditional{0};
  std::atomic<bool> failing{false};
  auto body = message({"a", "b"}, 30, 2000);
  server.Get("/rt", [&](const httplib::Request& rq, httplib::Response& rs) {
    ++requests;
    if (failing) {
      rs.status = 503;
      return;
    }
    rs.set_header("Cache-Control", "max-age=45");
    if (rq.get_header_value("If-None-Match") == "\"v1\"") {
      ++conditional;
      rs.status = 304;
      return;
    }
    rs.set_header("ETag", "\"v1\"");
    rs.set_content(body, "application/x-protobuf");
  });
  auto port = server.bind_to_any_port("127.0.0.1");
  std::thread thread{[&] { server.listen_after_bind(); }};
  struct stop_server {
    httplib::Server& s;
    std::thread& t;
    ~stop_server() {
      s.stop();
      t.join();
    }
  } stopper{server, thread};
  while (!server.is_running())
    std::this_thread::yield();

  source_options options;
  options.interval_s = 15;
  source s{"http://127.0.0.1:" + std::to_string(port) + "/rt?key=secret",
           options};
  CHECK(s.status().name.find("secret") == std::string::npos);
  CHECK(s.poll(0));
  CHECK(ids(s) == std::vector<std::string>{"a", "b"});
  CHECK(s.next_due_ms() == 45000); // max-age over the interval
  CHECK_FALSE(s.poll(45000));
  CHECK(conditional == 1);
  CHECK(s.status().unchanged == 1);
  failing = true;
  CHECK_FALSE(s.poll(90000));
  CHECK(s.status().last_error == "HTTP status 503");
  CHECK(s.next_due_ms() == 90000 + 30000);
  CHECK(ids(s) == std::vector<std::string>{"a", "b"});
  CHECK(requests == 3);
}
