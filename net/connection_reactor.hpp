#pragma once
// The event loop every connection waits in (epoll, one thread): it reads
// requests whole and hands each complete one to a worker, so no client can
// hold a worker by being idle, slow or silent. A worker parses and answers
// the request (httplib), then gives the connection back; a reply that an
// actor delivers later (deferred_reply) is waited for here too, watching
// the client for a hang-up meanwhile.
//
// Every phase of a connection has its bound: the TLS handshake and each
// wait for bytes `read_timeout`, a request from its first byte until it is
// whole `request_timeout`, an idle keep-alive connection `keep_alive`; and
// the connections open at once, per client address and in all.

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "transitd/net/http_connection.hpp"
#include "transitd/net/request_framing.hpp"

struct ssl_ctx_st;

namespace httplib {
class TaskQueue;
}

namespace transitd {

struct reactor_options {
  connection_limits limits;
  std::chrono::milliseconds keep_alive{30'000};
  /// Requests served on one connection at most.
  std::size_t max_requests = 10'000;
  /// Connections open at once from one client address, and in all; more
  /// are answered 503 and closed.
  std::size_t max_connections_per_client = 2048;
  std::size_t max_connections = 16'384;
  /// Where a request ends and what it may be (lines, head, body).
  framing_limits framing;
  /// The WWW-Authenticate challenge of a 431 for an Authorization line
  /// too long (empty: none).
  std::string bearer_challenge;
  /// An eventfd whose signal ends a worker's wait for bytes (shutdown), or
  /// -1.
  int stop_fd = -1;
  /// After a reply, the worker keeps a busy connection this long for its
  /// next request (and a deferred reply), unless other requests wait for a
  /// worker (the loop then wakes a lingering worker, which hands its
  /// connection back): a keep-alive client's next call then costs no
  /// hand-over. 0: every connection goes back to the loop at once.
  std::chrono::milliseconds linger{250};
};

/// What the loop counts, for /metrics.
struct reactor_stats {
  int64_t accepted = 0;
  int64_t refused_over_cap = 0;
  int64_t head_timeouts = 0;
  int64_t idle_timeouts = 0;
  int64_t refused_framing = 0;
  int64_t requests = 0;
  /// Connections open now, and in each phase.
  int64_t open = 0;
  int64_t idle = 0;
  int64_t reading = 0;
  int64_t serving = 0;
  int64_t awaiting_reply = 0;
  /// Sending a streamed reply (SSE) as its parts come.
  int64_t streaming = 0;
};

class connection_reactor {
public:
  /// Answers one whole request read into `connection` (httplib's
  /// process_request); `last` when the connection closes after it. Returns
  /// whether the connection may serve another; sets `closed` when the
  /// reply ends it.
  using serve_fn
    = std::function<bool(http_connection& connection, bool last, bool& closed)>;

  /// `workers` parse and answer requests. With `tls` (not owned)
  /// connections are HTTPS. Starts the loop.
  connection_reactor(reactor_options options, serve_fn serve,
                     std::unique_ptr<httplib::TaskQueue> workers,
                     ssl_ctx_st* tls = nullptr);
  ~connection_reactor();

  connection_reactor(const connection_reactor&) = delete;
  connection_reactor& operator=(const connection_reactor&) = delete;

  /// Takes an accepted socket (owned from here on); any thread.
  void add(int fd);

  /// Closes idle connections and every one once its reply is out; the
  /// loop ends when none is left.
  void stop();
  /// Waits for the loop and the workers to end (after stop()).
  void join();

  reactor_stats stats() const;

private:
  enum class phase : std::uint8_t {
    handshaking,
    idle,
    reading,
    serving,
    awaiting_reply,
    /// A streamed reply (SSE) goes out part by part as its source yields
    /// them; the loop watches the source and the client's hang-up.
    streaming,
    /// Refused: the reply is out, what the client still sends is read and
    /// dropped until it stops (so that closing does not reset the reply).
    draining,
    count
  };
  struct connection;
  struct mailbox;
  using connection_ptr = std::shared_ptr<connection>;

  void run();
  void on_event(const connection_ptr& c, std::uint32_t events);
  void on_mail();
  void accept_socket(int fd);
  /// Reads what arrived; hands a whole request to a worker.
  void read_request(const connection_ptr& c);
  void dispatch(const connection_ptr& c);
  /// On a worker: serves the connection's whole request, then lingers.
  /// Returns the requests served and whether the connection may go on.
  std::size_t work(const connection_ptr& c, bool& keep);
  void served(const connection_ptr& c, bool keep, std::size_t requests);
  void reply_ready(const connection_ptr& c);
  /// The connection's reply is a stream: the loop sends its parts.
  void begin_streaming(const connection_ptr& c);
  /// Sends what the stream has now; at its end, the next request.
  void pump(const connection_ptr& c);
  /// Watches the stream's source (or stops, without forgetting it).
  void watch_stream(connection& c, bool on);
  void unwatch_stream(connection& c);
  /// The connection waits for its next request (or serves a pipelined one).
  void next_request(const connection_ptr& c);
  void flush_then(const connection_ptr& c, bool keep);
  void close(const connection_ptr& c);
  void refuse(const connection_ptr& c, int status, const std::string& reason,
              bool challenge);
  void set_phase(connection& c, phase p);
  void watch(connection& c, std::uint32_t events);
  void unwatch(connection& c);
  void expire();
  std::chrono::steady_clock::time_point now() const;

  reactor_options options_;
  serve_fn serve_;
  ssl_ctx_st* tls_;
  int epoll_fd_ = -1;
  std::shared_ptr<mailbox> mail_;
  std::unique_ptr<httplib::TaskQueue> pool_;
  std::thread thread_;
  // The loop's own (no lock: only its thread touches them).
  std::unordered_map<std::uint64_t, connection_ptr> connections_;
  std::unordered_map<std::string, std::size_t> per_client_;
  std::uint64_t next_id_ = 0;
  bool stopping_ = false;
  std::atomic<bool> stopping_flag_{false};
  /// Requests handed to the pool and not yet taken by a worker.
  std::atomic<int64_t> queued_{0};
  /// The wake-up descriptors of the workers lingering now: a request for
  /// the pool wakes one, so that it makes room.
  std::mutex lingering_mutex_;
  std::vector<int> lingering_;
  std::chrono::steady_clock::time_point last_expiry_;
  // Counters, read from any thread.
  std::atomic<int64_t> accepted_{0};
  std::atomic<int64_t> refused_over_cap_{0};
  std::atomic<int64_t> head_timeouts_{0};
  std::atomic<int64_t> idle_timeouts_{0};
  std::atomic<int64_t> refused_framing_{0};
  std::atomic<int64_t> requests_{0};
  std::array<std::atomic<int64_t>, static_cast<std::size_t>(phase::count)>
    in_phase_{};
};

} // namespace transitd
