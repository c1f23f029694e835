// An open-loop load generator for latency under a fixed request rate.
//
// wrk is closed-loop: each connection sends its next request only when the
// previous one is answered, so on a saturated machine its latency is
// queueing (Little's law), and a slow reply delays the requests behind it
// without counting them (coordinated omission). This one sends requests at
// fixed intended times, spread over a pool of keep-alive connections, and
// measures every latency from its intended time; a request that finds no
// idle connection waits, and its wait counts.
//
//   transitd-openloop --port N --body-file FILE [--path P] [--session ID]
//                     [--rate R] [--connections C] [--duration S]
//                     [--warmup S]
//
// --path (default /mcp) lets the same generator measure the mock upstream
// directly, so an upstream's own round trip can be told apart from what
// transitd adds to it.
//
// Every "%N%" in the body becomes a request counter (1, 2, ...), so that
// each request is distinct: no cache or single-flight can share its work.
//
// Prints one line: RESULT intended=.. completed=.. errors=.. late=..
// p50_ms=.. p90_ms=.. p99_ms=.. max_ms=.. (latencies of the requests
// intended after the warm-up). 127.0.0.1 only.

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

using clock_type = std::chrono::steady_clock;
using ns = std::chrono::nanoseconds;

struct options {
  int port = 0;
  std::string body_file;
  std::string path = "/mcp";
  std::string session;
  double rate = 1000;
  int connections = 256;
  double duration_s = 10;
  double warmup_s = 2;
};

struct connection {
  int fd = -1;
  bool busy = false;
  clock_type::time_point intended{};
  std::string in;
  std::size_t out_sent = 0;
};

bool parse_options(int argc, char** argv, options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    std::string value = argv[i + 1];
    if (flag == "--port")
      o.port = std::stoi(value);
    else if (flag == "--body-file")
      o.body_file = value;
    else if (flag == "--path")
      o.path = value;
    else if (flag == "--session")
      o.session = value == "-" ? "" : value;
    else if (flag == "--rate")
      o.rate = std::stod(value);
    else if (flag == "--connections")
      o.connections = std::stoi(value);
    else if (flag == "--duration")
      o.duration_s = std::stod(value);
    else if (flag == "--warmup")
      o.warmup_s = std::stod(value);
    else
      return false;
  }
  return o.port > 0 && !o.body_file.empty() && !o.path.empty()
         && o.path[0] == '/' && o.rate > 0
         && o.connections > 0 && o.duration_s > 0;
}

int connect_to(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL, 0) | O_NONBLOCK);
  return fd;
}

/// Bytes of one whole response at the start of `in`, 0 while incomplete;
/// sets `status`.
std::size_t response_size(const std::string& in, int& status) {
  auto head_end = in.find("\r\n\r\n");
  if (head_end == std::string::npos)
    return 0;
  status = in.size() > 12 ? std::atoi(in.c_str() + 9) : 0;
  std::size_t length = 0;
  std::size_t at = 0;
  while ((at = in.find('\n', at)) != std::string::npos && at < head_end) {
    ++at;
    if (in.size() - at > 15 && ::strncasecmp(in.c_str() + at,
                                             "content-length:", 15) == 0)
      length = std::strtoull(in.c_str() + at + 15, nullptr, 10);
  }
  auto total = head_end + 4 + length;
  return in.size() >= total ? total : 0;
}

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty())
    return 0;
  auto rank = static_cast<std::size_t>(p * static_cast<double>(sorted.size()));
  return sorted[std::min(rank, sorted.size() - 1)];
}

} // namespace

