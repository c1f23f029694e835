#pragma once
// The events of one SSE reply as they happen: a tool call writes progress,
// log lines and finally its result from whichever thread produces them,
// and the connection's thread sends each one as it arrives. Thread-safe.

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>

namespace transitd::mcp {

class event_stream {
public:
  /// Throws std::system_error when no wake-up descriptor can be made.
  event_stream();
  ~event_stream();
  event_stream(const event_stream&) = delete;
  event_stream& operator=(const event_stream&) = delete;

  /// Appends one event's text (already framed, "data: ...\n\n"); ignored
  /// after close().
  void push(std::string_view event);
  /// No event follows: the reply ends once the pending text is out.
  void close();
  /// Appends the last event and closes, at once: nothing pushed from
  /// another thread meanwhile can come after it.
  void close_with(std::string_view last);

  /// Moves the text pushed since the last take() into `out` (replacing
  /// it); false once the stream is closed and nothing is left.
  bool take(std::string& out);
  /// Readable while take() has something new or the stream has closed:
  /// poll it beside the socket.
  int fd() const {
    return fd_;
  }
  /// Blocks until close() and returns everything pushed (tests, fuzzing,
  /// callers without a connection of ours).
  std::string drain();

private:
  int fd_;
  mutable std::mutex mutex_;
  std::string pending_;
  bool closed_ = false;
};

} // namespace transitd::mcp
