#pragma once
// One accepted HTTP connection, as the Stream cpp-httplib parses requests
// from and writes replies to. It exists because cpp-httplib 0.11 bounds each
// wait for bytes (a read timeout per recv) but not a whole request: a client
// that trickles a byte just inside every timeout would hold a worker thread
// for as long as it likes. Here every request has a deadline from its first
// byte until it has been read, and every reply one until it has been
// written, and the bytes of a request's head (line and headers) are capped.
//
// It also spends fewer system calls than httplib's own socket stream: the
// socket is non-blocking, reads go to recv first and poll only when nothing
// is waiting, and the writes of one reply (status line, headers, body) leave
// in one send.

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include <httplib.h>

namespace transitd {

struct connection_limits {
  /// Longest wait for the next bytes of a request (or for room to write).
  std::chrono::milliseconds read_timeout{10'000};
  std::chrono::milliseconds write_timeout{10'000};
  /// Longest time from a request's first byte until all of it has been
  /// read, and from the end of its handler until the reply has been sent.
  std::chrono::milliseconds request_timeout{30'000};
  /// Bytes a request's line and headers may take; beyond this the
  /// connection is closed. (The body is bounded by the server's payload
  /// limit, a body beyond it is discarded within the request deadline.)
  std::size_t max_head_bytes = 24 * 1024;
};

class http_connection final : public httplib::Stream {
public:
  using clock = std::chrono::steady_clock;

  /// Serves `fd` (not owned; made non-blocking). `stop_fd` (an eventfd, or
  /// -1) ends every wait for a request once it becomes readable. With `ssl`
  /// (not owned, already bound to `fd`) the bytes are TLS.
  http_connection(int fd, int stop_fd, connection_limits limits,
                  ssl_st* ssl = nullptr);
  ~http_connection() override;

  http_connection(const http_connection&) = delete;
  http_connection& operator=(const http_connection&) = delete;

  /// Completes the TLS handshake within the request deadline (true without
  /// TLS).
  bool handshake();

  /// Waits up to `idle` for the first byte of the next request; false when
  /// the client closed, the wait timed out or the server is stopping.
  bool await_request(std::chrono::milliseconds idle);

  /// A request starts: its deadline runs from now and its byte budget is
  /// full.
  void begin_request();
  /// Its line and headers have been read: the byte budget no longer
  /// applies.
  void end_head();
  /// Its handler runs: no deadline while it works (the tools have their
  /// own).
  void begin_handler();
  /// Its handler is done: the reply must be out within the request timeout.
  void end_handler();

  /// Sends what write() has collected; false when the client is gone or too
  /// slow.
  bool flush();
  /// Ends TLS politely (nothing without TLS).
  void close_notify();

  int fd() const {
    return fd_;
  }

  /// The connection whose request the calling thread is handling, or null.
  static http_connection* current();

  /// Makes `connection` current() on this thread for the scope's lifetime.
  class scope {
  public:
    explicit scope(http_connection& connection);
    ~scope();
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;

  private:
    http_connection* previous_;
  };

  // httplib::Stream
  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override {
    return fd_;
  }

private:
  enum class wait_result { ready, timeout, stopped };

  /// Waits for `events` on the socket for at most `limit`, and never past
  /// the current deadline; `stoppable` also wakes on the stop fd.
  wait_result wait(short events, std::chrono::milliseconds limit,
                   bool stoppable) const;
  /// Refills the read buffer; >0 bytes read, 0 closed, -1 error or timeout.
  ssize_t fill(std::chrono::milliseconds limit, bool stoppable);

  int fd_;
  int stop_fd_;
  connection_limits limits_;
  ssl_st* ssl_;
  clock::time_point deadline_ = clock::time_point::max();
  std::size_t budget_;
  /// Read buffer: bytes [in_pos_, in_len_) not yet handed to httplib.
  std::vector<char> in_;
  std::size_t in_pos_ = 0;
  std::size_t in_len_ = 0;
  std::string out_;
  bool failed_ = false;
  mutable std::string remote_ip_;
  mutable int remote_port_ = -1;
  mutable std::string local_ip_;
  mutable int local_port_ = -1;
};

} // namespace transitd
