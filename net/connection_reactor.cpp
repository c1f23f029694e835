#include "transitd/net/connection_reactor.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace transitd {

namespace {

/// How often deadlines are checked at most; a phase ends within this much
/// of its bound.
constexpr std::chrono::milliseconds expiry_step{100};

/// The client's address, without its port ("" when unknown).
std::string client_of(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    return {};
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
  } else if (addr.ss_family == AF_INET6) {
    auto* in = reinterpret_cast<sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &in->sin6_addr, text, sizeof(text));
  }
  return text;
}

std::string error_reply(int status, const std::string& reason,
                        const std::string& challenge) {
  auto body = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
              "\"message\":\""
              + reason + "\"}}";
  std::string phrase = status == 400   ? "Bad Request"
                       : status == 413 ? "Payload Too Large"
                       : status == 414 ? "URI Too Long"
                       : status == 431 ? "Request Header Fields Too Large"
                       : status == 501 ? "Not Implemented"
                       : status == 503 ? "Service Unavailable"
                                       : "Error";
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + phrase
                    + "\r\nConnection: close\r\nContent-Type: "
                      "application/json\r\nContent-Length: "
                    + std::to_string(body.size()) + "\r\n";
  if (!challenge.empty())
    out += "WWW-Authenticate: " + challenge + "\r\n";
  if (status == 503)
    out += "Retry-After: 1\r\n";
  return out + "\r\n" + body;
}

} // namespace

struct connection_reactor::connection {
  std::uint64_t id = 0;
  int fd = -1;
  SSL* ssl = nullptr;
  std::unique_ptr<http_connection> http;
  std::string client;
  phase state = phase::handshaking;
  bool watched = false;
  /// The phase's bound, and (reading) the wait for the next bytes.
  std::chrono::steady_clock::time_point deadline;
  std::chrono::steady_clock::time_point bytes_deadline;
  std::size_t remaining = 0;
  bool sent_continue = false;
  /// While a worker lingers on it: the descriptor that wakes the worker
  /// for a reply handed back (else -1: the loop owns it).
  std::mutex owner_mutex;
  int worker_wake = -1;
  /// The lingering worker has the next request already and waits only for
  /// the reply: wake it even for a reply sent whole.
  bool worker_wants_reply = false;
  /// Close once the pending reply is out.
  bool close_after = false;
};

struct connection_reactor::mailbox {
  enum class kind { socket, served, reply, stop };
  struct letter {
    kind what;
    std::uint64_t id = 0;
    int fd = -1;
    bool keep = false;
    std::size_t requests = 0;
  };
  std::mutex mutex;
  std::vector<letter> letters;
  int event_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  bool closed = false;

  ~mailbox() {
    if (event_fd >= 0)
      ::close(event_fd);
    for (auto& l : letters)
      if (l.what == kind::socket)
        ::close(l.fd);
  }

  /// False when the loop has ended (a socket is then closed here).
  bool post(letter l) {
    {
      std::lock_guard<std::mutex> lock{mutex};
      if (closed) {
        if (l.what == kind::socket)
          ::close(l.fd);
        return false;
      }
      letters.push_back(l);
    }
    std::uint64_t one = 1;
    [[maybe_unused]] auto n = ::write(event_fd, &one, sizeof(one));
    return true;
  }
};

connection_reactor::connection_reactor(
  reactor_options options, serve_fn serve,
  std::unique_ptr<httplib::TaskQueue> workers, ssl_ctx_st* tls)
  : options_(std::move(options)),
    serve_(std::move(serve)),
    tls_(tls),
    pool_(std::move(workers)),
    epoll_fd_(::epoll_create1(EPOLL_CLOEXEC)),
    mail_(std::make_shared<mailbox>()) {
  if (epoll_fd_ < 0 || mail_->event_fd < 0)
    throw std::runtime_error(std::string{"cannot create the event loop: "}
                             + std::strerror(errno));
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = 0; // the mailbox; connections count from 1
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, mail_->event_fd, &ev);
  last_expiry_ = now();
  thread_ = std::thread{[this] { run(); }};
}

connection_reactor::~connection_reactor() {
  stop();
  join();
  if (epoll_fd_ >= 0)
    ::close(epoll_fd_);
}

std::chrono::steady_clock::time_point connection_reactor::now() const {
  return options_.limits.clock ? options_.limits.clock()
                               : std::chrono::steady_clock::now();
}

