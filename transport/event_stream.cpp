#include "transitd/transport/event_stream.hpp"

#include <cerrno>
#include <cstdint>
#include <system_error>

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace transitd::mcp {

event_stream::event_stream() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (fd_ < 0)
    throw std::system_error(errno, std::generic_category(),
                            "eventfd for an SSE stream");
}

event_stream::~event_stream() {
  ::close(fd_);
}

namespace {

void signal(int fd) {
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(fd, &one, sizeof(one));
}

} // namespace

void event_stream::push(std::string_view event) {
  std::lock_guard<std::mutex> guard{mutex_};
  if (closed_)
    return;
  pending_.append(event);
  signal(fd_);
}

void event_stream::close() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (closed_)
    return;
  closed_ = true;
  signal(fd_);
}

void event_stream::close_with(std::string_view last) {
  std::lock_guard<std::mutex> guard{mutex_};
  if (closed_)
    return;
  pending_.append(last);
  closed_ = true;
  signal(fd_);
}

bool event_stream::take(std::string& out) {
  std::uint64_t count;
  [[maybe_unused]] auto n = ::read(fd_, &count, sizeof(count));
  std::lock_guard<std::mutex> guard{mutex_};
  out.clear();
  out.swap(pending_);
  if (closed_) {
    signal(fd_); // stays readable: the end is news to every later poll
    return !out.empty();
  }
  return true;
}

std::string event_stream::drain() {
  std::string all;
  std::string part;
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, -1) < 0 && errno != EINTR)
      break;
    if (!take(part))
      break;
    all += part;
  }
  return all;
}

} // namespace transitd::mcp
