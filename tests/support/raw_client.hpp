#pragma once
// A raw TCP connection to 127.0.0.1 for tests that speak HTTP byte by byte
// (slow, malformed or idle clients). Every read is bounded (15 s).

#include <cerrno>
#include <string>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

namespace transitd::test {

/// A raw TCP connection to 127.0.0.1:port.
struct raw_client {
  raw_client(const raw_client&) = delete;
  raw_client& operator=(const raw_client&) = delete;
  int fd = -1;
  explicit raw_client(int port) {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr))
            == 0);
    timeval tv{15, 0}; // the test's own bound on every read
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  }
  ~raw_client() {
    ::close(fd);
  }
  bool send(const std::string& bytes) const {
    return ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL)
           == static_cast<ssize_t>(bytes.size());
  }
  /// What one recv gives (a short reply whole, usually); empty when closed.
  std::string receive() const {
    char buf[4096];
    auto n = ::recv(fd, buf, sizeof(buf), 0);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n))
                 : std::string{};
  }
  /// Everything until the server closes (or the 15-s bound).
  std::string read_to_close() const {
    std::string got;
    char buf[4096];
    ssize_t n;
    while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0)
      got.append(buf, static_cast<std::size_t>(n));
    return got;
  }
  /// True once the server has closed its side (recv gives 0 or a reset).
  bool closed_by_server() const {
    char buf[256];
    ssize_t n;
    while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) {
    }
    return n == 0 || (n < 0 && errno == ECONNRESET);
  }
};

} // namespace transitd::test
