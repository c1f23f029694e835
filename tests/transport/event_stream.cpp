// The events of one SSE reply, pushed from any thread, taken in order.

#include "transitd/transport/event_stream.hpp"

#include <thread>

#include <poll.h>

#include <catch2/catch.hpp>

using transitd::mcp::event_stream;

namespace {

bool readable(const event_stream& s) {
  pollfd p{s.fd(), POLLIN, 0};
  return ::poll(&p, 1, 0) == 1;
}

} // namespace

TEST_CASE("events are taken in order, the end is seen once drained",
          "[event_stream]") {
  event_stream s;
  CHECK_FALSE(readable(s));
  s.push("a");
  s.push("b");
  CHECK(readable(s));
  std::string part;
  CHECK(s.take(part));
  CHECK(part == "ab");
  CHECK_FALSE(readable(s));
  s.push("c");
  s.close();
  s.push("ignored after close");
  CHECK(readable(s));
  CHECK(s.take(part));
  CHECK(part == "c");
  // Closed and drained: the descriptor stays readable and take says so.
  CHECK(readable(s));
  CHECK_FALSE(s.take(part));
  CHECK(part.empty());
  CHECK(readable(s));
}

TEST_CASE("drain collects what another thread pushes until it closes",
          "[event_stream]") {
  event_stream s;
  std::thread producer{[&s] {
    for (int i = 0; i < 100; ++i)
      s.push(std::to_string(i) + ";");
    s.close();
  }};
  auto all = s.drain();
  producer.join();
  std::string expected;
  for (int i = 0; i < 100; ++i)
    expected += std::to_string(i) + ";";
  CHECK(all == expected);
}

TEST_CASE("close_with makes its event the last one", "[event_stream]") {
  event_stream s;
  s.push("progress;");
  s.close_with("result;");
  s.push("late progress;"); // another thread, just after: dropped
  CHECK(s.drain() == "progress;result;");
}
