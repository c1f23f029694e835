// libFuzzer: the MCP endpoint (JSON-RPC parsing, sessions, dispatch,
// tools/list, tools/call argument parsing of every real tool) on any POST
// body. Tools run their strict parsers only; nothing leaves the process.
// The first byte picks the headers: with or without the session, an odd
// Content-Type or protocol version now and then, and 2026-07-28 headers
// mirroring the body (over HTTP or as a stdio line).

#include <memory>
#include <string>

#include <spdlog/spdlog.h>

#include "tests/fuzz/common.hpp"
#include "transitd/transport/mcp_http.hpp"
#include "transitd/transport/tool_list.hpp"

namespace json = boost::json;
using namespace transitd;

namespace {

/// Each tool parses its arguments and answers an empty success (or the
/// validation error).
struct parse_only {
  mcp::tool_catalog& catalog;

  template <class Request, class Reply, class Parse>
  void tool(mcp::tool_spec spec, Parse parse) {
    spec.run = [parse](const json::object& arguments, call_context& context,
                       const std::shared_ptr<mcp::cancellation>&,
                       mcp::tool_done done) {
      outcome<Request> request = parse(arguments);
      if (!request)
        return done(
          mcp::error_outcome(request.error(), context.correlation_id));
      done(mcp::success_outcome(json::object{}));
    };
    catalog.add(std::move(spec));
  }

  template <class Request, class Reply, class Parse>
  void london(mcp::tool_spec spec, Parse parse, mcp::london_tool which) {
    spec.run = [parse, which](const json::object& arguments,
                              call_context& context,
                              const std::shared_ptr<mcp::cancellation>&,
                              mcp::tool_done done) {
      outcome<Request> request = parse(arguments);
      if (!request)
        return done(mcp::london_error(which, request.error(),
                                      context.correlation_id));
      done(mcp::success_outcome(json::object{}));
    };
    catalog.add(std::move(spec));
  }
};

struct fixture {
  mcp::tool_catalog catalog;
  std::shared_ptr<mcp::core> core;
  std::unique_ptr<mcp::endpoint> endpoint;
  std::string session;

  fixture() {
    spdlog::set_level(spdlog::level::off);
    parse_only adder{catalog};
    mcp::visit_tools(adder);
    mcp::endpoint_options options;
    options.max_sessions = 64; // initialize bodies must not grow memory
    core = std::make_shared<mcp::core>(options, catalog);
    endpoint = std::make_unique<mcp::endpoint>(options, core);
    auto reply = endpoint->handle(request(
      R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})",
      false, 0));
    for (const auto& [name, value] : reply.headers)
      if (name == "Mcp-Session-Id")
        session = value;
  }

  /// One message straight to the core (stdio): every answer is JSON-RPC
  /// text or nothing.
  void line(const std::string& text) {
    struct checked final : mcp::reply_channel {
      bool open_stream() override {
        return true;
      }
      void notify(std::string message) override {
        check(message);
      }
      void done(mcp::answer result) override {
        check(result.message);
      }
      static void check(const std::string& message) {
        if (message.empty())
          return;
        json::error_code ec;
        auto parsed = json::parse(message, ec);
        if (ec || !parsed.is_object())
          __builtin_trap();
      }
    };
    auto parsed = mcp::parse_message(text);
    if (auto* refused = std::get_if<mcp::answer>(&parsed)) {
      checked::check(refused->message);
      return;
    }
    mcp::peer from;
    from.cancels_by_id = true;
    from.message_bytes = text.size();
    core->handle(std::get<json_rpc::message>(parsed), from,
                 std::make_shared<checked>());
  }

  mcp::http_request request(std::string body, bool with_session,
                            uint8_t flags) {
    mcp::http_request r;
    r.method = (flags & 0x40) ? "DELETE" : "POST";
    r.headers = {{"host", "127.0.0.1:8080"},
                 {"content-type", (flags & 0x08) ? "text/plain"
                                                 : "application/json"},
                 {"accept", "application/json, text/event-stream"}};
    if (with_session)
      r.headers.emplace_back("mcp-session-id", session);
    if (flags & 0x10)
      r.headers.emplace_back("mcp-protocol-version", "2025-06-18");
    if (flags & 0x20)
      r.headers.emplace_back("origin", "http://localhost:3000");
    if (flags & 0x02) {
      // 2026-07-28: headers that mirror the body, so that the checks pass
      // and dispatch is reached.
      json::error_code ec;
      auto parsed = json::parse(body, ec);
      if (!ec && parsed.is_object()) {
        const auto& o = parsed.get_object();
        r.headers.emplace_back("mcp-protocol-version", "2026-07-28");
        if (auto m = o.if_contains("method"); m && m->is_string())
          r.headers.emplace_back("mcp-method", std::string{m->get_string()});
        if (auto p = o.if_contains("params"); p && p->is_object())
          if (auto n = p->get_object().if_contains("name"); n && n->is_string())
            r.headers.emplace_back("mcp-name", std::string{n->get_string()});
      }
    }
    r.body = std::move(body);
    return r;
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fixture f;
  if (size == 0)
    return 0;
  uint8_t flags = data[0];
  auto body = std::string{fuzz::text(data + 1, size - 1)};
  bool with_session = (flags & 0x01) == 0;
  // DELETE would end the shared session; keep it for the others.
  if ((flags & 0x40) && with_session)
    flags &= ~0x40;
  if (flags & 0x04) {
    // A line as stdio hands it to the core: no HTTP around it.
    f.line(body);
    return 0;
  }
  auto reply = f.endpoint->handle(f.request(std::move(body), with_session,
                                            flags));
  // Every reply is an HTTP status with a well-formed JSON or SSE body.
  if (reply.status < 200 || reply.status > 599)
    __builtin_trap();
  if (reply.content_type == "application/json") {
    json::error_code ec;
    (void)json::parse(reply.body, ec);
    if (ec)
      __builtin_trap();
  }
  return 0;
}
