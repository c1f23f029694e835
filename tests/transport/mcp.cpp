// MCP Streamable HTTP as a function: every protocol rule, without sockets.

#include "transitd/transport/mcp_http.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <future>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>
#include <spdlog/spdlog.h>

namespace json = boost::json;
using namespace transitd;

namespace {

struct endpoint_fixture {
  mcp::tool_catalog catalog;
  std::shared_ptr<mcp::core> core;
  std::unique_ptr<mcp::endpoint> endpoint;
  std::promise<void> slow_started;
  std::atomic<bool> slow_saw_cancel{false};
  /// The pending answers of the "later" tool.
  std::mutex later_mutex;
  std::vector<std::function<void()>> later_calls;

  explicit endpoint_fixture(mcp::endpoint_options options = {}) {
    mcp::tool_spec echo;
    echo.name = "echo";
    echo.title = "Echo";
    echo.input = mcp::field::object({}, {});
    echo.output_schema = mcp::schema_object({}, {});
    echo.run = [](const json::object& args, call_context& ctx,
                  const std::shared_ptr<mcp::cancellation>&,
                  mcp::tool_done done) {
      if (args.contains("fail"))
        return done(mcp::error_outcome(make_failure(ec::validation_error,
                                                    "fail was set"),
                                       ctx.correlation_id));
      json::object out = args;
      out["correlationId"] = ctx.correlation_id;
      out["principal"] = ctx.principal;
      done(mcp::success_outcome(std::move(out)));
    };
    catalog.add(echo);
    mcp::tool_spec slow = echo;
    slow.name = "slow";
    // Blocks the calling thread until cancelled (a tool may block).
    slow.run = [this](const json::object&, call_context& ctx,
                      const std::shared_ptr<mcp::cancellation>& cancel,
                      mcp::tool_done done) {
      slow_started.set_value();
      std::unique_lock<std::mutex> lock{cancel->mutex()};
      cancel->condition().wait_for(lock, std::chrono::seconds{10}, [&] {
        return cancel->cancelled_locked();
      });
      slow_saw_cancel = cancel->cancelled_locked();
      lock.unlock();
      done(mcp::error_outcome(make_failure(ec::cancelled, "cancelled"),
                              ctx.correlation_id));
    };
    catalog.add(slow);
    mcp::tool_spec chatty = echo;
    chatty.name = "chatty";
    chatty.run = [](const json::object&, call_context& ctx,
                    const std::shared_ptr<mcp::cancellation>&,
                    mcp::tool_done done) {
      spdlog::warn("[{}] upstream slow, retrying", ctx.correlation_id);
      spdlog::error("[{}] upstream failed once", ctx.correlation_id);
      done(mcp::success_outcome(json::object{}));
    };
    catalog.add(chatty);
    // Answers from another thread, after handle() has returned; or, once
    // cancelled, at once with the cancellation.
    mcp::tool_spec later = echo;
    later.name = "later";
    later.run = [this](const json::object&, call_context& ctx,
                       const std::shared_ptr<mcp::cancellation>& cancel,
                       mcp::tool_done done) {
      auto once = std::make_shared<std::atomic<bool>>(false);
      auto finish = std::make_shared<mcp::tool_done>(
        [once, done](mcp::tool_outcome outcome) {
          if (!once->exchange(true))
            done(std::move(outcome));
        });
      // Weakly: the cancellation outlives the call (the call holds it).
      std::weak_ptr<mcp::tool_done> weak = finish;
      cancel->on_cancel([weak, cid = ctx.correlation_id] {
        if (auto f = weak.lock())
          (*f)(mcp::error_outcome(make_failure(ec::cancelled, "cancelled"),
                                  cid));
      });
      std::lock_guard<std::mutex> guard{later_mutex};
      later_calls.push_back([finish] {
        json::object out;
        out["late"] = true;
        (*finish)(mcp::success_outcome(std::move(out)));
      });
    };
    catalog.add(later);
    core = std::make_shared<mcp::core>(options, catalog);
    endpoint = std::make_unique<mcp::endpoint>(options, core);
  }

  /// One message straight to the core, as a transport without HTTP sends
  /// it; waits for the answer.
  mcp::answer to_core(const std::string& text, const mcp::peer& from) {
    struct waiting final : mcp::reply_channel {
      std::promise<mcp::answer> answered;
      bool open_stream() override {
        return true;
      }
      void notify(std::string) override {
      }
      void done(mcp::answer result) override {
        answered.set_value(std::move(result));
      }
    };
    auto channel = std::make_shared<waiting>();
    auto result = channel->answered.get_future();
    auto parsed = mcp::parse_message(text);
    if (auto* refused = std::get_if<mcp::answer>(&parsed))
      return *refused;
    core->handle(std::get<json_rpc::message>(parsed), from, channel);
    return result.get();
  }

  mcp::http_reply post(const std::string& body,
                       std::vector<std::pair<std::string, std::string>>
                         extra = {},
                       const std::string& session = {}) {
    return endpoint->handle(make_request(body, std::move(extra), session));
  }

  /// A POST to /mcp with the usual headers, `extra` replacing or adding.
  static mcp::http_request
  make_request(const std::string& body,
               std::vector<std::pair<std::string, std::string>> extra = {},
               const std::string& session = {}) {
    mcp::http_request request;
    request.method = "POST";
    request.headers = {{"host", "127.0.0.1:8080"},
                       {"content-type", "application/json"},
                       {"accept", "application/json, text/event-stream"}};
    if (!session.empty())
      request.headers.emplace_back("mcp-session-id", session);
    for (auto& [name, value] : extra) {
      auto it = std::find_if(request.headers.begin(), request.headers.end(),
                             [&](const auto& h) { return h.first == name; });
      if (it != request.headers.end())
        it->second = value;
      else
        request.headers.emplace_back(name, value);
    }
    request.body = body;
    return request;
  }

  /// Starts a call of the "later" tool with JSON-RPC `id`; its reply,
  /// whenever it comes, lands in `got`.
  void call_later(const std::string& session, int id,
                  std::optional<mcp::http_reply>& got) {
    endpoint->handle(
      make_request(R"({"jsonrpc":"2.0","id":)" + std::to_string(id)
                     + R"(,"method":"tools/call","params":{"name":"later","arguments":{}}})",
                   {}, session),
      [&got](mcp::http_reply reply) { got = std::move(reply); });
  }

  /// What answers the `index`-th "later" call started.
  std::function<void()> later_answer(std::size_t index) {
    std::lock_guard<std::mutex> guard{later_mutex};
    REQUIRE(index < later_calls.size());
    return later_calls[index];
  }

  std::size_t later_count() {
    std::lock_guard<std::mutex> guard{later_mutex};
    return later_calls.size();
  }

