#include "transitd/net/http_connection.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#include <fcntl.h>
#include <netdb.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/eventfd.h>
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


void drain(int event_fd) {
  std::uint64_t count;
  while (::read(event_fd, &count, sizeof(count)) > 0) {
  }
}

} // namespace

std::string_view reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 413: return "Payload Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Unknown";
  }
}

std::string format_reply(
  int status, std::string_view content_type,
  const std::vector<std::pair<std::string, std::string>>& headers,
  std::string_view body, bool close, std::string_view keep_alive,
  bool chunked) {
  std::string bytes;
  bytes.reserve(body.size() + 256);
  char number[24];
  auto append_number = [&](std::size_t n) {
    auto [end, ec] = std::to_chars(number, number + sizeof(number), n);
    bytes.append(number, end);
  };
  bytes.append("HTTP/1.1 ");
  append_number(static_cast<std::size_t>(status));
  bytes.append(" ").append(reason_phrase(status)).append("\r\n");
  if (close)
    bytes.append("Connection: close\r\n");
  if (!chunked) {
    bytes.append("Content-Length: ");
    append_number(body.size());
    bytes.append("\r\n");
  }
  if (!content_type.empty())
    bytes.append("Content-Type: ").append(content_type).append("\r\n");
  if (!close && !keep_alive.empty())
    bytes.append("Keep-Alive: ").append(keep_alive).append("\r\n");
  for (const auto& [name, value] : headers)
    bytes.append(name).append(": ").append(value).append("\r\n");
  if (chunked)
    bytes.append("Transfer-Encoding: chunked\r\n");
  bytes.append("\r\n").append(body);
  return bytes;
}

void append_chunk(std::string& out, std::string_view data) {
  if (data.empty())
    return;
  char length[20];
  auto [end, ec] = std::to_chars(length, length + sizeof(length), data.size(),
                                 16);
  out.append(length, end).append("\r\n").append(data).append("\r\n");
}

deferred_reply::deferred_reply(int fd, int wake_fd, bool send_here,
                               bool close, std::string keep_alive,
                               std::function<void()> on_abandon,
                               std::function<std::chrono::steady_clock::time_point()> now,
                               std::function<void(bool sent)> notify)
  : fd_(fd),
    wake_fd_(wake_fd),
    send_here_(send_here),
    close_(close),
    keep_alive_(std::move(keep_alive)),
    on_abandon_(std::move(on_abandon)),
    now_(std::move(now)),
    notify_(std::move(notify)) {
  // The event loop always wants to know.
  owner_waiting_ = static_cast<bool>(notify_);
}

void deferred_reply::wake(bool sent) const {
  if (notify_) {
    notify_(sent);
    return;
  }
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(wake_fd_, &one, sizeof(one));
}

bool deferred_reply::owner_waiting() {
  std::lock_guard<std::mutex> lock{mutex_};
  return owner_waiting_;
}

void deferred_reply::deliver(int status, std::string_view content_type,
                             const header_list& headers,
                             std::string_view body) {
  auto bytes = format_reply(status, content_type, headers, body, close_,
                            keep_alive_);

  std::lock_guard<std::mutex> guard{mutex_};
  if (state_ != state::pending)
    return; // the client is gone
  std::size_t sent = 0;
  if (send_here_) {
    // Holding the lock: the connection cannot close the socket meanwhile.
    while (sent < bytes.size()) {
      auto n = ::send(fd_, bytes.data() + sent, bytes.size() - sent,
                      MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0)
        sent += static_cast<std::size_t>(n);
      else if (n < 0 && errno == EINTR)
        continue;
      else
        break; // full (or failing): the connection's thread takes over
    }
    if (sent == bytes.size()) {
      state_ = state::sent;
      sent_at_ = now_ ? now_() : std::chrono::steady_clock::now();
      if (owner_waiting_)
        wake(true);
      return;
    }
  }
  bytes_ = bytes.substr(sent);
  state_ = state::handed_back;
  wake(false);
}

bool deferred_reply::abandon() {
  {
    std::lock_guard<std::mutex> guard{mutex_};
    if (state_ != state::pending)
      return false;
    state_ = state::abandoned;
  }
  // Outside the lock: the action may finish the call, which delivers.
  if (on_abandon_)
    on_abandon_();
  return true;
}