void connection_reactor::add(int fd) {
  mail_->post({mailbox::kind::socket, 0, fd, false});
}

void connection_reactor::stop() {
  mail_->post({mailbox::kind::stop});
}

void connection_reactor::join() {
  if (thread_.joinable())
    thread_.join();
  if (pool_) {
    pool_->shutdown();
    pool_.reset();
  }
}

reactor_stats connection_reactor::stats() const {
  reactor_stats s;
  s.accepted = accepted_.load();
  s.refused_over_cap = refused_over_cap_.load();
  s.head_timeouts = head_timeouts_.load();
  s.idle_timeouts = idle_timeouts_.load();
  s.refused_framing = refused_framing_.load();
  s.requests = requests_.load();
  auto at = [this](phase p) {
    return in_phase_[static_cast<std::size_t>(p)].load();
  };
  s.idle = at(phase::idle);
  s.reading = at(phase::reading) + at(phase::handshaking)
              + at(phase::draining);
  s.serving = at(phase::serving);
  s.awaiting_reply = at(phase::awaiting_reply);
  s.open = s.idle + s.reading + s.serving + s.awaiting_reply;
  return s;
}

void connection_reactor::set_phase(connection& c, phase p) {
  --in_phase_[static_cast<std::size_t>(c.state)];
  ++in_phase_[static_cast<std::size_t>(p)];
  c.state = p;
}

void connection_reactor::watch(connection& c, std::uint32_t events) {
  epoll_event ev{};
  ev.events = events | EPOLLRDHUP;
  ev.data.u64 = c.id;
  ::epoll_ctl(epoll_fd_, c.watched ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c.fd, &ev);
  c.watched = true;
}

void connection_reactor::unwatch(connection& c) {
  if (!c.watched)
    return;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.fd, nullptr);
  c.watched = false;
}

void connection_reactor::run() {
  ::pthread_setname_np(::pthread_self(), "http.loop");
  std::vector<epoll_event> events(256);
  for (;;) {
    if (stopping_ && connections_.empty())
      break;
    auto n = ::epoll_wait(epoll_fd_, events.data(),
                          static_cast<int>(events.size()),
                          static_cast<int>(expiry_step.count()));
    if (n < 0 && errno != EINTR)
      break;
    for (int i = 0; i < n; ++i) {
      auto id = events[static_cast<std::size_t>(i)].data.u64;
      if (id == 0) {
        on_mail();
        continue;
      }
      auto it = connections_.find(id);
      if (it != connections_.end())
        on_event(it->second, events[static_cast<std::size_t>(i)].events);
    }
    if (now() - last_expiry_ >= expiry_step)
      expire();
  }
  // Nothing may post any more; what was posted is dropped (sockets closed).
  std::lock_guard<std::mutex> lock{mail_->mutex};
  mail_->closed = true;
}

void connection_reactor::on_mail() {
  std::uint64_t count;
  while (::read(mail_->event_fd, &count, sizeof(count)) > 0) {
  }
  std::vector<mailbox::letter> letters;
  {
    std::lock_guard<std::mutex> lock{mail_->mutex};
    letters.swap(mail_->letters);
  }
  for (const auto& l : letters) {
    if (l.what == mailbox::kind::socket) {
      accept_socket(l.fd);
      continue;
    }
    if (l.what == mailbox::kind::stop) {
      if (stopping_)
        continue;
      stopping_ = true;
      stopping_flag_ = true;
      std::vector<connection_ptr> all;
      for (auto& [id, c] : connections_)
        all.push_back(c);
      for (auto& c : all) {
        if (c->state == phase::serving || c->state == phase::awaiting_reply)
          c->close_after = true; // goes once its reply is out
        else
          close(c);
      }
      continue;
    }
    auto it = connections_.find(l.id);
    if (it == connections_.end())
      continue;
    auto c = it->second;
    if (l.what == mailbox::kind::served)
      served(c, l.keep, l.requests);
    else if (c->state == phase::awaiting_reply)
      reply_ready(c);
  }
}