  std::string initialize(const std::string& version = "2025-11-25") {
    auto reply = post(R"({"jsonrpc":"2.0","id":0,"method":"initialize",
      "params":{"protocolVersion":")"
                      + version + R"(","capabilities":{},
      "clientInfo":{"name":"t","version":"1"}}})");
    REQUIRE(reply.status == 200);
    for (const auto& [name, value] : reply.headers)
      if (name == "Mcp-Session-Id")
        return value;
    FAIL("no session id");
    return {};
  }

  json::object rpc(const std::string& session, const std::string& method,
                   const std::string& params = "{}", int id = 1) {
    auto reply = post(R"({"jsonrpc":"2.0","id":)" + std::to_string(id)
                        + R"(,"method":")" + method + R"(","params":)"
                        + params + "}",
                      {}, session);
    INFO(reply.body);
    REQUIRE(reply.status == 200);
    REQUIRE(reply.content_type == "application/json");
    return json::parse(reply.body).as_object();
  }
};

int error_code(const mcp::http_reply& reply) {
  return static_cast<int>(
    json::parse(reply.body).at("error").at("code").as_int64());
}

} // namespace

TEST_CASE_METHOD(endpoint_fixture, "initialize negotiates the version",
                 "[mcp][lifecycle]") {
  for (auto version : {"2025-11-25", "2025-06-18", "2025-03-26"}) {
    auto reply = post(std::string{R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":")"}
                      + version + R"(","capabilities":{}}})");
    REQUIRE(reply.status == 200);
    auto result = json::parse(reply.body).at("result");
    CHECK(result.at("protocolVersion").as_string() == version);
    CHECK(result.at("capabilities").as_object().contains("tools"));
    CHECK(result.at("serverInfo").at("name").as_string() == "transitd");
  }
  // A version we do not speak: we offer our latest.
  auto reply = post(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{}}})");
  CHECK(json::parse(reply.body).at("result").at("protocolVersion").as_string()
        == "2025-11-25");
  // initialize never needs the version header, even a bad one.
  auto lenient = post(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})",
                      {{"mcp-protocol-version", "bogus"}});
  CHECK(lenient.status == 200);
  auto missing = post(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})");
  CHECK(error_code(missing) == -32602);
}

TEST_CASE_METHOD(endpoint_fixture, "session ids are secure and distinct",
                 "[mcp][sessions]") {
  auto a = initialize();
  auto b = initialize();
  CHECK(a.size() == 64);
  CHECK(a.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(a != b);
  CHECK(endpoint->session_count() == 2);
}

TEST_CASE_METHOD(endpoint_fixture, "session rules: missing 400, unknown 404",
                 "[mcp][sessions]") {
  auto ping = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  CHECK(post(ping).status == 400);
  CHECK(post(ping, {}, "not-a-session").status == 404);
  auto session = initialize();
  auto ok = post(ping, {}, session);
  CHECK(ok.status == 200);
  CHECK(json::parse(ok.body).at("result").as_object().empty());
  // Notifications belong to the session too.
  CHECK(post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})")
          .status
        == 400);
}

TEST_CASE_METHOD(endpoint_fixture, "DELETE ends a session",
                 "[mcp][sessions]") {
  auto session = initialize();
  mcp::http_request del;
  del.method = "DELETE";
  del.headers = {{"host", "localhost:8080"}, {"mcp-session-id", session}};
  CHECK(endpoint->handle(del).status == 200);
  CHECK(post(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", {}, session)
          .status
        == 404);
  CHECK(endpoint->handle(del).status == 404);
  del.headers = {{"host", "localhost:8080"}};
  CHECK(endpoint->handle(del).status == 400);
}

TEST_CASE_METHOD(endpoint_fixture,
                 "DELETE cancels the session's calls in flight and returns",
                 "[mcp][sessions][cancel]") {
  // Cancelling a call finishes it, and finishing takes the sessions lock:
  // DELETE must cancel after letting go of it (a deadlock here before;
  // CTest's timeout fails the test if it comes back).
  auto session = initialize();
  std::vector<std::optional<mcp::http_reply>> got(2);
  call_later(session, 20, got[0]);
  call_later(session, 21, got[1]);
  CHECK_FALSE(got[0]);
  mcp::http_request del;
  del.method = "DELETE";
  del.headers = {{"host", "localhost:8080"}, {"mcp-session-id", session}};
  CHECK(endpoint->handle(del).status == 200);
  for (const auto& reply : got) {
    REQUIRE(reply);
    CHECK(reply->body.find("\"result\"") == std::string::npos);
  }
  CHECK(endpoint->session_count() == 0);
}

TEST_CASE_METHOD(endpoint_fixture,
                 "a reused request id: each call stays cancellable, and "
                 "notifications/cancelled reaches every call with that id",
                 "[mcp][cancel]") {
  auto session = initialize();
  std::vector<std::optional<mcp::http_reply>> got(2);
  call_later(session, 30, got[0]);
  call_later(session, 30, got[1]);
  // The first finishes; the second must still be in the session.
  REQUIRE(later_count() == 2);
  later_answer(0)();
  REQUIRE(got[0]);
  CHECK(got[0]->body.find("\"late\"") != std::string::npos);
  CHECK_FALSE(got[1]);
  CHECK(post(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":30}})",
             {}, session)
          .status
        == 202);
  REQUIRE(got[1]);
  CHECK(got[1]->body.find("\"late\"") == std::string::npos);
}

TEST_CASE_METHOD(endpoint_fixture, "MCP-Protocol-Version is checked",
                 "[mcp][version]") {
  auto session = initialize();
  auto ping = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  CHECK(post(ping, {{"mcp-protocol-version", "2025-11-25"}}, session).status
        == 200);
  CHECK(post(ping, {{"mcp-protocol-version", "2025-03-26"}}, session).status
        == 200);
  auto bad = post(ping, {{"mcp-protocol-version", "1.0"}}, session);
  CHECK(bad.status == 400);
  CHECK_THAT(bad.body, Catch::Contains("MCP-Protocol-Version"));
  // Missing: assumed 2025-03-26, accepted.
  CHECK(post(ping, {}, session).status == 200);
}

TEST_CASE_METHOD(endpoint_fixture, "Host and Origin are checked",
                 "[mcp][security]") {
  auto body = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})";
  CHECK(post(body, {{"host", "evil.example:8080"}}).status == 403);
  CHECK(post(body, {{"origin", "https://evil.example"}}).status == 403);
  CHECK(post(body, {{"origin", "null"}}).status == 403);
  CHECK(post(body, {{"origin", "http://localhost:3000"}}).status == 200);
  CHECK(post(body, {{"host", "[::1]:8080"}}).status == 200);
  CHECK(post(body, {{"host", "LOCALHOST"}}).status == 200);
  mcp::http_request no_host;
  no_host.method = "POST";
  no_host.body = body;
  no_host.headers = {{"content-type", "application/json"}};
  CHECK(endpoint->handle(no_host).status == 400);
}

