// connection_server over real sockets on 127.0.0.1: what any server built
// on it (the daemon's listener, the mock upstream) gets from it without
// asking: the head budget ends with the headers, a handler_scope lifts the
// request deadline while its handler works, shut_down() ends idle
// keep-alive waits; a streamed reply holds no worker.

#include "transitd/net/connection_server.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <catch2/catch.hpp>
#include <httplib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "tests/support/moving_clock.hpp"
#include "tests/support/raw_client.hpp"

using namespace transitd;
using namespace std::chrono_literals;

namespace {

constexpr std::size_t big_reply = 32 * 1024 * 1024;

/// A reply body the test produces part by part, as a tool call's event
/// stream would: readable while it has news.
struct test_source {
  int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  std::mutex mutex;
  std::string pending;
  bool ended = false;
  std::promise<void> abandoned;

  ~test_source() {
    ::close(fd);
  }
  void signal() {
    std::uint64_t one = 1;
    [[maybe_unused]] auto n = ::write(fd, &one, sizeof(one));
  }
  void push(const std::string& text) {
    std::lock_guard<std::mutex> lock{mutex};
    pending += text;
    signal();
  }
  void end() {
    std::lock_guard<std::mutex> lock{mutex};
    ended = true;
    signal();
  }
  bool take(std::string& out) {
    std::uint64_t count;
    [[maybe_unused]] auto n = ::read(fd, &count, sizeof(count));
    std::lock_guard<std::mutex> lock{mutex};
    out.clear();
    out.swap(pending);
    if (ended)
      signal();
    return !ended || !out.empty();
  }
};

struct served {
  test::moving_clock clock;
  std::unique_ptr<connection_server> server;
  std::thread thread;
  int port = 0;

  /// The reply of GET /stream, streamed by the loop.
  std::shared_ptr<test_source> source = std::make_shared<test_source>();

  served(connection_limits limits, std::chrono::milliseconds keep_alive,
         std::size_t workers = 0) {
    limits.clock = clock.function();
    server = std::make_unique<connection_server>(limits, keep_alive);
    if (workers > 0)
      server->new_task_queue = [workers] {
        return new httplib::ThreadPool(workers);
      };
    server->Get("/stream", [this](const httplib::Request&,
                                  httplib::Response&) {
      reply_source from;
      from.fd = source->fd;
      from.take = [s = source](std::string& out) { return s->take(out); };
      from.abandon = [s = source] { s->abandoned.set_value(); };
      REQUIRE(http_connection::current()->stream_reply(
        200, "text/event-stream", {{"X-Test", "1"}}, false, std::move(from)));
    });
    server->Post("/echo", [](const httplib::Request& req,
                             httplib::Response& res) {
      res.set_content(std::to_string(req.body.size()), "text/plain");
    });
    // Slow handlers with a reply too big for the socket buffers, so that
    // sending it has to wait, and the deadline decides.
    server->Get("/slow-scoped", [this](const httplib::Request&,
                                       httplib::Response& res) {
      handler_scope handling;
      clock.advance(60s); // the handler "takes" a minute
      res.set_content(std::string(big_reply, 'r'), "text/plain");
    });
    server->Get("/slow", [this](const httplib::Request&,
                                httplib::Response& res) {
      clock.advance(60s);
      res.set_content(std::string(big_reply, 'r'), "text/plain");
    });
    port = server->bind_to_any_port("127.0.0.1");
    REQUIRE(port > 0);
    thread = std::thread{[this] { server->listen_after_bind(); }};
    while (!server->is_running())
      std::this_thread::yield();
  }
  ~served() {
    if (thread.joinable()) {
      server->shut_down();
      thread.join();
    }
  }
};

connection_limits limits(std::chrono::milliseconds request_timeout,
                         std::size_t max_head_bytes = 24 * 1024) {
  connection_limits l;
  l.read_timeout = 5s;
  l.write_timeout = 5s;
  l.request_timeout = request_timeout;
  l.max_head_bytes = max_head_bytes;
  return l;
}

} // namespace

TEST_CASE("the head budget ends with the headers: a body beyond it is read",
          "[http][connection_server]") {
  served s{limits(5s, 1024), 5s};
  httplib::Client client{"127.0.0.1", s.port};
  client.set_read_timeout(10, 0);
  auto res = client.Post("/echo", std::string(10000, 'x'), "text/plain");
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(res->body == "10000");
  // The head itself is still bounded: 431, and the connection closes.
  httplib::Headers big{{"X-Filler", std::string(2000, 'h')}};
  auto refused = client.Post("/echo", big, "x", "text/plain");
  REQUIRE(refused);
  CHECK(refused->status == 431);
}

