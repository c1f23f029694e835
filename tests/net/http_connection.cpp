// The connection stream over a socketpair: buffered reads, coalesced
// writes, the head budget, the request deadline and the stop signal.

#include "transitd/net/http_connection.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "tests/support/moving_clock.hpp"

using namespace transitd;
using namespace std::chrono_literals;

namespace {

/// Two connected sockets: ours (served by http_connection) and the peer's.
struct socket_pair {
  int ours = -1;
  int peer = -1;
  socket_pair() {
    int fds[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
    ours = fds[0];
    peer = fds[1];
  }
  ~socket_pair() {
    ::close(ours);
    if (peer >= 0)
      ::close(peer);
  }
  void send(const std::string& bytes) const {
    REQUIRE(::send(peer, bytes.data(), bytes.size(), MSG_NOSIGNAL)
            == static_cast<ssize_t>(bytes.size()));
  }
  /// What the peer can read right now, without waiting.
  std::string pending() const {
    std::string got;
    char buf[4096];
    ssize_t n;
    while ((n = ::recv(peer, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
      got.append(buf, static_cast<std::size_t>(n));
    return got;
  }
};

std::string read_all(http_connection& c, std::size_t size) {
  std::string got;
  char buf[7];
  while (got.size() < size) {
    auto n = c.read(buf, std::min(sizeof(buf), size - got.size()));
    if (n <= 0)
      break;
    got.append(buf, static_cast<std::size_t>(n));
  }
  return got;
}


connection_limits quick() {
  connection_limits limits;
  limits.read_timeout = 2s;
  limits.write_timeout = 2s;
  limits.request_timeout = 5s;
  limits.max_head_bytes = 64;
  return limits;
}

} // namespace

TEST_CASE("reads come out of one buffer, in order, until the peer closes",
          "[http][connection]") {
  socket_pair s;
  http_connection c{s.ours, -1, quick()};
  c.begin_request();
  s.send("GET / HTTP/1.1\r\n");
  CHECK(c.is_readable());
  CHECK(read_all(c, 16) == "GET / HTTP/1.1\r\n");
  ::close(s.peer);
  s.peer = -1;
  char byte;
  CHECK(c.read(&byte, 1) == 0);
}

TEST_CASE("the writes of one reply leave together, at flush",
          "[http][connection]") {
  socket_pair s;
  http_connection c{s.ours, -1, quick()};
  CHECK(c.write("HTTP/1.1 200 OK\r\n", 17) == 17);
  CHECK(c.write("\r\nbody", 6) == 6);
  CHECK(s.pending().empty());
  REQUIRE(c.flush());
  CHECK(s.pending() == "HTTP/1.1 200 OK\r\n\r\nbody");
  // A 100 Continue owed goes out before the connection waits to read.
  CHECK(c.write("HTTP/1.1 100 Continue\r\n\r\n", 25) == 25);
  s.send("x");
  char byte;
  CHECK(c.read(&byte, 1) == 1);
  CHECK(s.pending() == "HTTP/1.1 100 Continue\r\n\r\n");
}

TEST_CASE("a request head over its budget closes the connection; a body "
          "is not counted",
          "[http][connection][security]") {
  socket_pair s;
  http_connection c{s.ours, -1, quick()}; // 64 bytes of head
  c.begin_request();
  s.send(std::string(100, 'h'));
  std::size_t taken = 0;
  char byte;
  while (c.read(&byte, 1) == 1)
    ++taken;
  CHECK(taken == 64);
  CHECK(c.read(&byte, 1) == -1);
  CHECK_FALSE(c.is_writable());

  socket_pair t;
  http_connection d{t.ours, -1, quick()};
  d.begin_request();
  t.send(std::string(60, 'h'));
  CHECK(read_all(d, 60).size() == 60);
  d.end_head(true); // a body of stated length: httplib bounds it
  t.send(std::string(1000, 'b'));
  CHECK(read_all(d, 1000).size() == 1000);
  // A body without a stated length has its own budget.
  auto limits = quick();
  limits.max_unsized_body_bytes = 500;
  socket_pair u;
  http_connection e{u.ours, -1, limits};
  e.begin_request();
  u.send(std::string(60, 'h'));
  CHECK(read_all(e, 60).size() == 60);
  e.end_head(false);
  u.send(std::string(1000, 'b'));
  std::size_t body = 0;
  while (e.read(&byte, 1) == 1)
    ++body;
  CHECK(body == 500);
  // The next request has the whole budget again.
  d.begin_request();
  t.send(std::string(64, 'h'));
  CHECK(read_all(d, 64).size() == 64);
}

TEST_CASE("a client trickling a request is cut off at the request deadline",
          "[http][connection][security]") {
  socket_pair s;
  test::moving_clock clock;
  auto limits = quick();
  limits.read_timeout = 2s;       // each byte arrives well within this...
  limits.request_timeout = 300ms; // ...but the whole request takes too long
  limits.max_head_bytes = 1024;
  limits.clock = clock.function();
  http_connection c{s.ours, -1, limits};
  c.begin_request();
  // One byte each 50 ms (on the moving clock): the 7th is past the deadline.
  std::string got;
  for (int i = 0; i < 100; ++i) {
    s.send("x");
    char byte;
    if (c.read(&byte, 1) != 1)
      break;
    got += byte;
    clock.advance(50ms);
  }
  // (At most: the moving clock also runs with real time.)
  CHECK(got.size() <= 6);
  char byte;
  CHECK(c.read(&byte, 1) == -1);
}

TEST_CASE("a client that does not read its reply is dropped at the "
          "deadline",
          "[http][connection][security]") {
  socket_pair s;
  auto limits = quick();
  limits.write_timeout = 2s;
  limits.request_timeout = 300ms;
  http_connection c{s.ours, -1, limits};
  c.begin_request();
  c.begin_handler();
  c.end_handler();
  // Far more than the socket buffers hold; the peer reads nothing.
  std::string reply(16 * 1024 * 1024, 'r');
  c.write(reply.data(), reply.size());
  CHECK_FALSE(c.flush());
  CHECK_FALSE(c.is_writable());
}

TEST_CASE("waiting for the next request ends on the stop signal, at close "
          "and on pipelined bytes",
          "[http][connection]") {
  int stop = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  REQUIRE(stop >= 0);
  {
    socket_pair s;
    http_connection c{s.ours, stop, quick()};
    std::uint64_t one = 1;
    REQUIRE(::write(stop, &one, sizeof(one)) == sizeof(one));
    // An hour of keep-alive, cut short by the stop signal.
    CHECK_FALSE(c.await_request(std::chrono::hours{1}));
  }
  ::close(stop);
  {
    socket_pair s;
    http_connection c{s.ours, -1, quick()};
    s.send("GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n");
    REQUIRE(c.await_request(1s));
    c.begin_request();
    CHECK(read_all(c, 19) == "GET /a HTTP/1.1\r\n\r\n");
    // The second request is already buffered.
    CHECK(c.await_request(1s));
    CHECK(read_all(c, 19) == "GET /b HTTP/1.1\r\n\r\n");
    ::close(s.peer);
    s.peer = -1;
    CHECK_FALSE(c.await_request(1s));
  }
}

// -- Deferred replies: written by another thread after the handler returned.

namespace {

const std::string keep_alive = "timeout=5, max=100";

/// Returns once the connection's thread waits for `reply`; gives up after
/// a generous 10 s (the test then fails on what follows, never hangs).
void wait_until_waited_for(deferred_reply& reply) {
  auto give_up = std::chrono::steady_clock::now() + 10s;
  while (!reply.owner_waiting() && std::chrono::steady_clock::now() < give_up)
    std::this_thread::yield();
}

/// Delivers `body` as a 200 application/json reply from another thread;
/// with `when_waited_for`, only once the connection's thread is blocked
/// waiting for it (so that the delivery must wake it).
std::thread deliver_later(std::shared_ptr<deferred_reply> reply,
                          std::string body, bool when_waited_for = false) {
  return std::thread{[reply = std::move(reply), body = std::move(body),
                      when_waited_for] {
    if (when_waited_for)
      wait_until_waited_for(*reply);
    reply->deliver(200, "application/json", {{"Mcp-Session-Id", "s1"}},
                   body);
  }};
}

/// Starts a request on `c` and defers its reply.
std::shared_ptr<deferred_reply>
defer_request(http_connection& c, bool close = false, bool last = false,
              std::function<void()> on_abandon = [] {}) {
  c.begin_request(last);
  auto reply = c.defer(close, std::move(on_abandon));
  REQUIRE(reply);
  return reply;
}

/// Everything the peer receives until `size` bytes or the 10-s bound.
std::string receive(int fd, std::size_t size) {
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  std::string got;
  std::vector<char> buf(64 * 1024);
  while (got.size() < size) {
    auto n = ::recv(fd, buf.data(), buf.size(), 0);
    if (n <= 0)
      break;
    got.append(buf.data(), static_cast<std::size_t>(n));
  }
  return got;
}

} // namespace

TEST_CASE("a deferred reply goes out from the delivering thread, formatted "
          "as httplib would; what httplib writes for the request is dropped",
          "[http][connection][deferred]") {
  socket_pair s;
  http_connection c{s.ours, -1, quick(), nullptr, keep_alive};
  bool abandoned = false;
  auto reply = defer_request(c, false, false, [&] { abandoned = true; });
  // httplib's own reply to the deferred request goes nowhere.
  const std::string ignored = "HTTP/1.1 200 OK\r\n\r\n";
  CHECK(c.write(ignored.data(), ignored.size())
        == static_cast<ssize_t>(ignored.size()));
  CHECK(c.flush());
  CHECK(s.pending().empty());
  deliver_later(reply, "{}").join();
  // Sent by the delivering thread: nothing on this one ran.
  CHECK(s.pending()
        == "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
           "Content-Type: application/json\r\n"
           "Keep-Alive: timeout=5, max=100\r\nMcp-Session-Id: s1\r\n\r\n{}");
  // The connection goes on: the next request is read as usual, and its
  // reply is written again.
  s.send("GET /b HTTP/1.1\r\n\r\n");
  REQUIRE(c.await_request(2s));
  c.begin_request();
  CHECK(read_all(c, 19) == "GET /b HTTP/1.1\r\n\r\n");
  CHECK(c.write("ok", 2) == 2);
  CHECK(c.flush());
  CHECK(s.pending() == "ok");
  CHECK_FALSE(abandoned);
}

TEST_CASE("a pipelined request waits until the deferred reply before it is "
          "out",
          "[http][connection][deferred]") {
  socket_pair s;
  http_connection c{s.ours, -1, quick(), nullptr, keep_alive};
  auto reply = defer_request(c);
  s.send("GET /b HTTP/1.1\r\n\r\n");
  std::atomic<bool> delivered{false};
  std::thread later{[&] {
    // Once the connection waits for this reply, the pipelined request
    // already seen.
    wait_until_waited_for(*reply);
    delivered = true;
    reply->deliver(200, "text/plain", {}, "first");
  }};
  REQUIRE(c.await_request(5s));
  CHECK(delivered);
  later.join();
  auto out = s.pending();
  CHECK(out.find("\r\n\r\nfirst") != std::string::npos);
  c.begin_request();
  CHECK(read_all(c, 19) == "GET /b HTTP/1.1\r\n\r\n");
}

TEST_CASE("a client that hangs up before its deferred reply abandons it: "
          "on_abandon runs and a late delivery writes nothing",
          "[http][connection][deferred]") {
  socket_pair s;
  std::shared_ptr<deferred_reply> reply;
  std::atomic<int> abandoned{0};
  {
    http_connection c{s.ours, -1, quick(), nullptr, keep_alive};
    reply = defer_request(c, false, false, [&] { ++abandoned; });
    ::close(s.peer);
    s.peer = -1;
    CHECK_FALSE(c.await_request(5s));
    CHECK(abandoned == 1);
  }
  // The connection is gone; the reply arrives anyway and is dropped.
  deliver_later(reply, "late").join();
  CHECK(abandoned == 1);
}

TEST_CASE("a connection that ends with its deferred reply pending abandons "
          "it",
          "[http][connection][deferred]") {
  socket_pair s;
  bool abandoned = false;
  std::shared_ptr<deferred_reply> reply;
  {
    http_connection c{s.ours, -1, quick(), nullptr, keep_alive};
    reply = defer_request(c, false, false, [&] { abandoned = true; });
  }
  CHECK(abandoned);
  deliver_later(reply, "late").join();
  CHECK(s.pending().empty());
}

TEST_CASE("a deferred reply the socket cannot take at once is finished by "
          "the connection's thread",
          "[http][connection][deferred]") {
  socket_pair s;
  http_connection c{s.ours, -1, quick(), nullptr, keep_alive};
  auto reply = defer_request(c);
  const std::string body(4 * 1024 * 1024, 'x');
  // Far beyond a socket buffer: most of it is handed back.
  deliver_later(reply, body).join();
  std::string got;
  std::thread reader{[&] { got = receive(s.peer, body.size() + 100); }};
  CHECK(c.settle());
  ::shutdown(s.ours, SHUT_WR);
  reader.join();
  auto head_end = got.find("\r\n\r\n");
  REQUIRE(head_end != std::string::npos);
  CHECK(got.find("Content-Length: " + std::to_string(body.size()))
        < head_end);
  CHECK(got.size() - head_end - 4 == body.size());
}

TEST_CASE("a deferred reply that ends the connection says so and goes out "
          "before settle() returns",
          "[http][connection][deferred]") {
  for (bool last : {false, true}) {
    socket_pair s;
    http_connection c{s.ours, -1, quick(), nullptr, keep_alive};
    // Either the client asked to close, or it is the connection's last
    // request.
    auto reply = defer_request(c, !last, last);
    auto later = deliver_later(reply, "bye", true);
    CHECK(c.settle());
    later.join();
    auto out = s.pending();
    CHECK(out.find("Connection: close\r\n") != std::string::npos);
    CHECK(out.find("Keep-Alive") == std::string::npos);
    CHECK(out.find("\r\n\r\nbye") != std::string::npos);
  }
}

TEST_CASE("after a deferred reply the keep-alive wait runs, and the stop "
          "signal ends it",
          "[http][connection][deferred]") {
  {
    socket_pair s;
    http_connection c{s.ours, -1, quick(), nullptr, keep_alive};
    auto reply = defer_request(c);
    deliver_later(reply, "{}").join();
    // No next request within the keep-alive: the connection is done.
    CHECK_FALSE(c.await_request(300ms));
    CHECK_FALSE(s.pending().empty());
  }
  int stop = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  REQUIRE(stop >= 0);
  {
    socket_pair s;
    http_connection c{s.ours, stop, quick(), nullptr, keep_alive};
    bool abandoned = false;
    auto reply = defer_request(c, false, false, [&] { abandoned = true; });
    std::uint64_t one = 1;
    REQUIRE(::write(stop, &one, sizeof(one)) == sizeof(one));
    // Stopping while the reply is pending: it still goes out, then the
    // hour of keep-alive is cut short.
    auto later = deliver_later(reply, "{}", true);
    CHECK_FALSE(c.await_request(std::chrono::hours{1}));
    later.join();
    CHECK_FALSE(abandoned);
    CHECK(s.pending().find("\r\n\r\n{}") != std::string::npos);
  }
  ::close(stop);
}