TEST_CASE("allowed hosts are configurable", "[mcp][security]") {
  mcp::endpoint_options options;
  options.allowed_hosts = {"transit.example"};
  endpoint_fixture f{options};
  auto body = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})";
  CHECK(f.post(body).status == 403); // 127.0.0.1 no longer allowed
  CHECK(f.post(body, {{"host", "transit.example"}}).status == 200);
}

TEST_CASE_METHOD(endpoint_fixture, "malformed bodies: 400, 415, 413",
                 "[mcp][http]") {
  auto parse = post("{not json");
  CHECK(parse.status == 400);
  CHECK(error_code(parse) == -32700);
  auto batch = post(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
  CHECK(batch.status == 400);
  CHECK(error_code(batch) == -32600);
  auto scalar = post("42");
  CHECK(scalar.status == 400);
  CHECK(error_code(scalar) == -32600);
  auto envelope = post(R"({"id":1,"method":"ping"})");
  CHECK(envelope.status == 400);
  CHECK(error_code(envelope) == -32600);
  CHECK(post("{}", {{"content-type", "text/plain"}}).status == 415);
  CHECK(post("{}", {{"content-type", "application/json; charset=utf-8"}})
          .status
        == 400); // accepted media type; the body is the problem
  mcp::endpoint_options small;
  small.max_body_bytes = 64;
  endpoint_fixture tiny{small};
  CHECK(tiny.post(std::string(100, ' ')).status == 413);
}

TEST_CASE_METHOD(endpoint_fixture,
                 "notifications and responses get 202 with no body",
                 "[mcp][http]") {
  auto session = initialize();
  auto note = post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                   {}, session);
  CHECK(note.status == 202);
  CHECK(note.body.empty());
  auto response = post(R"({"jsonrpc":"2.0","id":5,"result":{}})", {},
                       session);
  CHECK(response.status == 202);
  CHECK(response.body.empty());
}

TEST_CASE_METHOD(endpoint_fixture, "GET is 405: no server-initiated stream",
                 "[mcp][http]") {
  mcp::http_request get;
  get.method = "GET";
  get.headers = {{"host", "localhost"}, {"accept", "text/event-stream"}};
  auto reply = endpoint->handle(get);
  CHECK(reply.status == 405);
}

TEST_CASE_METHOD(endpoint_fixture, "tools/list paginates with a cursor",
                 "[mcp][tools]") {
  mcp::endpoint_options options;
  options.tools_page_size = 1;
  endpoint_fixture paged{options};
  auto session = paged.initialize();
  auto first = paged.rpc(session, "tools/list");
  const auto& page1 = first.at("result").as_object();
  REQUIRE(page1.at("tools").as_array().size() == 1);
  CHECK(page1.at("tools").at(0).at("name").as_string() == "echo");
  auto cursor = std::string{page1.at("nextCursor").as_string()};
  auto second = paged.rpc(session, "tools/list",
                          R"({"cursor":")" + cursor + R"("})");
  const auto& page2 = second.at("result").as_object();
  CHECK(page2.at("tools").at(0).at("name").as_string() == "slow");
  auto third = paged.rpc(session, "tools/list",
                         R"({"cursor":")"
                           + std::string{page2.at("nextCursor").as_string()}
                           + R"("})");
  const auto& page3 = third.at("result").as_object();
  CHECK(page3.at("tools").at(0).at("name").as_string() == "chatty");
  auto fourth = paged.rpc(session, "tools/list",
                          R"({"cursor":")"
                            + std::string{page3.at("nextCursor").as_string()}
                            + R"("})");
  const auto& page4 = fourth.at("result").as_object();
  CHECK(page4.at("tools").at(0).at("name").as_string() == "later");
  CHECK_FALSE(page4.contains("nextCursor"));
  auto bad = paged.rpc(session, "tools/list", R"({"cursor":"zzz"})");
  CHECK(bad.at("error").at("code").as_int64() == -32602);
  // Digits past any integer: the same error, not an exception.
  auto huge = paged.rpc(session, "tools/list",
                        R"({"cursor":"99999999999999999999999"})");
  CHECK(huge.at("error").at("code").as_int64() == -32602);
  auto past = paged.rpc(session, "tools/list", R"({"cursor":"4"})");
  CHECK(past.at("error").at("code").as_int64() == -32602);
  // Without pagination every tool fits one page.
  auto all = rpc(initialize(), "tools/list");
  CHECK(all.at("result").at("tools").as_array().size() == 4);
  CHECK_FALSE(all.at("result").as_object().contains("nextCursor"));
}

TEST_CASE_METHOD(endpoint_fixture, "tools/call results follow D2",
                 "[mcp][tools]") {
  auto session = initialize();
  auto ok = rpc(session, "tools/call",
                R"({"name":"echo","arguments":{"x":1}})");
  const auto& result = ok.at("result").as_object();
  CHECK_FALSE(result.at("isError").as_bool());
  const auto& content = result.at("structuredContent").as_object();
  CHECK(content.at("x").as_int64() == 1);
  CHECK(content.at("correlationId").as_string().size() == 36);
  // Without authentication the one user is `local` (D17 revised).
  CHECK(content.at("principal").as_string() == "local");
  auto text = result.at("content").at(0).at("text").as_string();
  CHECK(json::parse(text) == json::value(content));

  auto failed = rpc(session, "tools/call",
                    R"({"name":"echo","arguments":{"fail":true}})");
  const auto& error_result = failed.at("result").as_object();
  CHECK(error_result.at("isError").as_bool());
  CHECK_FALSE(error_result.contains("structuredContent"));
  auto error = json::parse(error_result.at("content").at(0).at("text")
                             .as_string());
  CHECK(error.at("error").at("code").as_string() == "validation-error");
  CHECK(error.at("error").at("correlationId").as_string().size() == 36);
}

TEST_CASE("the tools/call response text is valid JSON whatever the output "
          "holds",
          "[mcp][tools]") {
  json::object structured{{"name", "Kamppi \"A\"\n\\ \u00e4\u00f6 \xf0\x9f\x9a\x8c"},
                          {"n", 3}, {"list", json::array{1, "two", nullptr}}};
  for (const json::value& id :
       {json::value(7), json::value("req-\"1\""), json::value(-1.5)}) {
    auto ok = json::parse(mcp::call_response_text(id, mcp::success_outcome(structured)))
                .as_object();
    CHECK(ok.at("jsonrpc") == "2.0");
    CHECK(ok.at("id") == id);
    const auto& result = ok.at("result").as_object();
    CHECK(result.at("isError") == false);
    CHECK(result.at("structuredContent") == json::value(structured));
    const auto& block = result.at("content").at(0).as_object();
    CHECK(block.at("type") == "text");
    CHECK(json::parse(block.at("text").as_string()) == json::value(structured));
    CHECK(result.size() == 3);
  }
  auto failed = json::parse(mcp::call_response_text(
                              "x", mcp::error_outcome(make_failure(
                                                   ec::validation_error,
                                                   "bad \"stop\""),
                                                 "cid")))
                  .as_object();
  const auto& result = failed.at("result").as_object();
  CHECK(result.at("isError") == true);
  CHECK_FALSE(result.contains("structuredContent"));
  auto body = json::parse(result.at("content").at(0).at("text").as_string());
  CHECK(body.at("error").at("message") == "bad \"stop\"");
  CHECK(body.at("error").at("correlationId") == "cid");
}

