// A hostile crowd against the daemon's listener, and what it does to
// everyone else: opens `--idle` keep-alive connections that made one
// request and then sit idle, `--slow` slowloris connections that send a
// head a byte a second and never finish it, and `--waiting` tool calls
// (one per connection) that wait on a slow upstream; then measures
// `--samples` round trips each of GET /healthz and a cached tools/call on
// their own keep-alive connections, meanwhile keeping the slowloris
// trickling.
//
//   transitd-crowd --port N --session ID --cached-body FILE
//                  [--waiting-body FILE] [--idle 1000] [--slow 300]
//                  [--waiting 0] [--samples 200]
//
// Every "%N%" in the waiting body becomes a counter, so that no cache or
// single flight can share the waiting calls. Prints RESULT lines:
//   RESULT probe=healthz samples=.. errors=.. p50_ms=.. p99_ms=.. max_ms=..
//   RESULT crowd idle_open=.. slow_open=.. waiting_open=..
// 127.0.0.1 only; every read is bounded (10 s).

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

using clock_type = std::chrono::steady_clock;

struct options {
  int port = 0;
  std::string session;
  std::string cached_body;
  std::string waiting_body;
  int idle = 1000;
  int slow = 300;
  int waiting = 0;
  int samples = 200;
};

int connect_to(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
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
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

bool send_all(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    auto n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0)
      return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

/// Reads one response (head, then Content-Length bytes); its status, or 0.
int read_response(int fd) {
  std::string got;
  char buf[16 * 1024];
  for (;;) {
    auto head_end = got.find("\r\n\r\n");
    if (head_end != std::string::npos) {
      std::size_t length = 0;
      auto at = got.find("Content-Length: ");
      if (at != std::string::npos && at < head_end)
        length = std::stoul(got.substr(at + 16));
      if (got.size() >= head_end + 4 + length)
        return got.size() > 12 ? std::atoi(got.c_str() + 9) : 0;
    }
    auto n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0)
      return 0;
    got.append(buf, static_cast<std::size_t>(n));
  }
}

std::string post(const options& o, const std::string& body) {
  std::ostringstream r;
  r << "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    << "Content-Type: application/json\r\n"
    << "Accept: application/json, text/event-stream\r\n"
    << "MCP-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: " << o.session
    << "\r\nContent-Length: " << body.size() << "\r\n\r\n"
    << body;
  return r.str();
}

bool still_open(int fd) {
  char c;
  auto n = ::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  return n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
}

std::string read_file(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

double percentile(std::vector<double> v, double p) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  auto i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1));
  return v[i];
}

} // namespace

int main(int argc, char** argv) {
  options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    std::string v = argv[i + 1];
    if (k == "--port")
      o.port = std::stoi(v);
    else if (k == "--session")
      o.session = v;
    else if (k == "--cached-body")
      o.cached_body = read_file(v);
    else if (k == "--waiting-body")
      o.waiting_body = read_file(v);
    else if (k == "--idle")
      o.idle = std::stoi(v);
    else if (k == "--slow")
      o.slow = std::stoi(v);
    else if (k == "--waiting")
      o.waiting = std::stoi(v);
    else if (k == "--samples")
      o.samples = std::stoi(v);
    else {
      std::cerr << "unknown option " << k << "\n";
      return 2;
    }
  }
  if (o.port == 0 || o.cached_body.empty()) {
    std::cerr << "usage: transitd-crowd --port N --session ID --cached-body "
                 "FILE [--waiting-body FILE] [--idle N] [--slow N] "
                 "[--waiting N] [--samples N]\n";
    return 2;
  }
  const std::string health = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  std::vector<int> idle;
  for (int i = 0; i < o.idle; ++i) {
    int fd = connect_to(o.port);
    if (fd < 0 || !send_all(fd, health) || read_response(fd) != 200) {
      std::cerr << "idle connection " << i << " failed\n";
      if (fd >= 0)
        ::close(fd);
      continue;
    }
    idle.push_back(fd);
  }
  std::vector<int> slow;
  for (int i = 0; i < o.slow; ++i) {
    int fd = connect_to(o.port);
    if (fd >= 0 && send_all(fd, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-a: "))
      slow.push_back(fd);
  }
  std::vector<int> waiting;
  for (int i = 0; i < o.waiting && !o.waiting_body.empty(); ++i) {
    int fd = connect_to(o.port);
    if (fd < 0)
      continue;
    auto body = o.waiting_body;
    for (auto at = body.find("%N%"); at != std::string::npos;
         at = body.find("%N%"))
      body.replace(at, 3, std::to_string(i));
    if (send_all(fd, post(o, body)))
      waiting.push_back(fd);
    else
      ::close(fd);
  }
  int probe_health = connect_to(o.port);
  int probe_tool = connect_to(o.port);
  std::vector<double> health_ms;
  std::vector<double> tool_ms;
  int health_errors = 0;
  int tool_errors = 0;
  auto last_trickle = clock_type::now();
  auto timed = [](int fd, const std::string& request) {
    auto start = clock_type::now();
    if (!send_all(fd, request))
      return -1.0;
    if (read_response(fd) != 200)
      return -1.0;
    return std::chrono::duration<double, std::milli>(clock_type::now()
                                                     - start)
      .count();
  };
  auto cached = post(o, o.cached_body);
  for (int i = 0; i < o.samples; ++i) {
    if (clock_type::now() - last_trickle > std::chrono::seconds{1}) {
      for (int fd : slow)
        ::send(fd, "a", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
      last_trickle = clock_type::now();
    }
    auto h = timed(probe_health, health);
    if (h < 0) {
      ++health_errors;
      ::close(probe_health);
      probe_health = connect_to(o.port);
    } else {
      health_ms.push_back(h);
    }
    auto t = timed(probe_tool, cached);
    if (t < 0) {
      ++tool_errors;
      ::close(probe_tool);
      probe_tool = connect_to(o.port);
    } else {
      tool_ms.push_back(t);
    }
  }
  auto report = [](const char* name, const std::vector<double>& v,
                   int errors) {
    std::printf("RESULT probe=%s samples=%zu errors=%d p50_ms=%.2f "
                "p99_ms=%.2f max_ms=%.2f\n",
                name, v.size(), errors, percentile(v, 0.5),
                percentile(v, 0.99),
                v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()));
  };
  report("healthz", health_ms, health_errors);
  report("tools_call_cached", tool_ms, tool_errors);
  auto open = [](const std::vector<int>& fds) {
    return std::count_if(fds.begin(), fds.end(), still_open);
  };
  std::printf("RESULT crowd idle_open=%ld/%d slow_open=%ld/%d "
              "waiting_open=%ld/%d\n",
              static_cast<long>(open(idle)), o.idle,
              static_cast<long>(open(slow)), o.slow,
              static_cast<long>(open(waiting)), o.waiting);
  for (auto* fds : {&idle, &slow, &waiting})
    for (int fd : *fds)
      ::close(fd);
  ::close(probe_health);
  ::close(probe_tool);
  return 0;
}
