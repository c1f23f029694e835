// Hints speak to the caller they reach: the engine names its settings, the
// daemon's MCP face names the flags that set them.

#include "transitd/transport/hints.hpp"

#include <catch2/catch.hpp>

#include "transitd/transport/tool_catalog.hpp"

using namespace transitd;

TEST_CASE("hints: the engine's settings become the daemon's flags over MCP",
          "[hints]") {
  CHECK(mcp::in_daemon_terms("give a feed realtime sources "
                             "(gtfs_feed_options::realtime)")
        == "give a feed realtime sources (--gtfs-rt NAME=SOURCE)");
  CHECK(mcp::in_daemon_terms("a feed (engine_config::feeds) and "
                             "engine_config::clock_offset_ms twice: "
                             "engine_config::clock_offset_ms")
        == "a feed (--gtfs NAME=SOURCE) and --clock twice: --clock");
  CHECK(mcp::in_daemon_terms("configure engine_config::digitransit_routing."
                             "api_key")
        == "configure DIGITRANSIT_API_KEY");
  // Nothing else changes.
  CHECK(mcp::in_daemon_terms("retry in about 5 s") == "retry in about 5 s");
  CHECK(mcp::in_daemon_terms("std::string is not a setting")
        == "std::string is not a setting");
}

TEST_CASE("hints: a failure rendered for MCP names flags, never the "
          "engine's settings",
          "[hints]") {
  auto out = mcp::error_outcome(
    make_failure(ec::data_not_available, "no realtime is configured here",
                 "serve a region with a GTFS feed (engine_config::feeds) "
                 "and its GTFS-realtime (gtfs_feed_options::realtime)"),
    "cid");
  auto hint = std::string{out.error_body.at("error").at("hint").as_string()};
  CHECK(hint == "serve a region with a GTFS feed (--gtfs NAME=SOURCE) and "
                "its GTFS-realtime (--gtfs-rt NAME=SOURCE)");
  CHECK(hint.find("::") == std::string::npos);
}