TEST_CASE_METHOD(endpoint_fixture, "protocol errors are JSON-RPC errors",
                 "[mcp][tools]") {
  auto session = initialize();
  CHECK(rpc(session, "tools/call", R"({"name":"nope"})")
          .at("error").at("code").as_int64()
        == -32602);
  CHECK(rpc(session, "tools/call", R"({})").at("error").at("code").as_int64()
        == -32602);
  CHECK(rpc(session, "tools/call", R"({"name":"echo","arguments":[1]})")
          .at("error").at("code").as_int64()
        == -32602);
  CHECK(rpc(session, "prompts/list").at("error").at("code").as_int64()
        == -32601);
}

TEST_CASE_METHOD(endpoint_fixture,
                 "a progress token turns the reply into an SSE stream",
                 "[mcp][tools][sse]") {
  auto session = initialize();
  auto reply = post(R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"progressToken":"p1"}}})",
                    {}, session);
  REQUIRE(reply.status == 200);
  CHECK(reply.content_type == "text/event-stream");
  auto progress = reply.body.find("notifications/progress");
  auto result = reply.body.find("\"result\"");
  REQUIRE(progress != std::string::npos);
  REQUIRE(result != std::string::npos);
  CHECK(progress < result);
  CHECK_THAT(reply.body, Catch::Contains("\"progressToken\":\"p1\""));
}

TEST_CASE_METHOD(endpoint_fixture, "logging/setLevel validates the level",
                 "[mcp][logging]") {
  auto session = initialize();
  CHECK(rpc(session, "logging/setLevel", R"({"level":"debug"})")
          .contains("result"));
  CHECK(rpc(session, "logging/setLevel", R"({"level":"loud"})")
          .at("error").at("code").as_int64()
        == -32602);
}

TEST_CASE_METHOD(endpoint_fixture,
                 "notifications/cancelled stops the call and sends no reply",
                 "[mcp][cancel]") {
  auto session = initialize();
  auto call = std::async(std::launch::async, [&] {
    return post(R"({"jsonrpc":"2.0","id":"long-1","method":"tools/call","params":{"name":"slow","arguments":{}}})",
                {}, session);
  });
  slow_started.get_future().wait();
  auto cancel = post(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"long-1","reason":"user"}})",
                     {}, session);
  CHECK(cancel.status == 202);
  REQUIRE(call.wait_for(std::chrono::seconds{5})
          == std::future_status::ready);
  auto reply = call.get();
  CHECK(slow_saw_cancel);
  // The stream closes without a JSON-RPC response.
  CHECK(reply.body.find("\"result\"") == std::string::npos);
  CHECK(reply.body.find("\"error\"") == std::string::npos);
}

TEST_CASE("the session cap evicts the least recently used idle session",
          "[mcp][sessions]") {
  mcp::endpoint_options options;
  options.max_sessions = 2;
  // A clock that moves only when told: the order of use is explicit.
  auto now = std::make_shared<std::chrono::steady_clock::time_point>();
  options.clock = [now] { return *now; };
  endpoint_fixture f{options};
  auto a = f.initialize();
  *now += std::chrono::milliseconds{1};
  auto b = f.initialize();
  *now += std::chrono::milliseconds{1};
  auto c = f.initialize();
  CHECK(f.endpoint->session_count() == 2);
  auto ping = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  CHECK(f.post(ping, {}, a).status == 404);
  CHECK(f.post(ping, {}, b).status == 200);
  CHECK(f.post(ping, {}, c).status == 200);
}

TEST_CASE("a full session table whose sessions all have calls in flight "
          "refuses a new session with 503",
          "[mcp][sessions]") {
  mcp::endpoint_options options;
  options.max_sessions = 1;
  endpoint_fixture f{options};
  auto busy = f.initialize();
  std::optional<mcp::http_reply> answer;
  f.call_later(busy, 1, answer);
  auto refused = f.post(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})");
  CHECK(refused.status == 503);
  CHECK_THAT(refused.body, Catch::Contains("max-sessions"));
  CHECK(f.endpoint->session_count() == 1);
  // Once the call is done the busy session can make room.
  f.later_answer(0)();
  REQUIRE(answer);
  CHECK(f.initialize() != busy);
  CHECK(f.endpoint->session_count() == 1);
}

namespace {

const std::string alice_token = "alice-token-0123456789abcdef";
const std::string bob_token = "bob-token-0123456789abcdef00";

mcp::endpoint_options with_tokens() {
  auto tokens = std::make_shared<token_table>();
  REQUIRE_FALSE(tokens->add("alice", alice_token));
  REQUIRE_FALSE(tokens->add("bob", bob_token));
  mcp::endpoint_options options;
  options.tokens = tokens;
  return options;
}

using header = std::pair<std::string, std::string>;
const header alice{"authorization", "Bearer " + alice_token};
const header bob{"authorization", "Bearer " + bob_token};

const char* initialize_body = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})";

std::string session_of(const mcp::http_reply& reply) {
  for (const auto& [name, value] : reply.headers)
    if (name == "Mcp-Session-Id")
      return value;
  return {};
}

} // namespace

TEST_CASE("with tokens, every request needs a valid bearer token",
          "[mcp][security][auth]") {
  endpoint_fixture f{with_tokens()};
  auto none = f.post(initialize_body);
  CHECK(none.status == 401);
  CHECK(error_code(none) == -32600);
  bool challenged = false;
  for (const auto& [name, value] : none.headers)
    challenged = challenged
                 || (name == "WWW-Authenticate"
                     && value.rfind("Bearer", 0) == 0);
  CHECK(challenged);
  auto wrong = f.post(initialize_body,
                      {{"authorization", "Bearer not-a-known-token-at-all"}});
  CHECK(wrong.status == 401);
  // The refused token is not echoed back.
  CHECK(wrong.body.find("not-a-known-token") == std::string::npos);
  CHECK(f.post(initialize_body, {{"authorization", "Basic " + alice_token}})
          .status
        == 401);
  CHECK(f.post(initialize_body, {{"authorization", "Bearer " + alice_token}})
          .status
        == 200);
  CHECK(f.post(initialize_body, {{"authorization", "bearer  " + alice_token}})
          .status
        == 200);
}

