#pragma once
// The event loop's own parts (net/connection_reactor.cpp, the loop, and
// net/reactor_connection.cpp, the workers' side): a connection's state and the
// mailbox through which workers and delivering threads reach the loop.
// Not installed: connection_reactor.hpp is the interface.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <sys/eventfd.h>
#include <unistd.h>

#include "transitd/net/connection_reactor.hpp"

struct ssl_st;

namespace transitd {

/// Marks the epoll events of a streamed reply's source (beside the
/// connection ids, which count from 1).
constexpr std::uint64_t reactor_stream_tag = std::uint64_t{1} << 63;

struct connection_reactor::connection {
  std::uint64_t id = 0;
  int fd = -1;
  ssl_st* ssl = nullptr;
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
  /// The streamed reply's source is registered with epoll (and whether
  /// its events are on).
  bool stream_registered = false;
  bool stream_on = false;
  int stream_fd = -1;
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

/// A reply the loop writes itself before closing (a refused request, a
/// client over its cap): JSON-RPC error body, Connection: close.
std::string error_reply(int status, const std::string& reason,
                        const std::string& challenge);

} // namespace transitd
