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

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
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
  /// Bytes a body without Content-Length (chunked, or read to the end)
  /// may take on the wire, framing included; beyond this the connection
  /// is closed. httplib bounds only bodies that state their length.
  std::size_t max_unsized_body_bytes = 1024 * 1024 + 64 * 1024;
  /// The clock the deadlines and the keep-alive wait run on; empty: the
  /// steady clock. Tests pass one they move forward instead of sleeping.
  std::function<std::chrono::steady_clock::time_point()> clock;
};

class http_connection;

/// The reason phrase of an HTTP status ("Not Found"; "Unknown" for others).
std::string_view reason_phrase(int status);

/// An HTTP/1.1 reply as httplib writes one of its own, in the same order:
/// the status line, Connection: close (when `close`), Content-Length
/// (unless `chunked`: Transfer-Encoding then, after the other headers),
/// Content-Type, Keep-Alive (unless `close`), `headers`, the body.
std::string format_reply(
  int status, std::string_view content_type,
  const std::vector<std::pair<std::string, std::string>>& headers,
  std::string_view body, bool close, std::string_view keep_alive,
  bool chunked = false);

/// Appends `data` to `out` as one chunk of a chunked body (nothing when
/// empty: an empty chunk would end the body).
void append_chunk(std::string& out, std::string_view data);

/// A reply body another thread produces in parts as they come (an SSE
/// stream of a tool call): the event loop sends each part when it arrives,
/// and no worker waits for the next.
struct reply_source {
  /// Readable (level-triggered) while take() has something new or the
  /// source has ended.
  int fd = -1;
  /// Moves the text produced since the last take() into `out` (replacing
  /// it); false once the source has ended and nothing is left.
  std::function<bool(std::string& out)> take;
  /// The client hung up, or the connection ends, before the source did.
  std::function<void()> abandon;
};

/// A reply that another thread delivers after its request's handler has
/// returned: an actor finishing a tool call writes it while the
/// connection's own thread has gone back to waiting for the client. Over
/// plain TCP the delivering thread sends it itself when the socket takes
/// all of it at once, so no thread wakes for it; otherwise (TLS, a full
/// socket buffer, a reply that ends the connection) it hands the bytes to
/// the connection's thread.
class deferred_reply {
public:
  using header_list = std::vector<std::pair<std::string, std::string>>;

  /// Sends the reply (an HTTP/1.1 response with these parts), once. Does
  /// nothing when the client has gone meanwhile.
  void deliver(int status, std::string_view content_type,
               const header_list& headers, std::string_view body);

  /// Whether the connection's thread is blocked waiting for this reply
  /// (a delivery then wakes it). Lets a test deliver while it waits.
  bool owner_waiting();

private:
  friend class http_connection;
  enum class state { pending, sent, handed_back, abandoned };

  deferred_reply(int fd, int wake_fd, bool send_here, bool close,
                 std::string keep_alive, std::function<void()> on_abandon,
                 std::function<std::chrono::steady_clock::time_point()> now,
                 std::function<void(bool sent)> notify = {});

  /// Wakes the connection's thread (under mutex_); `sent` when the reply
  /// went out whole (else its bytes wait in bytes_).
  void wake(bool sent) const;
  /// The connection gives up on a pending reply (the client hung up, or
  /// the connection ends): on_abandon runs and a later deliver() writes
  /// nothing. False when the reply was no longer pending.
  bool abandon();

  const int fd_;
  const int wake_fd_;
  const bool send_here_;
  const bool close_;
  const std::string keep_alive_;
  std::function<void()> on_abandon_;

  std::mutex mutex_;
  state state_ = state::pending;
  /// The connection's thread waits for the reply and must be woken.
  bool owner_waiting_ = false;
  /// Handed back: the bytes still to send.
  std::string bytes_;
  std::chrono::steady_clock::time_point sent_at_;
  std::function<std::chrono::steady_clock::time_point()> now_;
  /// Set under an event loop (connection_reactor): called, instead of the
  /// wake-up descriptor, whenever the reply is sent or handed back.
  std::function<void(bool sent)> notify_;
};

class http_connection final : public httplib::Stream {
public:
  using clock = std::chrono::steady_clock;

  /// The time on the limits' clock.
  clock::time_point now() const {
    return limits_.clock ? limits_.clock() : clock::now();
  }

  /// Serves `fd` (not owned; made non-blocking). `stop_fd` (an eventfd, or
  /// -1) ends every wait for a request once it becomes readable. With `ssl`
  /// (not owned, already bound to `fd`) the bytes are TLS.
  /// `keep_alive` is the Keep-Alive header a deferred reply carries.
  http_connection(int fd, int stop_fd, connection_limits limits,
                  ssl_st* ssl = nullptr, std::string keep_alive = {});
  ~http_connection() override;

  http_connection(const http_connection&) = delete;
  http_connection& operator=(const http_connection&) = delete;

  /// Completes the TLS handshake within the request deadline (true without
  /// TLS).
  bool handshake();

  /// Waits up to `idle` for the first byte of the next request (once a
  /// deferred reply is out); false when the client closed, the wait timed
  /// out or the server is stopping.
  bool await_request(std::chrono::milliseconds idle);

  /// A request starts: its deadline runs from now and its byte budget is
  /// full. `last` when the connection closes after it.
  void begin_request(bool last = false);