TEST_CASE("a session id is not an authenticator: another token is refused",
          "[mcp][security][auth]") {
  endpoint_fixture f{with_tokens()};
  auto session = session_of(f.post(initialize_body, {alice}));
  REQUIRE_FALSE(session.empty());
  auto call = R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}})";
  auto own = f.post(call, {alice}, session);
  CHECK(own.status == 200);
  auto stolen = f.post(call, {bob}, session);
  CHECK(stolen.status == 403);
  CHECK(stolen.body.find("another token") != std::string::npos);
  // Without any token the session is no use either.
  CHECK(f.post(call, {}, session).status == 401);
  // Nor can bob end alice's session.
  mcp::http_request del;
  del.method = "DELETE";
  del.headers = {{"host", "127.0.0.1"}, {"mcp-session-id", session}, bob};
  CHECK(f.endpoint->handle(del).status == 403);
  CHECK(f.post(call, {alice}, session).status == 200);
}

TEST_CASE("with tokens, the principal is the token's, across sessions (D17)",
          "[mcp][security][auth]") {
  endpoint_fixture f{with_tokens()};
  auto principal_of = [&](const header& who) {
    auto session = session_of(f.post(initialize_body, {who}));
    auto reply = f.post(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}})",
                        {who}, session);
    REQUIRE(reply.status == 200);
    return std::string{json::parse(reply.body)
                         .at("result")
                         .at("structuredContent")
                         .at("principal")
                         .as_string()};
  };
  auto a1 = principal_of(alice);
  auto a2 = principal_of(alice);
  CHECK(a1 == "user:alice");
  CHECK(a2 == a1);
  CHECK(principal_of(bob) == "user:bob");
}

TEST_CASE("header and argument sizes are bounded", "[mcp][security]") {
  mcp::endpoint_options options;
  options.max_headers = 10;
  options.max_header_bytes = 1024;
  options.max_argument_bytes = 100;
  endpoint_fixture f{options};
  CHECK(f.post(initialize_body, {{"x-big", std::string(2000, 'a')}}).status
        == 431);
  std::vector<std::pair<std::string, std::string>> many;
  for (int i = 0; i < 12; ++i)
    many.emplace_back("x-h" + std::to_string(i), "v");
  CHECK(f.post(initialize_body, many).status == 431);
  auto session = f.initialize();
  auto big = f.rpc(session, "tools/call",
                   R"({"name":"echo","arguments":{"text":")"
                     + std::string(200, 'x') + R"("}})");
  CHECK(big.at("error").at("code").as_int64() == -32602);
  CHECK_THAT(std::string{big.at("error").at("message").as_string()},
             Catch::Contains("at most 100"));
  auto small = f.rpc(session, "tools/call",
                     R"({"name":"echo","arguments":{"text":"ok"}})");
  CHECK(small.contains("result"));
}

TEST_CASE("allowed origins are configurable apart from hosts",
          "[mcp][security]") {
  mcp::endpoint_options options;
  options.allowed_origins = {"https://app.example:8443", "tools.example"};
  endpoint_fixture f{options};
  CHECK(f.post(initialize_body, {{"origin", "https://app.example:8443"}})
          .status
        == 200);
  CHECK(f.post(initialize_body, {{"origin", "https://app.example"}}).status
        == 403);
  CHECK(f.post(initialize_body, {{"origin", "http://tools.example:1"}})
          .status
        == 200);
  // Loopback origins are no longer in the list.
  CHECK(f.post(initialize_body, {{"origin", "http://localhost"}}).status
        == 403);
  // Requests without an Origin (non-browser agents) are unaffected.
  CHECK(f.post(initialize_body).status == 200);
}

TEST_CASE_METHOD(endpoint_fixture,
                 "logging/setLevel: the session gets its calls' log lines as "
                 "notifications/message",
                 "[mcp][logging]") {
  auto session = initialize();
  auto call = R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"chatty","arguments":{}}})";
  // Before setLevel: a plain JSON reply, no log lines.
  auto quiet = post(call, {}, session);
  CHECK(quiet.content_type == "application/json");
  CHECK(quiet.body.find("notifications/message") == std::string::npos);
  rpc(session, "logging/setLevel", R"({"level":"warning"})");
  auto chatty = post(call, {}, session);
  CHECK(chatty.content_type == "text/event-stream");
  CHECK_THAT(chatty.body, Catch::Contains("\"method\":\"notifications/message\""));
  CHECK_THAT(chatty.body, Catch::Contains("\"level\":\"warning\""));
  CHECK_THAT(chatty.body, Catch::Contains("upstream slow, retrying"));
  CHECK_THAT(chatty.body, Catch::Contains("\"level\":\"error\""));
  // The log lines come before the result.
  CHECK(chatty.body.find("notifications/message")
        < chatty.body.find("\"result\""));
  rpc(session, "logging/setLevel", R"({"level":"error"})");
  auto errors_only = post(call, {}, session);
  CHECK(errors_only.body.find("retrying") == std::string::npos);
  CHECK_THAT(errors_only.body, Catch::Contains("upstream failed once"));
  // Another session that set no level is unaffected.
  auto other = initialize();
  CHECK(post(call, {}, other).content_type == "application/json");
}

TEST_CASE_METHOD(endpoint_fixture,
                 "a tool call's reply comes from the thread that finishes "
                 "it, after handle() has returned, exactly once",
                 "[mcp][async]") {
  auto session = initialize();
  auto request = make_request(
    R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"later","arguments":{}}})",
    {}, session);
  std::promise<mcp::http_reply> replied;
  std::atomic<int> replies{0};
  endpoint->handle(request, [&](mcp::http_reply reply) {
    if (++replies == 1)
      replied.set_value(std::move(reply));
  });
  // handle() returned with the call in flight, and no reply yet.
  CHECK(replies == 0);
  REQUIRE(later_count() == 1);
  auto answer = later_answer(0);
  std::thread{answer}.join();
  auto reply = replied.get_future().get();
  CHECK(replies == 1);
  CHECK(reply.status == 200);
  auto body = json::parse(reply.body).as_object();
  CHECK(body.at("id").as_int64() == 7);
  CHECK(body.at("result").at("structuredContent").at("late").as_bool());
  // A second answer is not sent.
  answer();
  CHECK(replies == 1);
}

TEST_CASE_METHOD(endpoint_fixture,
                 "a client that hangs up cancels its call in flight: the "
                 "tool sees the cancellation and no result is sent",
                 "[mcp][async][cancel]") {
  auto session = initialize();
  auto request = make_request(
    R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"later","arguments":{}}})",
    {}, session);
  request.hangup = std::make_shared<mcp::cancellation>();
  std::optional<mcp::http_reply> got;
  endpoint->handle(request, [&](mcp::http_reply reply) { got = reply; });
  CHECK_FALSE(got);
  request.hangup->cancel(); // what the HTTP server does on a hang-up
  REQUIRE(got);
  CHECK(got->body.find("\"result\"") == std::string::npos);
  // The call has left the session: a late answer changes nothing.
  auto answer = later_answer(0);
  got.reset();
  answer();
  CHECK_FALSE(got);
}

