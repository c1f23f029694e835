#include "transitd/net/connection_reactor.hpp"
#include "transitd/net/reactor_connection.hpp"

// A connection's side of the event loop: its phase and what epoll watches,
// a whole request on a worker, the worker lingering on a busy connection,
// and the connection handed back (its reply out, pending, or still to
// flush); a refusal written before closing.

#include <algorithm>
#include <cerrno>
#include <chrono>

#include <httplib.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace transitd {

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
  s.streaming = at(phase::streaming);
  s.open = s.idle + s.reading + s.serving + s.awaiting_reply + s.streaming;
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

std::string error_reply(int status, const std::string& reason,
                        const std::string& challenge) {
  auto body = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
              "\"message\":\""
              + reason + "\"}}";
  auto phrase = std::string{reason_phrase(status)};
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
  // A streamed reply is the loop's to send: no lingering beside it.
  if (!keep || options_.linger.count() <= 0 || http.streaming())
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
        if (!keep || http.streaming())
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
  if (c->http->streaming()) {
    c->close_after = !keep || c->http->stream_closes();
    begin_streaming(c);
    return;
  }
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

void connection_reactor::watch_stream(connection& c, bool on) {
  if (c.stream_registered && c.stream_on == on)
    return;
  epoll_event ev{};
  ev.events = on ? std::uint32_t{EPOLLIN} : std::uint32_t{0};
  ev.data.u64 = c.id | reactor_stream_tag;
  if (!c.stream_registered)
    c.stream_fd = c.http->stream_fd();
  ::epoll_ctl(epoll_fd_, c.stream_registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD,
              c.stream_fd, &ev);
  c.stream_registered = true;
  c.stream_on = on;
}

void connection_reactor::unwatch_stream(connection& c) {
  // Before the source (which owns the descriptor) goes: a number closed
  // and reused could otherwise name another file here.
  if (!c.stream_registered)
    return;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.stream_fd, nullptr);
  c.stream_registered = false;
  c.stream_on = false;
  c.stream_fd = -1;
}

void connection_reactor::begin_streaming(const connection_ptr& c) {
  set_phase(*c, phase::streaming);
  watch(*c, 0); // hang-ups only; a pipelined request waits its turn
  watch_stream(*c, true);
  pump(c);
}

void connection_reactor::pump(const connection_ptr& c) {
  auto& http = *c->http;
  bool ended = http.pump_stream();
  if (http.has_output() && !http.send_ready()) {
    if (http.failed()) {
      close(c); // the client is gone: the source is abandoned
      return;
    }
    // The socket is full (or TLS): a worker sends the rest within the
    // write timeout, then hands the connection back (served()).
    watch_stream(*c, false);
    if (ended) {
      unwatch_stream(*c);
      http.end_stream();
    }
    flush_then(c, !c->close_after && !stopping_);
    return;
  }
  if (!ended)
    return;
  unwatch_stream(*c);
  http.end_stream();
  if (c->close_after || stopping_) {
    close(c);
    return;
  }
  next_request(c);
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

} // namespace transitd