http_connection::http_connection(int fd, int stop_fd,
                                 connection_limits limits, ssl_st* ssl,
                                 std::string keep_alive)
  : fd_(fd),
    stop_fd_(stop_fd),
    limits_(limits),
    ssl_(ssl),
    keep_alive_(std::move(keep_alive)),
    budget_(limits.max_head_bytes),
    in_(read_chunk) {
  auto flags = ::fcntl(fd_, F_GETFL, 0);
  if (flags >= 0 && (flags & O_NONBLOCK) == 0)
    ::fcntl(fd_, F_SETFL, flags | O_NONBLOCK);
}

http_connection::~http_connection() {
  // Leaving with a reply still to come: nobody can receive it.
  if (deferred_)
    deferred_->abandon();
  end_stream();
  if (wake_fd_ >= 0)
    ::close(wake_fd_);
}

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

void http_connection::begin_request(bool last) {
  deadline_ = now() + limits_.request_timeout;
  budget_ = limits_.max_head_bytes;
  last_request_ = last;
  discarding_ = false;
}

std::shared_ptr<deferred_reply>
http_connection::defer(bool close, std::function<void()> on_abandon) {
  if (wake_fd_ < 0 && !notifier_)
    wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0 && !notifier_)
    return nullptr;
  close = close || last_request_ || closing_;
  // A reply that ends the connection goes out from here, which closes it.
  deferred_.reset(new deferred_reply(fd_, wake_fd_, ssl_ == nullptr && !close,
                                     close, keep_alive_,
                                     std::move(on_abandon), limits_.clock,
                                     notifier_));
  discarding_ = true;
  return deferred_;
}

bool http_connection::stream_reply(
  int status, std::string_view content_type,
  const std::vector<std::pair<std::string, std::string>>& headers, bool close,
  reply_source source) {
  if (!notifier_)
    return false;
  close = close || last_request_ || closing_;
  out_ += format_reply(status, content_type, headers, {}, close, keep_alive_,
                       true);
  stream_ = std::make_unique<active_stream>();
  stream_->source = std::move(source);
  stream_->close = close;
  discarding_ = true;
  return true;
}

bool http_connection::pump_stream() {
  if (!stream_ || stream_->ended)
    return true;
  std::string part;
  bool more = stream_->source.take(part);
  append_chunk(out_, part);
  if (more)
    return false;
  out_.append("0\r\n\r\n");
  stream_->ended = true;
  return true;
}

void http_connection::end_stream() {
  if (!stream_)
    return;
  auto stream = std::move(stream_);
  if (!stream->ended && stream->source.abandon)
    stream->source.abandon();
}

bool http_connection::send_ready() {
  if (failed_)
    return false;
  if (ssl_ != nullptr)
    return out_.empty();
  std::size_t sent = 0;
  while (sent < out_.size()) {
    auto n = ::send(fd_, out_.data() + sent, out_.size() - sent,
                    MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      break;
    failed_ = true;
    return false;
  }
  out_.erase(0, sent);
  return out_.empty();
}

bool http_connection::buffered() const {
  return in_pos_ < in_len_ || (ssl_ != nullptr && SSL_pending(ssl_) > 0);
}

bool http_connection::await_deferred(milliseconds& idle, bool to_the_end) {
  auto reply = deferred_;
  using state = deferred_reply::state;
  // Once the client has sent more (or the server is stopping), only the
  // reply is waited for: a pipelined request waits for its turn.
  bool only_reply = to_the_end;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock{reply->mutex_};
      if (reply->state_ == state::sent) {
        lock.unlock();
        deferred_.reset();
        // The keep-alive wait runs from the reply.
        idle -= std::chrono::duration_cast<milliseconds>(now()
                                                         - reply->sent_at_);
        return true;
      }
      if (reply->state_ == state::handed_back) {
        out_ = std::move(reply->bytes_);
        reply->state_ = state::sent;
        lock.unlock();
        deferred_.reset();
        end_handler(); // the reply's deadline
        return flush() && (to_the_end || !reply->close_);
      }
      only_reply = only_reply || buffered();
      reply->owner_waiting_ = only_reply;
    }
    short client_events = only_reply ? POLLRDHUP : (POLLRDHUP | POLLIN);
    pollfd fds[3] = {{wake_fd_, POLLIN, 0},
                     {fd_, client_events, 0},
                     {stop_fd_, POLLIN, 0}};
    nfds_t count = only_reply || stop_fd_ < 0 ? 2 : 3;
    // While the reply is pending, nothing bounds the wait but the call's
    // own deadline; the timeout only re-checks a reply sent meanwhile.
    int timeout = only_reply ? -1
                             : static_cast<int>(
                                 std::max<long long>(idle.count(), 1));
    auto n = ::poll(fds, count, timeout);
    if (n < 0 && errno != EINTR) {
      failed_ = true;
      return false; // the destructor abandons the reply
    }
    if (n <= 0)
      continue;
    if (fds[0].revents != 0)
      drain(wake_fd_);
    if ((fds[1].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0) {
      // The client hung up. A reply already out needs nothing more.
      if (!reply->abandon())
        continue;
      deferred_.reset();
      failed_ = true;
      return false;
    }
    if ((fds[1].revents & POLLIN) != 0 || (count == 3 && fds[2].revents != 0))
      only_reply = true;
  }
}

