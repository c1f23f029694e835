#include "transport/http_connection.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>

#include <fcntl.h>
#include <netdb.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace transitd {

namespace {

using std::chrono::milliseconds;

constexpr std::size_t read_chunk = 16 * 1024;
/// Collected reply bytes beyond this are sent before more are taken.
constexpr std::size_t write_high_water = 64 * 1024;

thread_local http_connection* current_connection = nullptr;

/// What a non-blocking TLS call that returned `rc` waits for: POLLIN or
/// POLLOUT; 0 when it failed for good.
short tls_wants(ssl_st* ssl, int rc) {
  switch (SSL_get_error(ssl, rc)) {
    case SSL_ERROR_WANT_READ:
      return POLLIN;
    case SSL_ERROR_WANT_WRITE:
      return POLLOUT;
    default:
      return 0;
  }
}

/// Fills `ip` and `port` with the numeric name of the socket's peer (or its
/// own), unless they hold it already (a port of -1 means not yet).
void remember_name(int fd, bool peer, std::string& ip, int& port) {
  if (port >= 0)
    return;
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  auto* sa = reinterpret_cast<sockaddr*>(&addr);
  if ((peer ? ::getpeername(fd, sa, &len) : ::getsockname(fd, sa, &len))
      != 0)
    return;
  char host[NI_MAXHOST];
  char serv[NI_MAXSERV];
  if (::getnameinfo(sa, len, host, sizeof(host), serv, sizeof(serv),
                    NI_NUMERICHOST | NI_NUMERICSERV)
      != 0)
    return;
  ip = host;
  port = std::atoi(serv);
}

} // namespace

http_connection::http_connection(int fd, int stop_fd,
                                 connection_limits limits, ssl_st* ssl)
  : fd_(fd),
    stop_fd_(stop_fd),
    limits_(limits),
    ssl_(ssl),
    budget_(limits.max_head_bytes),
    in_(read_chunk) {
  auto flags = ::fcntl(fd_, F_GETFL, 0);
  if (flags >= 0 && (flags & O_NONBLOCK) == 0)
    ::fcntl(fd_, F_SETFL, flags | O_NONBLOCK);
}

http_connection::~http_connection() = default;

http_connection* http_connection::current() {
  return current_connection;
}

http_connection::scope::scope(http_connection& connection)
  : previous_(current_connection) {
  current_connection = &connection;
}

http_connection::scope::~scope() {
  current_connection = previous_;
}

void http_connection::begin_request() {
  deadline_ = clock::now() + limits_.request_timeout;
  budget_ = limits_.max_head_bytes;
}

void http_connection::end_head() {
  budget_ = std::numeric_limits<std::size_t>::max();
}

void http_connection::begin_handler() {
  deadline_ = clock::time_point::max();
}

void http_connection::end_handler() {
  deadline_ = clock::now() + limits_.request_timeout;
}