void connection_reactor::accept_socket(int fd) {
  accepted_.fetch_add(1);
  auto c = std::make_shared<connection>();
  c->id = ++next_id_;
  c->fd = fd;
  c->client = client_of(fd);
  auto& from_client = per_client_[c->client];
  ++in_phase_[static_cast<std::size_t>(phase::handshaking)];
  c->state = phase::handshaking;
  ++from_client;
  connections_.emplace(c->id, c);
  if (stopping_ || from_client > options_.max_connections_per_client
      || connections_.size() > options_.max_connections) {
    // Over a cap: say so in plain HTTP (not over TLS: no handshake is
    // spent on it) and close.
    refused_over_cap_.fetch_add(1);
    if (tls_ == nullptr) {
      auto reply = error_reply(503,
                               "Service Unavailable: too many connections "
                               "from this client; reuse one (keep-alive)",
                               {});
      ::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    close(c);
    return;
  }
  if (tls_ != nullptr) {
    c->ssl = SSL_new(tls_);
    if (c->ssl == nullptr || SSL_set_fd(c->ssl, fd) != 1) {
      close(c);
      return;
    }
  }
  auto keep_alive
    = "timeout="
      + std::to_string(std::max<long long>(
        1, (options_.keep_alive.count() + 999) / 1000))
      + ", max=" + std::to_string(options_.max_requests);
  c->http = std::make_unique<http_connection>(fd, options_.stop_fd,
                                              options_.limits, c->ssl,
                                              std::move(keep_alive));
  std::weak_ptr<mailbox> mail = mail_;
  std::weak_ptr<connection> self = c;
  auto id = c->id;
  c->http->set_notifier([mail, self, id](bool sent) {
    if (auto owner = self.lock()) {
      std::lock_guard<std::mutex> lock{owner->owner_mutex};
      if (owner->worker_wake >= 0) {
        // A worker lingers on it: a reply sent needs nothing, one handed
        // back needs the worker.
        if (!sent || owner->worker_wants_reply) {
          std::uint64_t one = 1;
          [[maybe_unused]] auto n = ::write(owner->worker_wake, &one,
                                            sizeof(one));
        }
        return;
      }
    }
    if (auto box = mail.lock())
      box->post({mailbox::kind::reply, id});
  });
  c->remaining = std::max<std::size_t>(1, options_.max_requests);
  c->deadline = now() + options_.limits.read_timeout;
  if (c->ssl == nullptr) {
    next_request(c);
    return;
  }
  on_event(c, 0); // the first handshake step
}

void connection_reactor::on_event(const connection_ptr& c,
                                  std::uint32_t events) {
  if (c->state == phase::handshaking) {
    if ((events & (EPOLLHUP | EPOLLERR)) != 0) {
      close(c);
      return;
    }
    short want = 0;
    auto step = c->http->handshake_step(want);
    if (step < 0) {
      close(c);
      return;
    }
    if (step == 0) {
      watch(*c, want == POLLOUT ? EPOLLOUT : EPOLLIN);
      return;
    }
    next_request(c);
    return;
  }
  if (c->state == phase::awaiting_reply) {
    // Only a hang-up wakes a connection whose reply is pending.
    if ((events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0) {
      bool close_it = false;
      if (c->http->take_reply(close_it)
          == http_connection::reply_progress::pending)
        c->http->abandon_reply();
      close(c);
    }
    return;
  }
  if (c->state == phase::draining) {
    char scratch[16 * 1024];
    for (;;) {
      auto n = ::recv(c->fd, scratch, sizeof(scratch), 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return;
      if (n <= 0) {
        close(c);
        return;
      }
    }
  }
  if (c->state == phase::idle || c->state == phase::reading)
    read_request(c);
}

void connection_reactor::read_request(const connection_ptr& c) {
  auto cap = options_.framing.max_head + options_.framing.max_chunked;
  auto got = c->http->pull(cap);
  auto t = now();
  if (got.bytes > 0) {
    if (c->state == phase::idle) {
      set_phase(*c, phase::reading);
      c->deadline = t + options_.limits.request_timeout;
      c->sent_continue = false;
    }
    c->bytes_deadline = t + options_.limits.read_timeout;
  }
  auto unread = c->http->unread();
  if (unread.empty()) {
    if (got.closed)
      close(c);
    return;
  }
  if (c->state == phase::idle) {
    // Bytes left over from before (pipelined): a request starts.
    set_phase(*c, phase::reading);
    c->deadline = t + options_.limits.request_timeout;
    c->bytes_deadline = t + options_.limits.read_timeout;
    c->sent_continue = false;
  }
  auto framing = frame_request(unread, options_.framing);
  using verdict = request_framing::verdict;
  if (framing.what == verdict::refused) {
    refused_framing_.fetch_add(1);
    refuse(c, framing.status, framing.reason,
           framing.status == 431 && framing.authorization);
    return;
  }
  if (framing.what == verdict::complete) {
    dispatch(c);
    return;
  }
  if (got.closed || unread.size() >= cap) {
    close(c); // cut off: nothing to answer
    return;
  }
  if (framing.head_size > 0 && framing.expects_continue
      && !c->sent_continue) {
    c->sent_continue = true;
    c->http->send_now("HTTP/1.1 100 Continue\r\n\r\n");
  }
  if (!c->watched)
    watch(*c, EPOLLIN);
}

void connection_reactor::dispatch(const connection_ptr& c) {
  unwatch(*c);
  set_phase(*c, phase::serving);
  std::weak_ptr<mailbox> mail = mail_;
  ++queued_;
  {
    // Every worker may be lingering on a busy connection: wake one.
    std::lock_guard<std::mutex> lock{lingering_mutex_};
    if (!lingering_.empty()) {
      std::uint64_t one = 1;
      [[maybe_unused]] auto n = ::write(lingering_.back(), &one, sizeof(one));
    }
  }
  pool_->enqueue([this, c, mail] {
    --queued_;
    bool keep = false;
    auto requests = work(c, keep);
    if (auto box = mail.lock())
      box->post({mailbox::kind::served, c->id, -1, keep, requests});
  });
}

namespace {

/// The calling worker's own wake-up descriptor (made on first use).
int worker_wake_fd() {
  thread_local struct holder {
    int fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    ~holder() {
      if (fd >= 0)
        ::close(fd);
    }
  } wake;
  return wake.fd;
}

void drain_wake(int fd) {
  std::uint64_t count;
  while (::read(fd, &count, sizeof(count)) > 0) {
  }
}

} // namespace

std::size_t connection_reactor::work(const connection_ptr& c, bool& keep) {
  auto& http = *c->http;
  http_connection::scope current{http};
  std::size_t requests = 0;
  // c->remaining belongs to the loop, which does not touch it while a
  // worker has the connection.
  auto serve_one = [&] {
    ++requests;
    requests_.fetch_add(1);
    bool last = c->remaining <= requests || stopping_flag_;
    bool closed = false;
    keep = serve_(http, last, closed) && !closed && !last;
    keep = http.flush() && keep && !http.closing();
  };
  serve_one();
  if (!keep || options_.linger.count() <= 0)
    return requests;
  auto wake = worker_wake_fd();
  if (wake < 0)
    return requests;
  drain_wake(wake);
  {
    std::lock_guard<std::mutex> lock{c->owner_mutex};
    c->worker_wake = wake;
  }
  {
    std::lock_guard<std::mutex> lock{lingering_mutex_};
    lingering_.push_back(wake);
  }
  auto until = std::chrono::steady_clock::now() + options_.linger;
  auto cap = options_.framing.max_head + options_.framing.max_chunked;
  for (;;) {
    bool reply_closes = false;
    auto progress = http.take_reply(reply_closes);
    if (progress == http_connection::reply_progress::out) {
      if ((http.has_output() && !http.flush()) || reply_closes) {
        keep = false;
        break;
      }
    }
    bool pending = progress == http_connection::reply_progress::pending;
    if (!pending && !http.unread().empty()) {
      // A whole next request is served here; a partial or refused one
      // is the loop's.
      auto framing = frame_request(http.unread(), options_.framing);
      if (framing.what == request_framing::verdict::complete) {
        serve_one();
        if (!keep)
          break;
        until = std::chrono::steady_clock::now() + options_.linger;
        continue;
      }
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      until - std::chrono::steady_clock::now());
    if (queued_ > 0 || stopping_flag_ || left.count() <= 0
        || http.unread().size() >= cap)
      break;
    {
      // Waiting for the reply alone (the next request is here): the
      // delivering thread must wake us; else the client's next bytes do.
      std::lock_guard<std::mutex> lock{c->owner_mutex};
      c->worker_wants_reply = pending && !http.unread().empty();
    }
    if (pending && !http.unread().empty() && !http.reply_pending())
      continue; // it came meanwhile
    pollfd fds[2] = {{http.fd(), static_cast<short>(POLLIN | POLLRDHUP), 0},
                     {wake, POLLIN, 0}};
    auto n = ::poll(fds, 2, static_cast<int>(left.count()) + 1);
    if (n < 0 && errno != EINTR)
      break;
    if (fds[1].revents != 0)
      drain_wake(wake);
    if ((fds[0].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0)
      break; // the loop sees the hang-up too
    if ((fds[0].revents & POLLIN) != 0 && http.pull(cap).closed)
      break;
  }
  {
    std::lock_guard<std::mutex> lock{lingering_mutex_};
    lingering_.erase(std::find(lingering_.begin(), lingering_.end(), wake));
  }
  std::lock_guard<std::mutex> lock{c->owner_mutex};
  c->worker_wake = -1;
  c->worker_wants_reply = false;
  return requests;
}

void connection_reactor::served(const connection_ptr& c, bool keep,
                                std::size_t requests) {
  c->remaining -= std::min(c->remaining, requests);
  keep = keep && c->remaining > 0 && !c->close_after && !stopping_;
  bool reply_closes = false;
  switch (c->http->take_reply(reply_closes)) {
    case http_connection::reply_progress::pending:
      set_phase(*c, phase::awaiting_reply);
      c->close_after = !keep || reply_closes;
      watch(*c, 0);
      return;
    case http_connection::reply_progress::out:
      flush_then(c, keep && !reply_closes);
      return;
    case http_connection::reply_progress::none:
      break;
  }
  if (!keep) {
    close(c);
    return;
  }
  next_request(c);
}

void connection_reactor::reply_ready(const connection_ptr& c) {
  bool reply_closes = false;
  auto progress = c->http->take_reply(reply_closes);
  if (progress == http_connection::reply_progress::pending)
    return;
  flush_then(c, !c->close_after && !reply_closes && !stopping_);
}

void connection_reactor::flush_then(const connection_ptr& c, bool keep) {
  if (!c->http->has_output()) {
    // Sent by the delivering thread already.
    if (!keep) {
      close(c);
      return;
    }
    next_request(c);
    return;
  }
  // Bytes handed back by a deferred reply go out on a worker, which may
  // wait for the socket within the write timeout.
  unwatch(*c);
  set_phase(*c, phase::serving);
  std::weak_ptr<mailbox> mail = mail_;
  pool_->enqueue([c, keep, mail] {
    auto ok = c->http->flush();
    if (auto box = mail.lock())
      box->post({mailbox::kind::served, c->id, -1, ok && keep, 0});
  });
}

void connection_reactor::next_request(const connection_ptr& c) {
  set_phase(*c, phase::idle);
  c->deadline = now() + options_.keep_alive;
  if (!c->http->unread().empty()) {
    read_request(c); // pipelined: already here
    return;
  }
  watch(*c, EPOLLIN);
}

void connection_reactor::refuse(const connection_ptr& c, int status,
                                const std::string& reason, bool challenge) {
  c->http->send_now(error_reply(
    status, reason, challenge ? options_.bearer_challenge : std::string{}));
  // Closing with the client's bytes unread would reset the connection and
  // could destroy the reply on its way: stop writing, drop what still
  // comes for a little while, then close.
  ::shutdown(c->fd, SHUT_WR);
  set_phase(*c, phase::draining);
  c->deadline = now() + std::min<std::chrono::milliseconds>(
                          options_.limits.read_timeout,
                          std::chrono::milliseconds{2000});
  watch(*c, EPOLLIN);
}

void connection_reactor::close(const connection_ptr& c) {
  unwatch(*c);
  --in_phase_[static_cast<std::size_t>(c->state)];
  auto it = per_client_.find(c->client);
  if (it != per_client_.end() && --it->second == 0)
    per_client_.erase(it);
  if (c->http) {
    c->http->close_notify();
    c->http.reset(); // abandons a reply still pending
  }
  if (c->ssl != nullptr)
    SSL_free(c->ssl);
  ::shutdown(c->fd, SHUT_RDWR);
  ::close(c->fd);
  connections_.erase(c->id);
}

void connection_reactor::expire() {
  auto t = now();
  last_expiry_ = t;
  std::vector<connection_ptr> late;
  for (auto& [id, c] : connections_) {
    switch (c->state) {
      case phase::handshaking:
      case phase::draining:
        if (t >= c->deadline)
          late.push_back(c);
        break;
      case phase::idle:
        if (t >= c->deadline) {
          idle_timeouts_.fetch_add(1);
          late.push_back(c);
        }
        break;
      case phase::reading:
        if (t >= c->deadline || t >= c->bytes_deadline) {
          head_timeouts_.fetch_add(1);
          late.push_back(c);
        }
        break;
      default:
        break;
    }
  }
  for (auto& c : late)
    close(c);
}

} // namespace transitd
