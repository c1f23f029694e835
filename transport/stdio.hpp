#pragma once
// MCP over standard input and output, as desktop clients launch local
// servers: one JSON-RPC message per line in, one per line out (replies and
// notifications), logs on standard error. Each line goes through the same
// endpoint as an HTTP POST, marked as coming over stdio: no Host, Origin,
// header or token checks (the client started this process; its user is
// the one user, `local`). An `initialize` opens the one session of an older
// revision; 2026-07-28 messages need none.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "transport/mcp.hpp"

namespace transitd::mcp {

class stdio_server {
public:
  /// Reads from `in_fd`, writes to `out_fd`; a line longer than
  /// `max_line_bytes` is refused (and skipped) with a JSON-RPC error.
  stdio_server(endpoint& ep, int in_fd, int out_fd,
               std::size_t max_line_bytes);
  ~stdio_server();
  stdio_server(const stdio_server&) = delete;
  stdio_server& operator=(const stdio_server&) = delete;

  /// Serves until the input ends or stop(); then waits for the replies
  /// still due (every call ends by its deadline) and returns.
  void run();
  /// Stops reading (thread-safe); run() returns once the replies due are
  /// out.
  void stop();

private:
  void handle_line(std::string_view line);
  /// `notification`: the line was one, and gets no answer line (an error
  /// about it is logged instead).
  void deliver(http_reply reply, bool notification);
  void pump(std::shared_ptr<event_stream> stream);
  /// Writes one message and a newline, whole, under the write lock.
  void write_line(std::string_view message);
  void write_events(std::string_view sse_text);
  void finished();

  endpoint& endpoint_;
  int in_;
  int out_;
  std::size_t max_line_bytes_;
  int wake_[2] = {-1, -1};
  std::mutex write_mutex_;
  bool out_broken_ = false;
  std::mutex state_mutex_;
  std::condition_variable idle_;
  int pending_ = 0;
  /// The legacy session opened by `initialize` and its revision.
  std::string session_id_;
  std::string session_version_;
  /// One thread per streaming reply, joined once done (reaped as new
  /// ones start, and at the end).
  struct pump_thread {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::vector<pump_thread> pumps_;
};

} // namespace transitd::mcp