// -- MCP 2026-07-28: stateless, beside the session revisions -----------------

namespace {

const std::string modern_meta
  = R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
    R"("io.modelcontextprotocol/clientCapabilities":{}})";

/// A 2026-07-28 request: the body describes itself, the headers mirror it.
mcp::http_request modern_request(
  const std::string& method, const std::string& params_fields = "",
  std::vector<std::pair<std::string, std::string>> extra = {},
  const std::string& name = "", int id = 7) {
  std::vector<std::pair<std::string, std::string>> headers{
    {"mcp-protocol-version", "2026-07-28"}, {"mcp-method", method}};
  if (!name.empty())
    headers.emplace_back("mcp-name", name);
  for (auto& h : extra)
    headers.push_back(h);
  std::string params = "{" + params_fields
                       + (params_fields.empty() ? "" : ",") + modern_meta
                       + "}";
  auto request = endpoint_fixture::make_request(
    R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":")"
      + method + R"(","params":)" + params + "}",
    {});
  // `extra` may remove a header by giving it an empty value.
  for (auto& [k, v] : headers) {
    auto it = std::find_if(request.headers.begin(), request.headers.end(),
                           [&](const auto& h) { return h.first == k; });
    if (it != request.headers.end())
      it->second = v;
    else
      request.headers.emplace_back(k, v);
  }
  request.headers.erase(
    std::remove_if(request.headers.begin(), request.headers.end(),
                   [](const auto& h) { return h.second == "<absent>"; }),
    request.headers.end());
  return request;
}

json::object body_of(const mcp::http_reply& reply) {
  INFO(reply.body);
  return json::parse(reply.body).as_object();
}

std::string header_of(const mcp::http_reply& reply, const std::string& name) {
  for (const auto& [k, v] : reply.headers)
    if (k == name)
      return v;
  return {};
}

} // namespace

TEST_CASE_METHOD(endpoint_fixture,
                 "2026-07-28: server/discover describes the server, without "
                 "a session",
                 "[mcp][stateless]") {
  auto reply = endpoint->handle(modern_request("server/discover"));
  REQUIRE(reply.status == 200);
  CHECK(header_of(reply, "Mcp-Session-Id").empty());
  CHECK(endpoint->session_count() == 0);
  auto body = body_of(reply);
  CHECK(body.at("id").as_int64() == 7);
  const auto& result = body.at("result").as_object();
  CHECK(result.at("resultType").as_string() == "complete");
  CHECK(result.at("supportedVersions").as_array()
        == json::array{"2026-07-28"});
  CHECK(result.at("capabilities").as_object()
        == json::object{
          {"tools", json::object{}},
          {"resources", json::object{}},
          {"extensions",
           json::object{{"io.modelcontextprotocol/ui",
                         json::object{{"mimeTypes",
                                       json::array{
                                         "text/html;profile=mcp-app"}}}}}}});
  CHECK(result.at("ttlMs").as_int64() == 3600000);
  CHECK(result.at("cacheScope").as_string() == "public");
  CHECK(result.at("_meta")
          .at("io.modelcontextprotocol/serverInfo")
          .at("name")
          .as_string()
        == "transitd");
  CHECK_THAT(std::string{result.at("instructions").as_string()},
             Catch::Contains("Regions served"));
}

TEST_CASE_METHOD(endpoint_fixture,
                 "2026-07-28: tools/list carries cache hints and resultType",
                 "[mcp][stateless]") {
  auto reply = endpoint->handle(modern_request("tools/list"));
  REQUIRE(reply.status == 200);
  auto body = body_of(reply);
  const auto& result = body.at("result").as_object();
  CHECK(result.at("tools").as_array().size() == 4);
  CHECK(result.at("ttlMs").as_int64() == 3600000);
  CHECK(result.at("cacheScope").as_string() == "public");
  CHECK(result.at("resultType").as_string() == "complete");
  // A session's tools/list has none of the 2026-07-28 fields.
  auto legacy = rpc(initialize(), "tools/list");
  CHECK_FALSE(legacy.at("result").as_object().contains("ttlMs"));
  CHECK_FALSE(legacy.at("result").as_object().contains("resultType"));
}

TEST_CASE_METHOD(endpoint_fixture,
                 "2026-07-28: tools/call answers with resultType and the "
                 "server's identity; the caller is `local`",
                 "[mcp][stateless]") {
  auto reply = endpoint->handle(
    modern_request("tools/call", R"("name":"echo","arguments":{"x":1})", {},
                   "echo"));
  REQUIRE(reply.status == 200);
  CHECK(reply.content_type == "application/json");
  auto body = body_of(reply);
  const auto& result = body.at("result").as_object();
  CHECK(result.at("resultType").as_string() == "complete");
  CHECK(result.at("isError").as_bool() == false);
  CHECK(result.at("structuredContent").at("principal").as_string()
        == "local");
  CHECK(result.at("_meta")
          .at("io.modelcontextprotocol/serverInfo")
          .at("version")
          .is_string());
  // A stale Mcp-Session-Id on a 2026-07-28 request is ignored.
  auto with_session = endpoint->handle(
    modern_request("tools/call", R"("name":"echo","arguments":{})",
                   {{"mcp-session-id", "no-such-session"}}, "echo"));
  CHECK(with_session.status == 200);
  CHECK(header_of(with_session, "Mcp-Session-Id").empty());
  CHECK(endpoint->session_count() == 0);
}

TEST_CASE_METHOD(endpoint_fixture,
                 "2026-07-28: a request missing _meta keys is 400 with "
                 "-32602, naming them",
                 "[mcp][stateless]") {
  // The header names 2026-07-28 but the body has no _meta: not a session
  // request either.
  auto bare = post(R"({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}})",
                   {{"mcp-protocol-version", "2026-07-28"},
                    {"mcp-method", "tools/list"}});
  CHECK(bare.status == 400);
  CHECK(error_code(bare) == -32602);
  CHECK(body_of(bare).at("id").as_int64() == 3);
  CHECK_THAT(bare.body, Catch::Contains("io.modelcontextprotocol/protocolVersion"));
  // A version but no client capabilities.
  auto partial = post(
    R"({"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})",
    {{"mcp-protocol-version", "2026-07-28"}, {"mcp-method", "tools/list"}});
  CHECK(partial.status == 400);
  CHECK(error_code(partial) == -32602);
  CHECK_THAT(partial.body,
             Catch::Contains("io.modelcontextprotocol/clientCapabilities"));
}

