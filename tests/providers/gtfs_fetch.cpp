// Feeds at URLs: downloads with conditional requests against a server on
// 127.0.0.1, the last good copy kept through failures, reloads only when
// something changed.

#include "transitd/providers/gtfs_fetch.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <catch2/catch.hpp>
#include <httplib.h>

#include "transitd/providers/gtfs_feed_actor.hpp"

using namespace transitd;

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// Serves one zip at /gtfs.zip with an ETag; counts 200s and 304s.
struct feed_server {
  httplib::Server server;
  std::thread thread;
  int port = 0;
  std::string body;
  std::string etag = "\"v1\"";
  int status = 200;
  int full = 0;
  int not_modified = 0;

  explicit feed_server(std::string zip) : body(std::move(zip)) {
    server.Get("/gtfs.zip", [this](const httplib::Request& req,
                                   httplib::Response& res) {
      if (status != 200) {
        res.status = status;
        return;
      }
      if (req.get_header_value("If-None-Match") == etag) {
        ++not_modified;
        res.status = 304;
        return;
      }
      ++full;
      res.set_header("ETag", etag);
      res.set_content(body, "application/zip");
    });
    server.Get("/moved", [](const httplib::Request&, httplib::Response& res) {
      res.set_redirect("/gtfs.zip");
    });
    port = server.bind_to_any_port("127.0.0.1");
    thread = std::thread{[this] { server.listen_after_bind(); }};
    while (!server.is_running())
      std::this_thread::yield();
  }
  ~feed_server() {
    server.stop();
    thread.join();
  }
  std::string url() const {
    return "http://127.0.0.1:" + std::to_string(port) + "/gtfs.zip";
  }
};

std::string bart_zip() {
  return read_all(std::string{TRANSITD_FIXTURES_DIR}
                  + "/gtfs/bart-2019/bart-gtfs.zip");
}

std::string scratch(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path()
             / ("transitd-fetch-test-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

} // namespace

TEST_CASE("GTFS fetch: download, then 304 with the ETag, then failures "
          "keep the copy",
          "[gtfs][fetch]") {
  feed_server server{bart_zip()};
  auto path = scratch("fetch") + "/bart.zip";
  auto first = gtfs::fetch_feed(server.url(), path);
  REQUIRE(first);
  CHECK(*first == gtfs::fetch_outcome::downloaded);
  CHECK(read_all(path) == server.body);
  auto second = gtfs::fetch_feed(server.url(), path);
  INFO((second ? std::string{} : second.error().message));
  REQUIRE(second);
  CHECK(*second == gtfs::fetch_outcome::unchanged);
  CHECK(server.full == 1);
  CHECK(server.not_modified == 1);
  // Through a redirect, still conditional.
  auto moved = server.url();
  moved.replace(moved.find("/gtfs.zip"), 9, "/moved");
  auto redirected = gtfs::fetch_feed(moved, path);
  REQUIRE(redirected);
  CHECK(*redirected == gtfs::fetch_outcome::unchanged);
  CHECK(server.not_modified == 2);
  // A server error leaves the copy.
  server.status = 500;
  auto failed = gtfs::fetch_feed(server.url(), path);
  REQUIRE_FALSE(failed);
  CHECK_THAT(failed.error().message,
             Catch::Contains("HTTP status 500") && Catch::Contains("127.0.0.1"));
  CHECK(read_all(path) == server.body);
  // Too large for the bound: refused, copy kept.
  server.status = 200;
  server.etag = "\"v2\"";
  gtfs::fetch_options small;
  small.max_bytes = 1000;
  auto big = gtfs::fetch_feed(server.url(), path, small);
  REQUIRE_FALSE(big);
  CHECK_THAT(big.error().message, Catch::Contains("larger than"));
  CHECK(read_all(path) == server.body);
  CHECK_FALSE(std::filesystem::exists(path + ".part"));
  // Not a zip (an error page served with 200): refused, copy kept.
  auto good = server.body;
  server.body = "<html>maintenance</html>";
  server.etag = "\"v3\"";
  auto page = gtfs::fetch_feed(server.url(), path);
  REQUIRE_FALSE(page);
  CHECK_THAT(page.error().message, Catch::Contains("not a zip"));
  CHECK(read_all(path) == good);
}

TEST_CASE("GTFS feed by URL: loads, skips an unchanged refresh, keeps the "
          "timetable when the server fails",
          "[gtfs][fetch]") {
  feed_server server{bart_zip()};
  gtfs_feed_options options;
  options.name = "bart";
  options.sources = {server.url()};
  options.download_dir = scratch("feed");
  feed_slot slot{"bart"};
  load_feed(options, slot);
  REQUIRE(slot.status().loaded);
  auto snapshot = slot.current();
  CHECK(snapshot->report.first_day == "2019-02-11");
  CHECK(std::filesystem::exists(options.download_dir + "/bart-0.zip"));
  // Nothing changed: no rebuild.
  load_feed(options, slot);
  CHECK(slot.current() == snapshot);
  CHECK(slot.status().unchanged_checks == 1);
  // A new version is downloaded and swapped in whole.
  server.etag = "\"v2\"";
  load_feed(options, slot);
  CHECK(slot.current() != snapshot);
  CHECK(server.full == 2);
  // The server fails: the timetable stays, the failure is reported.
  auto current = slot.current();
  server.status = 503;
  load_feed(options, slot);
  CHECK(slot.current() == current);
  CHECK(slot.status().loaded);
  CHECK_THAT(slot.status().error, Catch::Contains("HTTP status 503"));
  CHECK(slot.status().failed_loads == 1);
  // A new start with the server down serves the copy downloaded before.
  server.status = 500;
  feed_slot restarted{"bart"};
  load_feed(options, restarted);
  CHECK(restarted.status().loaded);
}

TEST_CASE("GTFS feed by URL: nothing downloaded yet and no server means "
          "not loaded, saying why",
          "[gtfs][fetch]") {
  gtfs_feed_options options;
  options.name = "gone";
  options.sources = {"http://127.0.0.1:1/gtfs.zip"};
  options.download_dir = scratch("gone");
  options.fetch.timeout_s = 2;
  feed_slot slot{"gone"};
  load_feed(options, slot);
  CHECK_FALSE(slot.status().loaded);
  CHECK_THAT(slot.status().error, Catch::Contains("127.0.0.1:1"));
}
