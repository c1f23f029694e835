#include "transitd/transport/stdio.hpp"

#include <cerrno>
#include <stdexcept>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "transitd/transport/json_text.hpp"

namespace transitd::mcp {

/// One line's replies: notifications as lines while its call runs, its
/// answer last; nothing after the answer.
class stdio_server::channel final : public reply_channel {
public:
  channel(stdio_server& server, bool notification)
    : server_(server), notification_(notification) {
  }

  bool open_stream() override {
    return true; // lines need no resources of their own
  }

  void notify(std::string message) override {
    std::lock_guard<std::mutex> guard{mutex_};
    if (!answered_)
      server_.write_line(message);
  }

  void done(answer result) override {
    {
      std::lock_guard<std::mutex> guard{mutex_};
      if (answered_)
        return;
      answered_ = true;
    }
    server_.deliver(result, notification_);
  }

private:
  stdio_server& server_;
  bool notification_;
  std::mutex mutex_;
  bool answered_ = false;
};

stdio_server::stdio_server(core& mcp, int in_fd, int out_fd,
                           std::size_t max_line_bytes)
  : core_(mcp), in_(in_fd), out_(out_fd), max_line_bytes_(max_line_bytes) {
  if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::runtime_error("stdio: cannot create a wake-up pipe");
}

stdio_server::~stdio_server() {
  stop();
  close(wake_[0]);
  close(wake_[1]);
}

void stdio_server::stop() {
  char byte = 1;
  [[maybe_unused]] auto ignored = write(wake_[1], &byte, 1);
}

void stdio_server::write_line(std::string_view message) {
  std::lock_guard<std::mutex> guard{write_mutex_};
  if (out_broken_)
    return;
  std::string line{message};
  line += '\n';
  std::size_t done = 0;
  while (done < line.size()) {
    auto n = write(out_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      // The client closed its end: nobody reads what follows.
      out_broken_ = true;
      spdlog::warn("stdio: standard output closed; replies are dropped");
      return;
    }
    done += static_cast<std::size_t>(n);
  }
}

void stdio_server::finished() {
  std::lock_guard<std::mutex> guard{state_mutex_};
  --pending_;
  idle_.notify_all();
}

void stdio_server::deliver(const answer& result, bool notification) {
  if (!result.session_id.empty()) {
    // `initialize` opened the session all later lines belong to.
    std::lock_guard<std::mutex> guard{state_mutex_};
    session_id_ = result.session_id;
  }
  if (!result.message.empty()) {
    if (notification)
      spdlog::warn("stdio: a notification was refused: {}", result.message);
    else
      write_line(result.message);
  }
  finished();
}

void stdio_server::handle_line(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
    line.remove_suffix(1);
  if (line.empty())
    return;
  peer from;
  from.message_bytes = line.size();
  from.cancels_by_id = true;
  {
    std::lock_guard<std::mutex> guard{state_mutex_};
    from.session_id = session_id_;
    ++pending_;
  }
  auto parsed = parse_message(line);
  if (auto* refused = std::get_if<answer>(&parsed)) {
    deliver(*refused, false);
    return;
  }
  const auto& message = std::get<json_rpc::message>(parsed);
  // A notification (a method, no id) is never answered on the wire.
  bool notification = message.kind == json_rpc::message_kind::notification;
  try {
    core_.handle(message, from,
                 std::make_shared<channel>(*this, notification));
  } catch (const std::exception& ex) {
    // handle() answers every message; should it throw instead, the line
    // still counts as answered, or run() would wait for it for ever.
    spdlog::error("stdio: a message failed: {}", ex.what());
    finished();
  }
}

void stdio_server::run() {
  std::string buffer;
  bool skipping = false; // inside a line too long to keep
  char chunk[64 * 1024];
  bool open = true;
  while (open) {
    pollfd fds[2] = {{in_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    if (fds[1].revents != 0)
      break; // stop()
    auto n = read(in_, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (n <= 0) {
      open = false; // end of input: the client is done
      n = 0;
    }
    std::string_view data{chunk, static_cast<std::size_t>(n)};
    while (!data.empty()) {
      auto newline = data.find('\n');
      auto part = data.substr(0, newline);
      if (!skipping) {
        buffer.append(part);
        if (buffer.size() > max_line_bytes_) {
          skipping = true;
          buffer.clear();
          write_line(json_text(json_rpc::make_error(
            nullptr, json_rpc::invalid_request,
            "Invalid Request: a message is at most "
              + std::to_string(max_line_bytes_) + " bytes")));
        }
      }
      if (newline == std::string_view::npos)
        break;
      if (!skipping)
        handle_line(buffer);
      buffer.clear();
      skipping = false;
      data.remove_prefix(newline + 1);
    }
  }
  if (!skipping && !buffer.empty())
    handle_line(buffer); // a last line without its newline
  // Every call ends by its deadline: the replies due are awaited.
  std::unique_lock<std::mutex> lock{state_mutex_};
  idle_.wait(lock, [&] { return pending_ == 0; });
}

} // namespace transitd::mcp
