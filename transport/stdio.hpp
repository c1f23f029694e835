#pragma once
// MCP over standard input and output, as desktop clients launch local
// servers: one JSON-RPC message per line in, one per line out (answers and
// notifications), logs on standard error. Lines go straight to the MCP core
// (no HTTP in between): no Host, Origin, header or token checks (the client
// started this process; its user is the one user, `local`). An
// `initialize` opens the one session of an older revision, which every
// later line belongs to; 2026-07-28 messages need none.

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>

#include "transitd/transport/mcp_core.hpp"

namespace transitd::mcp {

class stdio_server {
public:
  /// Reads from `in_fd`, writes to `out_fd`; a line longer than
  /// `max_line_bytes` is refused (and skipped) with a JSON-RPC error.
  stdio_server(core& mcp, int in_fd, int out_fd, std::size_t max_line_bytes);
  ~stdio_server();
  stdio_server(const stdio_server&) = delete;
  stdio_server& operator=(const stdio_server&) = delete;

  /// Serves until the input ends or stop(); then waits for the answers
  /// still due (every call ends by its deadline) and returns.
  void run();
  /// Stops reading (thread-safe); run() returns once the answers due are
  /// out.
  void stop();

private:
  class channel;

  void handle_line(std::string_view line);
  /// An answer to one line; `notification`: the line was one, and gets no
  /// answer line (a refusal of it is logged instead).
  void deliver(const answer& result, bool notification);
  /// Writes one message and a newline, whole, under the write lock.
  void write_line(std::string_view message);
  void finished();

  core& core_;
  int in_;
  int out_;
  std::size_t max_line_bytes_;
  int wake_[2] = {-1, -1};
  std::mutex write_mutex_;
  bool out_broken_ = false;
  std::mutex state_mutex_;
  std::condition_variable idle_;
  int pending_ = 0;
  /// The session opened by `initialize` (revisions before 2026-07-28).
  std::string session_id_;
};

} // namespace transitd::mcp
