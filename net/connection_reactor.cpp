#include "transitd/net/connection_reactor.hpp"
#include "transitd/net/reactor_connection.hpp"

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

} // namespace

connection_reactor::connection_reactor(
  reactor_options options, serve_fn serve,
  std::unique_ptr<httplib::TaskQueue> workers, ssl_ctx_st* tls)
  : options_(std::move(options)),
    serve_(std::move(serve)),
    tls_(tls),
    epoll_fd_(::epoll_create1(EPOLL_CLOEXEC)),
    mail_(std::make_shared<mailbox>()),
    pool_(std::move(workers)) {
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
      auto it = connections_.find(id & ~reactor_stream_tag);
      if (it == connections_.end())
        continue;
      if ((id & reactor_stream_tag) != 0) {
        // The streamed reply's source has something new, or has ended.
        if (it->second->state == phase::streaming)
          pump(it->second);
        continue;
      }
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
        if (c->state == phase::serving || c->state == phase::awaiting_reply
            || c->state == phase::streaming)
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
  if (c->state == phase::streaming) {
    // Only a hang-up wakes it: the stream's source is abandoned (close).
    if ((events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0)
      close(c);
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

void connection_reactor::close(const connection_ptr& c) {
  unwatch(*c);
  unwatch_stream(*c);
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
