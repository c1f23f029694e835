#include "transport/stdio.hpp"

#include <cerrno>
#include <stdexcept>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "transport/json_text.hpp"

#include <boost/json.hpp>

namespace transitd::mcp {

stdio_server::stdio_server(endpoint& ep, int in_fd, int out_fd,
                           std::size_t max_line_bytes)
  : endpoint_(ep), in_(in_fd), out_(out_fd), max_line_bytes_(max_line_bytes) {
  if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::runtime_error("stdio: cannot create a wake-up pipe");
}

stdio_server::~stdio_server() {
  stop();
  for (auto& p : pumps_)
    if (p.thread.joinable())
      p.thread.join();
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

void stdio_server::write_events(std::string_view sse_text) {
  // Events are "event: message\ndata: JSON\n\n"; each JSON is one line
  // (json_text never breaks lines).
  std::size_t start = 0;
  while (start < sse_text.size()) {
    auto end = sse_text.find('\n', start);
    if (end == std::string_view::npos)
      end = sse_text.size();
    auto line = sse_text.substr(start, end - start);
    if (line.rfind("data: ", 0) == 0)
      write_line(line.substr(6));
    start = end + 1;
  }
}

void stdio_server::finished() {
  std::lock_guard<std::mutex> guard{state_mutex_};
  --pending_;
  idle_.notify_all();
}

void stdio_server::pump(std::shared_ptr<event_stream> stream) {
  std::string chunk;
  std::string carry;
  for (;;) {
    pollfd p{stream->fd(), POLLIN, 0};
    poll(&p, 1, -1);
    bool more = stream->take(chunk);
    carry += chunk;
    // Only whole events: an event ends with a blank line.
    auto end = carry.rfind("\n\n");
    if (end != std::string::npos) {
      write_events(std::string_view{carry}.substr(0, end + 2));
      carry.erase(0, end + 2);
    }
    if (!more)
      break;
  }
  finished();
}

void stdio_server::deliver(http_reply reply, bool notification) {
  if (reply.stream) {
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::lock_guard<std::mutex> guard{state_mutex_};
    // Reap the pumps that have finished, so that a long session does not
    // collect threads.
    for (auto it = pumps_.begin(); it != pumps_.end();) {
      if (it->done->load()) {
        it->thread.join();
        it = pumps_.erase(it);
      } else {
        ++it;
      }
    }
    pumps_.push_back(pump_thread{
      std::thread{[this, done, stream = std::move(reply.stream)]() mutable {
        pump(std::move(stream));
        done->store(true);
      }},
      done});
    return;
  }
  for (const auto& [name, value] : reply.headers)
    if (name == "Mcp-Session-Id") {
      // `initialize` opened the session all later lines belong to.
      std::lock_guard<std::mutex> guard{state_mutex_};
      session_id_ = value;
    }
  if (!reply.body.empty()) {
    if (notification)
      spdlog::warn("stdio: a notification was refused: {}", reply.body);
    else if (reply.content_type == "text/event-stream")
      write_events(reply.body);
    else
      write_line(reply.body);
  }
  finished();
}

void stdio_server::handle_line(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
    line.remove_suffix(1);
  if (line.empty())
    return;
  http_request request;
  request.method = "POST";
  request.stdio = true;
  request.headers = {{"content-type", "application/json"},
                     {"accept", "application/json, text/event-stream"}};
  {
    std::lock_guard<std::mutex> guard{state_mutex_};
    if (!session_id_.empty())
      request.headers.emplace_back("mcp-session-id", session_id_);
    ++pending_;
  }
  request.body = std::string{line};
  // A notification (a method, no id) is never answered on the wire.
  bool notification = false;
  boost::json::error_code ec;
  auto parsed = boost::json::parse(request.body, ec);
  if (!ec && parsed.is_object())
    notification = parsed.get_object().contains("method")
                   && !parsed.get_object().contains("id");
  try {
    endpoint_.handle(request, [this, notification](http_reply reply) {
      deliver(std::move(reply), notification);
    });
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
  auto pumps = std::move(pumps_);
  lock.unlock();
  for (auto& p : pumps)
    p.thread.join();
}

} // namespace transitd::mcp