TEST_CASE_METHOD(endpoint_fixture,
                 "2026-07-28: standard headers must mirror the body (-32020)",
                 "[mcp][stateless]") {
  auto refused = [&](mcp::http_request request, const std::string& says) {
    auto reply = endpoint->handle(request);
    CHECK(reply.status == 400);
    CHECK(error_code(reply) == -32020);
    CHECK(body_of(reply).at("id").as_int64() == 7);
    CHECK_THAT(reply.body, Catch::Contains(says));
  };
  refused(modern_request("tools/list", "",
                         {{"mcp-protocol-version", "<absent>"}}),
          "MCP-Protocol-Version header required");
  refused(modern_request("tools/list", "",
                         {{"mcp-protocol-version", "2025-11-25"}}),
          "does not match body value '2026-07-28'");
  refused(modern_request("tools/list", "", {{"mcp-method", "<absent>"}}),
          "Mcp-Method header required");
  refused(modern_request("tools/list", "", {{"mcp-method", "TOOLS/LIST"}}),
          "Mcp-Method header value 'TOOLS/LIST'");
  refused(modern_request("tools/call", R"("name":"echo","arguments":{})"),
          "Mcp-Name header required");
  refused(modern_request("tools/call", R"("name":"echo","arguments":{})", {},
                         "chatty"),
          "Mcp-Name header value 'chatty' does not match body value 'echo'");
  refused(modern_request("tools/call", R"("name":"echo","arguments":{})", {},
                         "=?base64?ZWNo!!!?="),
          "not valid =?base64?...?= text");
  // Whitespace around a value is not part of it; base64 is decoded.
  auto padded = endpoint->handle(modern_request(
    "tools/call", R"("name":"echo","arguments":{})", {}, "  echo\t"));
  CHECK(padded.status == 200);
  auto encoded = endpoint->handle(modern_request(
    "tools/call", R"("name":"echo","arguments":{})", {}, "=?base64?ZWNobw==?="));
  CHECK(encoded.status == 200);
}

TEST_CASE_METHOD(endpoint_fixture,
                 "2026-07-28: an unsupported version is -32022 listing what "
                 "is served",
                 "[mcp][stateless]") {
  auto request = modern_request("tools/list", "",
                                {{"mcp-protocol-version", "2099-01-01"}});
  auto at = request.body.find("2026-07-28");
  request.body.replace(at, 10, "2099-01-01");
  auto reply = endpoint->handle(request);
  CHECK(reply.status == 400);
  auto body = body_of(reply);
  CHECK(body.at("error").at("code").as_int64() == -32022);
  CHECK(body.at("error").at("data").at("requested").as_string()
        == "2099-01-01");
  CHECK(body.at("error").at("data").at("supported").as_array()
        == json::array{"2026-07-28"});
}

TEST_CASE_METHOD(endpoint_fixture,
                 "2026-07-28: initialize, ping, logging and resources are "
                 "404 with -32601",
                 "[mcp][stateless]") {
  for (auto method : {"initialize", "ping", "logging/setLevel",
                      "resources/subscribe", "prompts/list",
                      "subscriptions/listen", "unknown/method"}) {
    auto reply = endpoint->handle(modern_request(method));
    INFO(method);
    CHECK(reply.status == 404);
    CHECK(error_code(reply) == -32601);
    CHECK(body_of(reply).at("id").as_int64() == 7);
  }
  CHECK(endpoint->session_count() == 0);
  // A notification is accepted and needs no session.
  auto note = post(R"({"jsonrpc":"2.0","method":"notifications/initialized","params":{)"
                     + modern_meta + "}}",
                   {{"mcp-protocol-version", "2026-07-28"}});
  CHECK(note.status == 202);
}

TEST_CASE_METHOD(endpoint_fixture,
                 "2026-07-28: progress and log lines stream on the call's own "
                 "reply",
                 "[mcp][stateless]") {
  auto request = modern_request(
    "tools/call", R"("name":"chatty","arguments":{})", {}, "chatty");
  auto at = request.body.find("\"_meta\":{");
  request.body.insert(at + 9, R"("progressToken":"p1","io.modelcontextprotocol/logLevel":"warning",)");
  auto reply = endpoint->handle(request);
  REQUIRE(reply.status == 200);
  CHECK(reply.content_type == "text/event-stream");
  CHECK_THAT(reply.body, Catch::Contains(R"("progressToken":"p1")"));
  CHECK_THAT(reply.body, Catch::Contains("upstream slow, retrying"));
  CHECK_THAT(reply.body, Catch::Contains(R"("resultType":"complete")"));
  // A client that takes JSON only gets the result alone.
  auto json_only = request;
  for (auto& [k, v] : json_only.headers)
    if (k == "accept")
      v = "application/json";
  auto plain = endpoint->handle(json_only);
  CHECK(plain.content_type == "application/json");
  CHECK_THAT(plain.body, !Catch::Contains("notifications/"));
  CHECK(body_of(plain).at("result").at("isError").as_bool() == false);
}

TEST_CASE_METHOD(endpoint_fixture,
                 "Accept must admit JSON or SSE (406 otherwise), either one "
                 "suffices",
                 "[mcp][accept]") {
  auto list = [&](const std::string& accept) {
    return endpoint->handle(modern_request("tools/list", "",
                                           {{"accept", accept}}));
  };
  CHECK(list("text/html").status == 406);
  CHECK(list("application/json;q=0, text/html").status == 406);
  CHECK(list("application/json").status == 200);
  CHECK(list("text/event-stream").status == 200);
  CHECK(list("*/*").status == 200);
  CHECK(list("application/*;q=0.5").status == 200);
  // The session revisions follow the same rule.
  auto refused = post(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}})",
                      {{"accept", "image/png"}});
  CHECK(refused.status == 406);
}

TEST_CASE_METHOD(endpoint_fixture,
                 "the core takes a 2026-07-28 request with no header, and a "
                 "transport with one client cancels it by naming its id",
                 "[mcp][stateless][core]") {
  mcp::peer from;
  from.cancels_by_id = true;
  auto body = R"({"jsonrpc":"2.0","id":"s1","method":"tools/call","params":{"name":"slow","arguments":{},)"
              + modern_meta + "}}";
  std::optional<mcp::answer> got;
  std::mutex m;
  std::thread call{[&] {
    auto result = to_core(body, from);
    std::lock_guard<std::mutex> guard{m};
    got = std::move(result);
  }};
  slow_started.get_future().wait();
  auto cancel = R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s1",)"
                + modern_meta + "}}";
  CHECK(to_core(cancel, from).kind == mcp::answer_kind::accepted);
  call.join();
  CHECK(slow_saw_cancel);
  std::lock_guard<std::mutex> guard{m};
  REQUIRE(got);
  CHECK(got->message.empty()); // a cancelled call gets no response
}

TEST_CASE_METHOD(endpoint_fixture,
                 "the core refuses a message outside a session in the "
                 "transport's own terms, naming no header",
                 "[mcp][core]") {
  auto result = to_core(
    R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}})",
    mcp::peer{});
  CHECK(result.kind == mcp::answer_kind::invalid);
  CHECK_THAT(result.message, Catch::Contains("send initialize first"));
  CHECK_THAT(result.message, !Catch::Contains("header"));
  // Over HTTP the same message names the header it lacks.
  auto reply = post(R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}})");
  CHECK(reply.status == 400);
  CHECK_THAT(reply.body, Catch::Contains("Mcp-Session-Id header required"));
}

