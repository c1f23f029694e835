#pragma once
// Servers on free ports of 127.0.0.1 for the tests, serving in the
// background until the test ends: an httplib server (register routes on
// `server`, then start()), and one that trickles a fixed reply a byte at a
// time.

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <httplib.h>

namespace transitd::test {

struct local_http_server {
  httplib::Server server;
  std::thread thread;
  int port = 0;

  void start() {
    port = server.bind_to_any_port("127.0.0.1");
    REQUIRE(port > 0);
    thread = std::thread{[this] { server.listen_after_bind(); }};
    while (!server.is_running())
      std::this_thread::yield();
  }

  ~local_http_server() {
    server.stop();
    if (thread.joinable())
      thread.join();
  }

  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port) + path;
  }
};

/// A server that answers every connection with `reply` one byte per
/// `every`, for the test to cut: the bytes keep coming well within any
/// per-read timeout, so only a deadline for the whole request ends it.
struct trickling_server {
  int listener = -1;
  int port = 0;
  std::atomic<bool> stop{false};
  std::thread thread;

  trickling_server(std::string reply, std::chrono::milliseconds every) {
    listener = socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(listener >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr)
            == 0);
    socklen_t len = sizeof addr;
    REQUIRE(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len)
            == 0);
    port = ntohs(addr.sin_port);
    REQUIRE(listen(listener, 4) == 0);
    thread = std::thread{[this, reply = std::move(reply), every] {
      int conn = accept(listener, nullptr, nullptr);
      if (conn < 0)
        return;
      for (char c : reply) {
        if (stop || send(conn, &c, 1, MSG_NOSIGNAL) != 1)
          break;
        std::this_thread::sleep_for(every);
      }
      close(conn);
    }};
  }
  /// Stops sending: the connection closes, the client sees it end.
  void finish() {
    stop = true;
    shutdown(listener, SHUT_RDWR);
    if (thread.joinable())
      thread.join();
  }
  ~trickling_server() {
    finish();
    close(listener);
  }
};

} // namespace transitd::test
