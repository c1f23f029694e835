// libFuzzer: where an HTTP/1.1 request ends (net/request_framing), on any
// bytes a client could send, and its head as the direct route reads it. The first byte scales the limits down, so
// that the refusals (line, head, body, chunked) are reached too. A complete
// request never claims more bytes than it was given.
#include <cstdlib>

#include "transitd/net/request_framing.hpp"
#include "tests/fuzz/common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0)
    return 0;
  transitd::framing_limits limits;
  auto scale = static_cast<std::size_t>(data[0] % 8) + 1;
  limits.max_line = 64 * scale;
  limits.max_head = 256 * scale;
  limits.max_body = 128 * scale;
  limits.max_chunked = 192 * scale;
  auto bytes = transitd::fuzz::text(data + 1, size - 1);
  auto framing = transitd::frame_request(bytes, limits);
  using verdict = transitd::request_framing::verdict;
  if (framing.what == verdict::complete
      && (framing.size > bytes.size() || framing.size < framing.head_size))
    std::abort();
  if (framing.what == verdict::refused && framing.status < 400)
    std::abort();
  if (framing.head_size > 0) {
    auto head = transitd::parse_request_head(bytes.substr(0, framing.head_size));
    if (head) {
      if (head->method.empty() || head->target.empty())
        std::abort();
      for (const auto& [name, value] : head->headers)
        for (auto c : name)
          if ((c >= 'A' && c <= 'Z') || c == ' ' || c == '\t')
            std::abort();
    }
  }
  return 0;
}