TEST_CASE("2026-07-28: Mcp-Param headers of x-mcp-header fields mirror "
          "the body",
          "[mcp][stateless][headers]") {
  mcp::tool_catalog catalog;
  mcp::tool_spec find;
  find.name = "find";
  find.description = "d";
  find.input = mcp::field::object(
    {}, {mcp::field::string("station").header("Station"),
         mcp::field::integer("limit", {1, 10, 5}).header("Limit")});
  find.output_schema = mcp::schema_object({}, {});
  find.run = [](const json::object&, call_context&,
                const std::shared_ptr<mcp::cancellation>&,
                mcp::tool_done done) {
    done(mcp::success_outcome(json::object{}));
  };
  catalog.add(find);
  mcp::endpoint ep{mcp::endpoint_options{}, catalog};
  // tools/list declares the header.
  auto list = body_of(ep.handle(modern_request("tools/list")));
  CHECK(list.at("result").at("tools").at(0).at("inputSchema").at("properties")
          .at("station").at("x-mcp-header").as_string() == "Station");
  auto call = [&](const std::string& args,
                  std::vector<std::pair<std::string, std::string>> headers) {
    return ep.handle(modern_request("tools/call",
                                    R"("name":"find","arguments":)" + args,
                                    std::move(headers), "find"));
  };
  CHECK(call(R"({"station":"Bank"})", {{"mcp-param-station", "Bank"}}).status
        == 200);
  CHECK(call(R"({"station":"Bänk"})",
             {{"mcp-param-station", "=?base64?QsOkbms=?="}})
          .status
        == 200);
  CHECK(call(R"({"limit":7})", {{"mcp-param-limit", "07"}}).status == 200);
  CHECK(call(R"({})", {}).status == 200); // nothing to mirror
  auto missing = call(R"({"station":"Bank"})", {});
  CHECK(missing.status == 400);
  CHECK(error_code(missing) == -32020);
  CHECK_THAT(missing.body, Catch::Contains("Mcp-Param-Station header required"));
  auto wrong = call(R"({"station":"Bank"})", {{"mcp-param-station", "Oval"}});
  CHECK(error_code(wrong) == -32020);
  auto broken = call(R"({"station":"Bank"})",
                     {{"mcp-param-station", "=?base64?QmFuaw?="}});
  CHECK(error_code(broken) == -32020);
  CHECK_THAT(broken.body, Catch::Contains("not valid"));
}

// -- MCP Apps: the views as resources -------------------------------------------

TEST_CASE_METHOD(endpoint_fixture,
                 "a session lists and reads the views; initialize declares "
                 "resources and the ui extension",
                 "[mcp][views]") {
  auto init = post(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  auto caps = json::parse(init.body).at("result").at("capabilities");
  CHECK(caps.at("resources").at("listChanged") == false);
  CHECK(caps.at("extensions")
          .at("io.modelcontextprotocol/ui")
          .at("mimeTypes")
        == json::array{"text/html;profile=mcp-app"});
  auto session = initialize();
  auto listed = rpc(session, "resources/list").at("result");
  const auto& resources = listed.at("resources").as_array();
  REQUIRE(resources.size() == 3);
  std::vector<std::string> uris;
  for (const auto& r : resources) {
    uris.emplace_back(r.at("uri").as_string());
    CHECK(r.at("mimeType") == "text/html;profile=mcp-app");
    CHECK_FALSE(r.at("description").as_string().empty());
  }
  CHECK(uris == std::vector<std::string>{"ui://transitd/departures",
                                         "ui://transitd/trip",
                                         "ui://transitd/lines"});
  for (const auto& uri : uris) {
    auto read = rpc(session, "resources/read",
                    R"({"uri":")" + uri + R"("})")
                  .at("result");
    const auto& contents = read.at("contents").as_array();
    REQUIRE(contents.size() == 1);
    CHECK(contents[0].at("uri") == uri.c_str());
    CHECK(contents[0].at("mimeType") == "text/html;profile=mcp-app");
    // No domains declared: the host allows the view no network.
    CHECK(contents[0].at("_meta").at("ui").at("csp") == json::object{});
    std::string html{contents[0].at("text").as_string()};
    CHECK_THAT(html, Catch::StartsWith("<!doctype html>"));
    CHECK_THAT(html, Catch::Contains("default-src 'none'"));
    // Each document stands alone: the shared parts were included.
    CHECK_THAT(html, Catch::Contains("ui/initialize"));
    CHECK(html.find("@include") == std::string::npos);
  }
  CHECK(rpc(session, "resources/templates/list")
          .at("result").at("resourceTemplates") == json::array{});
}

TEST_CASE_METHOD(endpoint_fixture,
                 "resources/read of an unknown uri is -32002 naming the "
                 "views; a bad request is -32602",
                 "[mcp][views]") {
  auto session = initialize();
  auto unknown = rpc(session, "resources/read",
                     R"({"uri":"ui://transitd/nope"})");
  CHECK(unknown.at("error").at("code").as_int64() == -32002);
  CHECK_THAT(std::string{unknown.at("error").at("message").as_string()},
             Catch::Contains("ui://transitd/departures"));
  CHECK(unknown.at("error").at("data").at("uri") == "ui://transitd/nope");
  CHECK(rpc(session, "resources/read", R"({})")
          .at("error").at("code").as_int64() == -32602);
  CHECK(rpc(session, "resources/read", R"({"uri":7})")
          .at("error").at("code").as_int64() == -32602);
  CHECK(rpc(session, "resources/list", R"({"cursor":"1"})")
          .at("error").at("code").as_int64() == -32602);
}

TEST_CASE_METHOD(endpoint_fixture,
                 "2026-07-28: resources/list and resources/read without a "
                 "session, with cache hints",
                 "[mcp][views][stateless]") {
  auto listed = body_of(endpoint->handle(modern_request("resources/list")));
  const auto& result = listed.at("result").as_object();
  CHECK(result.at("resources").as_array().size() == 3);
  CHECK(result.at("cacheScope") == "public");
  CHECK(result.at("resultType") == "complete");
  auto read = body_of(endpoint->handle(
    modern_request("resources/read", R"("uri":"ui://transitd/trip")", {},
                   "ui://transitd/trip")));
  CHECK(read.at("result").at("contents").at(0).at("uri")
        == "ui://transitd/trip");
  auto missing = body_of(endpoint->handle(
    modern_request("resources/read", R"("uri":"ui://x")", {}, "ui://x")));
  // SEP-2164: invalid params naming the uri (sessions keep -32002).
  CHECK(missing.at("error").at("code").as_int64() == -32602);
  CHECK(missing.at("error").at("data").at("uri") == "ui://x");
}
