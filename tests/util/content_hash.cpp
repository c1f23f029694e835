// Content hashes: the same bytes hash the same, whatever the file's size
// or time; one changed byte changes it; a folder hashes its files by name.

#include "transitd/util/content_hash.hpp"

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <unistd.h>

using namespace transitd;
namespace fs = std::filesystem;

TEST_CASE("content hash: bytes decide, not size or time", "[util][hash]") {
  auto dir = fs::temp_directory_path()
             / ("transitd-hash-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto write = [](const fs::path& p, const std::string& bytes) {
    std::ofstream{p, std::ios::binary | std::ios::trunc} << bytes;
  };
  auto a = dir / "a.txt";
  write(a, "stop_id,stop_name\n1,Alpha\n");
  auto first = content_hash(a.string());
  REQUIRE(first);
  auto when = fs::last_write_time(a);
  write(a, "stop_id,stop_name\n1,Alphb\n"); // same size
  fs::last_write_time(a, when);
  auto second = content_hash(a.string());
  REQUIRE(second);
  CHECK(*second != *first);
  write(a, "stop_id,stop_name\n1,Alpha\n");
  CHECK(content_hash(a.string()) == first);
  std::string bytes = "stop_id,stop_name\n1,Alpha\n";
  CHECK(content_hash_of(bytes.data(), bytes.size()) != 0);
  // A folder: its files, by name.
  write(dir / "b.txt", "x");
  auto folder = content_hash(dir.string());
  REQUIRE(folder);
  write(dir / "b.txt", "y");
  CHECK(content_hash(dir.string()) != folder);
  // Unreadable: nullopt with the reason.
  std::string error;
  CHECK_FALSE(content_hash((dir / "missing").string(), &error));
  CHECK_THAT(error, Catch::Contains("missing"));
  fs::remove_all(dir);
}