  /// The handler of the current request will not reply through httplib:
  /// whatever httplib writes for it is dropped, and the returned reply,
  /// delivered from any thread, goes out instead. The connection closes
  /// after it when `close` or when this is its last request. Should the
  /// client hang up first, `on_abandon` runs (on this connection's thread).
  /// Null when it cannot be done (no wake-up descriptor): reply the usual
  /// way then.
  std::shared_ptr<deferred_reply> defer(bool close,
                                        std::function<void()> on_abandon);
  /// Waits until the deferred reply, if any, is out; false when it could
  /// not be sent.
  bool settle();
  /// Under an event loop: answers the current request with a chunked reply
  /// whose head is written now and whose body the loop sends part by part
  /// as `source` yields it (whatever httplib writes for the request is
  /// dropped). The connection closes after it when `close` or when this is
  /// its last request. False when there is no event loop (send the parts
  /// the usual way then).
  bool stream_reply(int status, std::string_view content_type,
                    const std::vector<std::pair<std::string, std::string>>&
                      headers,
                    bool close, reply_source source);
  /// Its line and headers have been read: the head's byte budget gives
  /// way to the body's; `sized` when the body states its length (httplib
  /// bounds it then), else max_unsized_body_bytes.
  void end_head(bool sized);
  /// The connection ends once this request's reply is out.
  void close_after_reply() {
    closing_ = true;
  }
  bool closing() const {
    return closing_;
  }
  /// Its handler runs: no deadline while it works (the tools have their
  /// own).
  void begin_handler();
  /// Its handler is done: the reply must be out within the request timeout.
  void end_handler();

  /// Sends what write() has collected; false when the client is gone or too
  /// slow.
  bool flush();

  // Under an event loop (connection_reactor), which reads requests whole
  // before a worker parses them, and waits for deferred replies itself.

  /// What pull() got.
  struct pulled {
    std::size_t bytes = 0;
    /// The client closed (after `bytes`), or the connection failed.
    bool closed = false;
  };
  /// Reads what the socket holds now, without waiting, after the bytes not
  /// yet handed to httplib, keeping at most `cap` of them.
  pulled pull(std::size_t cap);
  /// The bytes read and not yet handed to httplib.
  std::string_view unread() const {
    return {in_.data() + in_pos_, in_len_ - in_pos_};
  }
  /// The first `n` unread bytes were handled without httplib (a whole
  /// request read by the fast path): they are gone.
  void skip(std::size_t n) {
    in_pos_ += std::min(n, in_len_ - in_pos_);
  }
  /// The Keep-Alive header a reply on this connection carries.
  const std::string& keep_alive() const {
    return keep_alive_;
  }
  /// Whether this request is the connection's last.
  bool last_request() const {
    return last_request_;
  }
  /// One non-blocking step of the TLS handshake: 1 done, 0 wants `want`
  /// (POLLIN or POLLOUT), -1 failed. 1 at once without TLS.
  int handshake_step(short& want);
  /// Sends `bytes` now, as far as the socket takes them without waiting
  /// (an error reply before closing).
  void send_now(std::string_view bytes);
  /// Deferred replies wake the event loop through `notify` instead of a
  /// descriptor of their own.
  void set_notifier(std::function<void(bool sent)> notify) {
    notifier_ = std::move(notify);
  }
  enum class reply_progress { none, pending, out };
  /// Where the deferred reply of the last request stands: none, still
  /// pending, or out (sent by the delivering thread, or handed back: then
  /// its bytes wait in the write buffer for flush()). `close` says whether
  /// the connection ends with it.
  reply_progress take_reply(bool& close);
  /// Whether a deferred reply is still pending (nothing is taken).
  bool reply_pending() const;
  /// The client hung up before its deferred reply: abandons it.
  void abandon_reply();
  /// Whether a streamed reply (stream_reply) is still going.
  bool streaming() const {
    return stream_ != nullptr;
  }
  /// The streamed reply's descriptor (its source's), or -1.
  int stream_fd() const {
    return stream_ ? stream_->source.fd : -1;
  }
  /// Whether the connection ends with the streamed reply.
  bool stream_closes() const {
    return stream_ && stream_->close;
  }
  /// Takes what the stream's source has into the write buffer as chunks;
  /// at its end, the body's last chunk, and returns true. The stream is
  /// then done with: end_stream() lets go of its source.
  bool pump_stream();
  /// Lets go of a streamed reply's source (after pump_stream() returned
  /// true, or the client hung up: then the source is abandoned).
  void end_stream();
  /// Sends the write buffer as far as the socket takes it without waiting
  /// (plain TCP only): true when all of it is out; false when the rest
  /// must wait for a worker's flush() (TLS, a full socket) or the
  /// connection failed (failed() then).
  bool send_ready();
  bool failed() const {
    return failed_;
  }
  /// Whether reply bytes wait for flush().
  bool has_output() const {
    return !out_.empty();
  }
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
  /// Waits until the deferred reply is out, watching the client meanwhile
  /// (a hang-up abandons the reply), and takes the time since the reply
  /// from `idle`; with `to_the_end` the connection ends after the reply.
  /// False when the connection is done.
  bool await_deferred(std::chrono::milliseconds& idle, bool to_the_end);
  /// Whether bytes of a next request are already read or decrypted.
  bool buffered() const;

  int fd_;
  int stop_fd_;
  connection_limits limits_;
  ssl_st* ssl_;
  std::string keep_alive_;
  bool last_request_ = false;
  bool closing_ = false;
  /// Drops what httplib writes (its reply to a deferred request).
  bool discarding_ = false;
  std::shared_ptr<deferred_reply> deferred_;
  /// A streamed reply in progress (stream_reply).
  struct active_stream {
    reply_source source;
    bool close = false;
    bool ended = false;
  };
  std::unique_ptr<active_stream> stream_;
  std::function<void(bool sent)> notifier_;
  /// Wakes this connection's thread for a deferred reply; made on first use.
  int wake_fd_ = -1;
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