int main(int argc, char** argv) {
  options o;
  if (!parse_options(argc, argv, o)) {
    std::cerr << "usage: transitd-openloop --port N --body-file FILE "
                 "[--path P] [--session ID] [--rate R] [--connections C] "
                 "[--duration S] [--warmup S]\n";
    return 2;
  }
  std::ifstream file{o.body_file, std::ios::binary};
  std::ostringstream text;
  text << file.rdbuf();
  auto body = text.str();
  std::string head = "POST " + o.path + " HTTP/1.1\r\nHost: 127.0.0.1:"
                     + std::to_string(o.port)
                     + "\r\nContent-Type: application/json\r\n"
                       "Accept: application/json, text/event-stream\r\n"
                       "MCP-Protocol-Version: 2025-11-25\r\n";
  if (!o.session.empty())
    head += "Mcp-Session-Id: " + o.session + "\r\n";
  const bool vary = body.find("%N%") != std::string::npos;
  std::uint64_t counter = 0;
  auto make_request = [&] {
    auto b = body;
    if (vary) {
      auto n = std::to_string(++counter);
      for (auto at = b.find("%N%"); at != std::string::npos;
           at = b.find("%N%", at + n.size()))
        b.replace(at, 3, n);
    }
    return head + "Content-Length: " + std::to_string(b.size())
           + "\r\n\r\n" + b;
  };
  std::string request = make_request();

  int ep = ::epoll_create1(EPOLL_CLOEXEC);
  std::vector<connection> conns(static_cast<std::size_t>(o.connections));
  std::deque<std::size_t> idle;
  for (std::size_t i = 0; i < conns.size(); ++i) {
    conns[i].fd = connect_to(o.port);
    if (conns[i].fd < 0) {
      std::cerr << "cannot connect to 127.0.0.1:" << o.port << "\n";
      return 1;
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    ::epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &ev);
    idle.push_back(i);
  }

  const auto interval = ns{static_cast<int64_t>(1e9 / o.rate)};
  const auto start = clock_type::now();
  const auto measured_from
    = start + ns{static_cast<int64_t>(o.warmup_s * 1e9)};
  const auto end = start + ns{static_cast<int64_t>(o.duration_s * 1e9)};
  const auto drain_until = end + std::chrono::seconds{10};
  auto next = start;
  std::deque<clock_type::time_point> waiting; // intended, no connection yet
  std::vector<double> latencies_ms;
  latencies_ms.reserve(static_cast<std::size_t>(o.rate * o.duration_s) + 16);
  std::uint64_t intended = 0, completed = 0, errors = 0, late = 0;
  std::size_t in_flight = 0;

  auto send_on = [&](std::size_t i, clock_type::time_point when) {
    auto& c = conns[i];
    c.busy = true;
    c.intended = when;
    c.out_sent = 0;
    ++in_flight;
    if (vary)
      request = make_request();
    while (c.out_sent < request.size()) {
      auto n = ::send(c.fd, request.data() + c.out_sent,
                      request.size() - c.out_sent, MSG_NOSIGNAL);
      if (n > 0) {
        c.out_sent += static_cast<std::size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR)
        continue;
      // Requests are a few hundred bytes: a full send buffer means the
      // server stopped reading; count it and drop the connection.
      ++errors;
      --in_flight;
      c.busy = false;
      return;
    }
  };

  std::vector<epoll_event> events(conns.size());
  char buf[65536];
  for (;;) {
    auto now = clock_type::now();
    while (next <= now && next < end) {
      waiting.push_back(next);
      ++intended;
      next += interval;
    }
    while (!waiting.empty() && !idle.empty()) {
      auto i = idle.front();
      idle.pop_front();
      if (waiting.front() + interval < now)
        ++late; // sent later than one interval after its time
      send_on(i, waiting.front());
      waiting.pop_front();
    }
    if (now >= end && (in_flight == 0 || now >= drain_until))
      break;
    auto wake = next < end ? next : now + std::chrono::milliseconds{50};
    auto wait_ns = std::max<int64_t>(0, (wake - now).count());
    timespec timeout{static_cast<time_t>(wait_ns / 1000000000),
                     static_cast<long>(wait_ns % 1000000000)};
    int n = ::epoll_pwait2(ep, events.data(), static_cast<int>(events.size()),
                           &timeout, nullptr);
    if (n < 0 && errno != EINTR) {
      std::perror("epoll_pwait2");
      return 1;
    }
    auto arrived = clock_type::now();
    for (int k = 0; k < n; ++k) {
      auto i = static_cast<std::size_t>(events[k].data.u64);
      auto& c = conns[i];
      for (;;) {
        auto got = ::recv(c.fd, buf, sizeof(buf), 0);
        if (got > 0) {
          c.in.append(buf, static_cast<std::size_t>(got));
          continue;
        }
        if (got < 0 && errno == EINTR)
          continue;
        if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
          // The server closed (or reset): reconnect. An idle connection is
          // already in the idle list; a busy one's request failed.
          ::epoll_ctl(ep, EPOLL_CTL_DEL, c.fd, nullptr);
          ::close(c.fd);
          bool was_busy = c.busy;
          if (was_busy) {
            ++errors;
            --in_flight;
            c.busy = false;
          }
          c.in.clear();
          c.fd = connect_to(o.port);
          if (c.fd < 0) {
            std::cerr << "cannot reconnect to 127.0.0.1:" << o.port << "\n";
            return 1;
          }
          epoll_event ev{};
          ev.events = EPOLLIN;
          ev.data.u64 = i;
          ::epoll_ctl(ep, EPOLL_CTL_ADD, c.fd, &ev);
          if (was_busy)
            idle.push_back(i);
        }
        break;
      }
      int status = 0;
      if (!c.busy)
        continue;
      if (auto size = response_size(c.in, status); size > 0) {
        c.in.erase(0, size);
        c.busy = false;
        --in_flight;
        if (status != 200) {
          ++errors;
        } else {
          ++completed;
          if (c.intended >= measured_from)
            latencies_ms.push_back(
              std::chrono::duration<double, std::milli>(arrived - c.intended)
                .count());
        }
        idle.push_back(i);
      }
    }
  }
  errors += in_flight; // unanswered within the drain
  std::sort(latencies_ms.begin(), latencies_ms.end());
  std::printf("RESULT intended=%llu completed=%llu errors=%llu late=%llu "
              "p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f\n",
              static_cast<unsigned long long>(intended),
              static_cast<unsigned long long>(completed),
              static_cast<unsigned long long>(errors),
              static_cast<unsigned long long>(late),
              percentile(latencies_ms, 0.50), percentile(latencies_ms, 0.90),
              percentile(latencies_ms, 0.99),
              latencies_ms.empty() ? 0.0 : latencies_ms.back());
  for (auto& c : conns)
    if (c.fd >= 0)
      ::close(c.fd);
  ::close(ep);
  return 0;
}