http_connection::wait_result
http_connection::wait(short events, milliseconds limit, bool stoppable) const {
  auto until = clock::now() + limit;
  if (deadline_ < until)
    until = deadline_;
  for (;;) {
    auto left = std::chrono::duration_cast<milliseconds>(until - clock::now());
    if (left.count() <= 0)
      return wait_result::timeout;
    pollfd fds[2] = {{fd_, events, 0}, {stop_fd_, POLLIN, 0}};
    nfds_t count = stoppable && stop_fd_ >= 0 ? 2 : 1;
    auto n = ::poll(fds, count, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return wait_result::timeout;
    if (n == 0)
      continue; // rounding: re-check the clock
    if (count == 2 && fds[1].revents != 0)
      return wait_result::stopped;
    return wait_result::ready;
  }
}

ssize_t http_connection::fill(milliseconds limit, bool stoppable) {
  if (failed_)
    return -1;
  in_pos_ = 0;
  in_len_ = 0;
  for (;;) {
    ssize_t n;
    short want = POLLIN;
    if (ssl_ != nullptr) {
      n = SSL_read(ssl_, in_.data(), static_cast<int>(in_.size()));
      if (n <= 0) {
        want = tls_wants(ssl_, static_cast<int>(n));
        // A close_notify from the client is an orderly close.
        n = want != 0 ? -2
            : SSL_get_error(ssl_, static_cast<int>(n)) == SSL_ERROR_ZERO_RETURN
              ? 0
              : -1;
      }
    } else {
      n = ::recv(fd_, in_.data(), in_.size(), 0);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        n = -2;
      else if (n < 0 && errno == EINTR)
        continue;
    }
    if (n >= 0 || n == -1) {
      failed_ = failed_ || n == -1;
      in_len_ = n > 0 ? static_cast<std::size_t>(n) : 0;
      return n;
    }
    if (wait(want, limit, stoppable) != wait_result::ready) {
      // A request cut off by a timeout gets no reply (httplib would answer
      // a 400 and keep the connection): the connection is done.
      failed_ = true;
      return -1;
    }
  }
}

bool http_connection::handshake() {
  if (ssl_ == nullptr)
    return true;
  for (;;) {
    auto rc = SSL_accept(ssl_);
    if (rc == 1)
      return true;
    auto want = tls_wants(ssl_, rc);
    if (want == 0 || wait(want, limits_.read_timeout, true)
                       != wait_result::ready)
      return false;
  }
}

bool http_connection::await_request(milliseconds idle) {
  if (in_pos_ < in_len_)
    return true; // pipelined: already here
  if (!flush())
    return false;
  auto saved = deadline_;
  deadline_ = clock::time_point::max();
  auto n = fill(idle, true);
  deadline_ = saved;
  return n > 0;
}

bool http_connection::is_readable() const {
  if (in_pos_ < in_len_ || (ssl_ != nullptr && SSL_pending(ssl_) > 0))
    return true;
  return wait(POLLIN, limits_.read_timeout, true) == wait_result::ready;
}

bool http_connection::is_writable() const {
  return !failed_;
}

ssize_t http_connection::read(char* ptr, size_t size) {
  if (in_pos_ >= in_len_) {
    // Whatever we owe the client (a 100 Continue) goes out before we wait.
    if (!flush())
      return -1;
    auto n = fill(limits_.read_timeout, true);
    if (n <= 0)
      return n;
  }
  auto n = std::min(size, in_len_ - in_pos_);
  if (n > budget_) {
    failed_ = true;
    return -1;
  }
  budget_ -= n;
  std::memcpy(ptr, in_.data() + in_pos_, n);
  in_pos_ += n;
  return static_cast<ssize_t>(n);
}

ssize_t http_connection::write(const char* ptr, size_t size) {
  if (failed_)
    return -1;
  out_.append(ptr, size);
  if (out_.size() >= write_high_water && !flush())
    return -1;
  return static_cast<ssize_t>(size);
}

bool http_connection::flush() {
  std::size_t sent = 0;
  while (!failed_ && sent < out_.size()) {
    ssize_t n;
    short want = POLLOUT;
    auto left = out_.size() - sent;
    if (ssl_ != nullptr) {
      n = SSL_write(ssl_, out_.data() + sent, static_cast<int>(left));
      if (n <= 0) {
        want = tls_wants(ssl_, static_cast<int>(n));
        n = want != 0 ? -2 : -1;
      }
    } else {
      n = ::send(fd_, out_.data() + sent, left, MSG_NOSIGNAL);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        n = -2;
      else if (n < 0 && errno == EINTR)
        continue;
    }
    if (n > 0)
      sent += static_cast<std::size_t>(n);
    else if (n == -1 || n == 0
             || wait(want, limits_.write_timeout, false) != wait_result::ready)
      failed_ = true;
  }
  out_.clear();
  return !failed_;
}

void http_connection::close_notify() {
  if (ssl_ != nullptr && !failed_)
    SSL_shutdown(ssl_);
}

void http_connection::get_remote_ip_and_port(std::string& ip,
                                             int& port) const {
  // Asked for every request; the answer is the connection's.
  remember_name(fd_, true, remote_ip_, remote_port_);
  ip = remote_ip_;
  port = remote_port_;
}

void http_connection::get_local_ip_and_port(std::string& ip,
                                            int& port) const {
  remember_name(fd_, false, local_ip_, local_port_);
  ip = local_ip_;
  port = local_port_;
}

} // namespace transitd
