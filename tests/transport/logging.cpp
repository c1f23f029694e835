// Log lines: the JSON form, correlation ids, and the tap that feeds MCP
// notifications/message.

#include "transitd/transport/logging.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <spdlog/spdlog.h>

namespace json = boost::json;
using namespace transitd;

TEST_CASE("a call's log line names its correlation id", "[logging]") {
  CHECK(line_correlation_id("[abc-123] get_departures answered")
        == "abc-123");
  CHECK(line_correlation_id("[abc-123:shared] retry") == "abc-123:shared");
  CHECK(line_correlation_id("transitd listening").empty());
  CHECK(line_correlation_id("[] x").empty());
  CHECK(line_correlation_id("[not an id] x").empty());
}

TEST_CASE("JSON log lines carry time, level, correlation id and message",
          "[logging]") {
  auto time = spdlog::log_clock::time_point{std::chrono::milliseconds{
    1763800000123}};
  auto line = json::parse(json_log_line(
                            time, spdlog::level::warn,
                            "[6b8b88fe-1] Digitransit routing: \"503\"\n"))
                .as_object();
  CHECK(line.at("time").as_string() == "2025-11-22T08:26:40.123Z");
  CHECK(line.at("level").as_string() == "warning");
  CHECK(line.at("correlationId").as_string() == "6b8b88fe-1");
  CHECK(line.at("message").as_string()
        == "Digitransit routing: \"503\"\n");
  auto plain = json::parse(json_log_line(time, spdlog::level::info,
                                         "transitd listening"))
                 .as_object();
  CHECK_FALSE(plain.contains("correlationId"));
  CHECK(plain.at("message").as_string() == "transitd listening");
}

TEST_CASE("the tap collects only the lines of calls listened for, at their "
          "level",
          "[logging]") {
  call_log_tap tap;
  tap.offer(spdlog::level::err, "[a] before anyone listens");
  tap.listen("a", spdlog::level::warn);
  tap.offer(spdlog::level::info, "[a] too quiet");
  tap.offer(spdlog::level::warn, "[a] retrying");
  tap.offer(spdlog::level::err, "[a:shared] upstream failed");
  tap.offer(spdlog::level::err, "[b] another call");
  tap.offer(spdlog::level::err, "no call");
  auto lines = tap.take("a");
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].message == "retrying");
  CHECK(lines[0].level == spdlog::level::warn);
  CHECK(lines[1].message == "upstream failed");
  // Taking stops listening.
  tap.offer(spdlog::level::err, "[a] later");
  CHECK(tap.take("a").empty());
}
