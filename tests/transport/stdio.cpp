// MCP over standard input and output: lines in, lines out, through pipes
// (no sockets, no process).

#include "transitd/transport/stdio.hpp"

#include <thread>

#include <unistd.h>

#include <catch2/catch.hpp>

namespace json = boost::json;
using namespace transitd;

namespace {

/// Runs a stdio server over pipes on `input` and returns its output lines.
std::vector<json::object> serve_lines(const std::string& input,
                                      std::size_t max_line = 4096) {
  mcp::tool_catalog catalog;
  mcp::tool_spec echo;
  echo.name = "echo";
  echo.title = "Echo";
  echo.description = "echo";
  echo.input = mcp::field::object({}, {});
  echo.output_schema = mcp::schema_object({}, {});
  echo.run = [](const json::object& args, call_context& ctx,
                const std::shared_ptr<mcp::cancellation>&,
                mcp::tool_done done) {
    report_progress(ctx, "echoing");
    json::object out = args;
    out["principal"] = ctx.principal;
    done(mcp::success_outcome(std::move(out)));
  };
  catalog.add(echo);
  mcp::core core{mcp::core_options{}, catalog};
  int in[2];
  int out[2];
  REQUIRE(pipe(in) == 0);
  REQUIRE(pipe(out) == 0);
  std::thread server{[&] {
    mcp::stdio_server stdio{core, in[0], out[1], max_line};
    stdio.run();
    close(out[1]);
  }};
  std::thread writer{[&] {
    std::size_t done = 0;
    while (done < input.size()) {
      auto n = write(in[1], input.data() + done, input.size() - done);
      if (n <= 0)
        break;
      done += static_cast<std::size_t>(n);
    }
    close(in[1]); // end of input: the client is done
  }};
  std::string text;
  char buffer[4096];
  for (;;) {
    auto n = read(out[0], buffer, sizeof buffer);
    if (n <= 0)
      break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  writer.join();
  server.join();
  close(in[0]);
  close(out[0]);
  std::vector<json::object> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    REQUIRE(end != std::string::npos); // every message ends its line
    lines.push_back(json::parse(text.substr(start, end - start)).as_object());
    start = end + 1;
  }
  return lines;
}

const json::object* reply_to(const std::vector<json::object>& lines,
                             const json::value& id) {
  for (const auto& line : lines)
    if (line.contains("id") && line.at("id") == id)
      return &line;
  return nullptr;
}

} // namespace

TEST_CASE("stdio: initialize opens the session later lines belong to",
          "[stdio]") {
  auto lines = serve_lines(
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
    "\n"
    R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
    "\n"
    R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"x":1}}})"
    "\n");
  REQUIRE(lines.size() == 2); // the notification gets no answer
  auto* init = reply_to(lines, 1);
  REQUIRE(init);
  CHECK(init->at("result").at("protocolVersion").as_string() == "2025-11-25");
  auto* call = reply_to(lines, 2);
  REQUIRE(call);
  const auto& content = call->at("result").at("structuredContent");
  CHECK(content.at("x").as_int64() == 1);
  CHECK(content.at("principal").as_string() == "local");
}

TEST_CASE("stdio: 2026-07-28 lines need no handshake; progress comes first",
          "[stdio]") {
  auto lines = serve_lines(
    R"({"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}})"
    "\r\n");
  REQUIRE(lines.size() >= 2);
  CHECK(lines.front().at("method").as_string() == "notifications/progress");
  CHECK(lines.back().at("id").as_string() == "a");
  CHECK(lines.back().at("result").at("resultType").as_string() == "complete");
}

TEST_CASE("stdio: a malformed or oversized line is answered and the next "
          "one served",
          "[stdio]") {
  std::string huge = R"({"jsonrpc":"2.0","id":9,"method":"ping","pad":")"
                     + std::string(5000, 'x') + "\"}";
  // A refused notification is logged, never answered on the wire.
  std::string bad_notification
    = R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})";
  auto lines = serve_lines(
    "not json\n" + huge + "\n" + bad_notification + "\n"
    + R"({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}})"
    + "\n");
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].at("error").at("code").as_int64() == -32700);
  CHECK(lines[1].at("error").at("code").as_int64() == -32600);
  CHECK_THAT(std::string{lines[1].at("error").at("message").as_string()},
             Catch::Contains("at most 4096 bytes"));
  CHECK(lines[2].at("id").as_int64() == 3);
  CHECK(lines[2].at("result").at("tools").as_array().size() == 1);
}

TEST_CASE("stdio: a line before initialize is told to send initialize, "
          "not of headers",
          "[stdio]") {
  auto lines = serve_lines(
    R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}})"
    "\n");
  REQUIRE(lines.size() == 1);
  auto message = std::string{lines[0].at("error").at("message").as_string()};
  CHECK_THAT(message, Catch::Contains("send initialize first"));
  CHECK_THAT(message, !Catch::Contains("header"));
  CHECK_THAT(message, !Catch::Contains("Mcp-Session-Id"));
  CHECK_THAT(message, !Catch::Contains("Bad Request")); // HTTP's words
}