http_connection::pulled http_connection::pull(std::size_t cap) {
  pulled got;
  if (failed_) {
    got.closed = true;
    return got;
  }
  // Keep the unread bytes at the front, and room behind them.
  if (in_pos_ > 0) {
    std::memmove(in_.data(), in_.data() + in_pos_, in_len_ - in_pos_);
    in_len_ -= in_pos_;
    in_pos_ = 0;
  }
  for (;;) {
    if (in_len_ >= cap)
      return got;
    if (in_.size() - in_len_ < read_chunk / 2)
      in_.resize(std::min(cap, std::max(in_.size() * 2, in_len_ + read_chunk)));
    auto room = std::min(in_.size(), cap) - in_len_;
    ssize_t n;
    if (ssl_ != nullptr) {
      n = SSL_read(ssl_, in_.data() + in_len_, static_cast<int>(room));
      if (n <= 0) {
        if (tls_wants(ssl_, static_cast<int>(n)) != 0)
          return got;
        got.closed = true;
        failed_ = SSL_get_error(ssl_, static_cast<int>(n))
                  != SSL_ERROR_ZERO_RETURN;
        return got;
      }
    } else {
      n = ::recv(fd_, in_.data() + in_len_, room, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return got;
      if (n <= 0) {
        got.closed = true;
        failed_ = n < 0;
        return got;
      }
    }
    in_len_ += static_cast<std::size_t>(n);
    got.bytes += static_cast<std::size_t>(n);
  }
}

int http_connection::handshake_step(short& want) {
  if (ssl_ == nullptr)
    return 1;
  auto rc = SSL_accept(ssl_);
  if (rc == 1)
    return 1;
  want = tls_wants(ssl_, rc);
  if (want == 0)
    failed_ = true;
  return want == 0 ? -1 : 0;
}

void http_connection::send_now(std::string_view bytes) {
  if (failed_ || bytes.empty())
    return;
  if (ssl_ != nullptr) {
    SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size()));
    return;
  }
  ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

http_connection::reply_progress http_connection::take_reply(bool& close) {
  close = false;
  if (!deferred_)
    return reply_progress::none;
  auto reply = deferred_;
  using state = deferred_reply::state;
  std::unique_lock<std::mutex> lock{reply->mutex_};
  close = reply->close_;
  if (reply->state_ == state::pending)
    return reply_progress::pending;
  if (reply->state_ == state::handed_back) {
    out_ = std::move(reply->bytes_);
    reply->state_ = state::sent;
    lock.unlock();
    discarding_ = false;
    end_handler(); // the reply's deadline
  }
  deferred_.reset();
  return reply_progress::out;
}

bool http_connection::reply_pending() const {
  if (!deferred_)
    return false;
  std::lock_guard<std::mutex> lock{deferred_->mutex_};
  return deferred_->state_ == deferred_reply::state::pending;
}

void http_connection::abandon_reply() {
  if (deferred_)
    deferred_->abandon();
  deferred_.reset();
  failed_ = true;
}

bool http_connection::settle() {
  milliseconds unused{0};
  return !deferred_ || await_deferred(unused, true);
}

void http_connection::end_head(bool sized) {
  budget_ = sized ? std::numeric_limits<std::size_t>::max()
                  : limits_.max_unsized_body_bytes;
}

void http_connection::begin_handler() {
  deadline_ = clock::time_point::max();
}

void http_connection::end_handler() {
  deadline_ = now() + limits_.request_timeout;
}

http_connection::wait_result
http_connection::wait(short events, milliseconds limit, bool stoppable) const {
  auto until = now() + limit;
  if (deadline_ < until)
    until = deadline_;
  for (;;) {
    auto left = std::chrono::duration_cast<milliseconds>(until - now());
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
  // Past the request's deadline nothing more is read, even bytes already
  // waiting: a request must arrive whole in time, however it trickles.
  if (deadline_ != clock::time_point::max() && now() >= deadline_) {
    failed_ = true;
    return -1;
  }
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
  if (deferred_ && !await_deferred(idle, false))
    return false;
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
  if (discarding_)
    return static_cast<ssize_t>(size);
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