TEST_CASE("a handler_scope lets its handler outlast the request deadline",
          "[http][connection_server]") {
  // The handlers move the server's clock a minute on: past the request
  // deadline (30 s), while the reply's own 30 s leave real time to spare.
  served s{limits(30s), 5s};
  httplib::Client client{"127.0.0.1", s.port};
  client.set_read_timeout(60, 0);
  // The reply gets a deadline of its own (30 s) once the handler is done.
  auto scoped = client.Get("/slow-scoped");
  REQUIRE(scoped);
  CHECK(scoped->status == 200);
  CHECK(scoped->body.size() == big_reply);
  // Without one, the request's deadline has passed by the time the reply is
  // due: what the socket buffers take goes out, then the connection closes.
  auto unscoped = client.Get("/slow");
  CHECK_FALSE(unscoped);
}

TEST_CASE("shut_down() ends idle keep-alive waits at once",
          "[http][connection_server]") {
  served s{limits(5s), std::chrono::hours{1}};
  httplib::Client client{"127.0.0.1", s.port};
  client.set_keep_alive(true);
  auto res = client.Post("/echo", "abc", "text/plain");
  REQUIRE(res);
  CHECK(res->body == "3");
  // The connection now waits (for an hour) for its next request.
  s.server->shut_down();
  auto joined = std::async(std::launch::async, [&s] { s.thread.join(); });
  // A bound so that a regression fails instead of hanging the suite.
  REQUIRE(joined.wait_for(20s) == std::future_status::ready);
}

TEST_CASE("a streamed reply holds no worker: the loop sends each part as it "
          "comes, then the connection serves its next request",
          "[http][connection_server][stream]") {
  // One worker: were it held by the stream, nothing else would be served.
  served s{limits(5s), 5s, 1};
  test::raw_client streamed{s.port};
  REQUIRE(streamed.send("GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  auto head = streamed.receive();
  CHECK_THAT(head, Catch::StartsWith("HTTP/1.1 200 OK\r\n"));
  CHECK_THAT(head, Catch::Contains("Transfer-Encoding: chunked\r\n"));
  CHECK_THAT(head, Catch::Contains("X-Test: 1\r\n"));
  CHECK_THAT(head, Catch::Contains("Content-Type: text/event-stream\r\n"));
  CHECK_THAT(head, Catch::EndsWith("\r\n\r\n")); // no part yet

  httplib::Client other{"127.0.0.1", s.port};
  other.set_read_timeout(10, 0);
  auto res = other.Post("/echo", "abcd", "text/plain");
  REQUIRE(res);
  CHECK(res->body == "4");

  s.source->push("data: one\n\n");
  CHECK(streamed.receive() == "b\r\ndata: one\n\n\r\n");
  res = other.Post("/echo", "ab", "text/plain");
  REQUIRE(res);
  CHECK(res->body == "2");
  s.source->push("data: two\n\n");
  s.source->end();
  std::string rest;
  while (rest.find("0\r\n\r\n") == std::string::npos) {
    auto got = streamed.receive();
    REQUIRE_FALSE(got.empty());
    rest += got;
  }
  CHECK(rest == "b\r\ndata: two\n\n\r\n0\r\n\r\n");
  // Kept alive: the same connection serves its next request.
  REQUIRE(streamed.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        "Content-Length: 3\r\n\r\nxyz"));
  CHECK_THAT(streamed.receive(), Catch::Contains("\r\n\r\n3"));
  CHECK(s.server->stats().streaming == 0);
}

TEST_CASE("a client that hangs up mid-stream abandons the stream's source",
          "[http][connection_server][stream]") {
  served s{limits(5s), 5s, 1};
  auto abandoned = s.source->abandoned.get_future();
  {
    test::raw_client streamed{s.port};
    REQUIRE(streamed.send("GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
    CHECK_THAT(streamed.receive(), Catch::StartsWith("HTTP/1.1 200 OK"));
    s.source->push("data: one\n\n");
    CHECK(streamed.receive() == "b\r\ndata: one\n\n\r\n");
    CHECK(s.server->stats().streaming == 1);
  } // hangs up
  // A bound so that a regression fails instead of hanging the suite.
  REQUIRE(abandoned.wait_for(10s) == std::future_status::ready);
}
