// The connection stream over a socketpair: buffered reads, coalesced
// writes, the head budget, the request deadline and the stop signal.

#include "transport/http_connection.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

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
  d.end_head();
  t.send(std::string(1000, 'b'));
  CHECK(read_all(d, 1000).size() == 1000);
  // The next request has the whole budget again.
  d.begin_request();
  t.send(std::string(64, 'h'));
  CHECK(read_all(d, 64).size() == 64);
}

TEST_CASE("a client trickling a request is cut off at the request deadline",
          "[http][connection][security]") {
  socket_pair s;
  auto limits = quick();
  limits.read_timeout = 2s;       // each byte arrives well within this...
  limits.request_timeout = 300ms; // ...but the whole request takes too long
  limits.max_head_bytes = 1024;
  http_connection c{s.ours, -1, limits};
  std::atomic<bool> done{false};
  int peer = s.peer;
  std::thread trickler{[peer, &done] {
    for (int i = 0; i < 100 && !done; ++i) {
      if (::send(peer, "x", 1, MSG_NOSIGNAL) != 1)
        break;
      std::this_thread::sleep_for(50ms);
    }
  }};
  c.begin_request();
  auto got = read_all(c, 100);
  done = true;
  trickler.join();
  // 100 bytes take 5 s to trickle; the read gave up long before.
  CHECK(got.size() < 100);
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
