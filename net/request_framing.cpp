#include "transitd/net/request_framing.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace transitd {

namespace {

using verdict = request_framing::verdict;

request_framing refuse(int status, std::string reason) {
  request_framing r;
  r.what = verdict::refused;
  r.status = status;
  r.reason = std::move(reason);
  return r;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto x = a[i];
    auto y = b[i];
    if (x >= 'A' && x <= 'Z')
      x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z')
      y = static_cast<char>(y - 'A' + 'a');
    if (x != y)
      return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

/// One line at `pos` (without its LF, and without the CR before it);
/// nullopt when no LF has arrived yet. `next` is the position after the LF.
std::optional<std::string_view> line_at(std::string_view bytes,
                                        std::size_t pos, std::size_t& next) {
  auto lf = bytes.find('\n', pos);
  if (lf == std::string_view::npos)
    return std::nullopt;
  next = lf + 1;
  auto line = bytes.substr(pos, lf - pos);
  if (!line.empty() && line.back() == '\r')
    line.remove_suffix(1);
  return line;
}

/// A decimal Content-Length; nullopt when malformed. Values past `cap`
/// come back as cap + 1.
std::optional<std::uint64_t> parse_length(std::string_view text,
                                          std::uint64_t cap) {
  if (text.empty())
    return std::nullopt;
  std::uint64_t value = 0;
  for (auto c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
    if (value > cap)
      value = cap + 1; // stays there: no overflow
  }
  return value;
}

/// Where a chunked body that starts at `pos` ends (the position after its
/// last CRLF); incomplete or refused as the framing says.
request_framing frame_chunked(std::string_view bytes, std::size_t pos,
                              const framing_limits& limits) {
  auto start = pos;
  auto over = [&](std::size_t at) {
    return at - start > limits.max_chunked;
  };
  auto too_large = [&] {
    return refuse(413, "Payload Too Large: a chunked body over "
                         + std::to_string(limits.max_chunked)
                         + " bytes on the wire");
  };
  request_framing waiting;
  for (;;) {
    std::size_t next = 0;
    auto line = line_at(bytes, pos, next);
    if (!line) {
      if (over(bytes.size()))
        return too_large();
      return waiting;
    }
    auto size_text = line->substr(0, line->find(';'));
    size_text = trim(size_text);
    if (size_text.empty() || size_text.size() > 16)
      return refuse(400, "Bad Request: a chunk size line is malformed");
    std::uint64_t size = 0;
    for (auto c : size_text) {
      int digit = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
      if (digit < 0)
        return refuse(400, "Bad Request: a chunk size is not hexadecimal");
      size = size * 16 + static_cast<std::uint64_t>(digit);
    }
    if (size > limits.max_chunked || over(next + size))
      return too_large();
    pos = next;
    if (size == 0) {
      // Trailer lines, then the blank line that ends the body.
      for (;;) {
        auto trailer = line_at(bytes, pos, next);
        if (!trailer) {
          if (over(bytes.size()))
            return too_large();
          return waiting;
        }
        pos = next;
        if (over(pos))
          return too_large();
        if (trailer->empty()) {
          request_framing done;
          done.what = verdict::complete;
          done.size = pos;
          return done;
        }
      }
    }
    auto data_end = pos + static_cast<std::size_t>(size);
    if (bytes.size() < data_end + 2)
      return waiting;
    if (bytes.substr(data_end, 2) != "\r\n")
      return refuse(400, "Bad Request: a chunk does not end with CRLF");
    pos = data_end + 2;
  }
}

} // namespace

request_framing frame_request(std::string_view bytes,
                              const framing_limits& limits) {
  std::size_t pos = 0;
  std::size_t next = 0;
  // The request line.
  auto request_line = line_at(bytes, pos, next);
  if (!request_line) {
    if (bytes.size() > limits.max_line)
      return refuse(414, "URI Too Long: the request line is over "
                           + std::to_string(limits.max_line) + " bytes");
    return {};
  }
  if (request_line->size() > limits.max_line)
    return refuse(414, "URI Too Long: the request line is over "
                         + std::to_string(limits.max_line) + " bytes");
  if (request_line->empty())
    return refuse(400, "Bad Request: the request line is empty");
  pos = next;
  bool has_length = false;
  std::uint64_t length = 0;
  bool chunked = false;
  bool has_coding = false;
  bool expects_continue = false;
  for (;;) {
    auto line = line_at(bytes, pos, next);
    if (!line) {
      // A line still arriving: refuse it as soon as it is too long.
      auto partial = bytes.size() - pos;
      if (partial > limits.max_line || bytes.size() > limits.max_head) {
        auto r = refuse(431, "Request Header Fields Too Large: a header "
                             "line over "
                               + std::to_string(limits.max_line)
                               + " bytes, or a head over "
                               + std::to_string(limits.max_head));
        r.authorization = partial >= 14
                          && iequals(bytes.substr(pos, 14), "authorization:");
        return r;
      }
      return {};
    }
    if (next > limits.max_head || line->size() > limits.max_line) {
      auto r = refuse(431, "Request Header Fields Too Large: a header line "
                           "over "
                             + std::to_string(limits.max_line)
                             + " bytes, or a head over "
                             + std::to_string(limits.max_head));
      auto colon = line->find(':');
      r.authorization = colon != std::string_view::npos
                        && iequals(trim(line->substr(0, colon)),
                                   "authorization");
      return r;
    }
    pos = next;
    if (line->empty())
      break;
    if (line->front() == ' ' || line->front() == '\t')
      return refuse(400, "Bad Request: folded header lines are not accepted");
    auto colon = line->find(':');
    if (colon == std::string_view::npos || colon == 0)
      return refuse(400, "Bad Request: a header line has no name");
    auto name = line->substr(0, colon);
    if (name.back() == ' ' || name.back() == '\t')
      return refuse(400, "Bad Request: white space before a header's colon");
    auto value = trim(line->substr(colon + 1));
    if (iequals(name, "content-length")) {
      if (has_length)
        return refuse(400, "Bad Request: more than one Content-Length");
      auto parsed = parse_length(value, limits.max_body);
      if (!parsed)
        return refuse(400, "Bad Request: Content-Length is not a number");
      has_length = true;
      length = *parsed;
    } else if (iequals(name, "transfer-encoding")) {
      if (has_coding)
        return refuse(400, "Bad Request: more than one Transfer-Encoding");
      has_coding = true;
      if (!iequals(value, "chunked"))
        return refuse(501, "Not Implemented: the only transfer coding "
                           "accepted is chunked");
      chunked = true;
    } else if (iequals(name, "expect")) {
      expects_continue = iequals(value, "100-continue");
    }
  }
  if (has_length && has_coding)
    return refuse(400, "Bad Request: Content-Length together with "
                       "Transfer-Encoding");
  if (has_length && length > limits.max_body)
    return refuse(413, "Payload Too Large: the body is over "
                         + std::to_string(limits.max_body) + " bytes");
  auto head = pos;
  request_framing r;
  if (chunked) {
    r = frame_chunked(bytes, head, limits);
  } else {
    auto end = head + static_cast<std::size_t>(length);
    if (bytes.size() >= end) {
      r.what = verdict::complete;
      r.size = end;
    }
  }
  if (r.what != verdict::refused) {
    r.head_size = head;
    r.expects_continue = expects_continue;
  }
  return r;
}

std::optional<request_head> parse_request_head(std::string_view head) {
  std::size_t next = 0;
  auto line = line_at(head, 0, next);
  if (!line)
    return std::nullopt;
  request_head out;
  auto first_space = line->find(' ');
  auto last_space = line->rfind(' ');
  if (first_space == std::string_view::npos || first_space == 0
      || last_space == first_space)
    return std::nullopt;
  out.method = std::string{line->substr(0, first_space)};
  out.target = std::string{
    line->substr(first_space + 1, last_space - first_space - 1)};
  out.version = std::string{line->substr(last_space + 1)};
  if (out.target.empty()
      || out.target.find(' ') != std::string_view::npos
      || (out.version != "HTTP/1.1" && out.version != "HTTP/1.0"))
    return std::nullopt;
  for (auto pos = next;;) {
    line = line_at(head, pos, next);
    if (!line)
      return std::nullopt; // frame_request saw the blank line: not this
    pos = next;
    if (line->empty())
      return out;
    auto colon = line->find(':');
    if (colon == std::string_view::npos || colon == 0
        || line->front() == ' ' || line->front() == '\t')
      return std::nullopt;
    std::string name{line->substr(0, colon)};
    for (auto& c : name) {
      if (c >= 'A' && c <= 'Z')
        c = static_cast<char>(c - 'A' + 'a');
      else if (c == ' ' || c == '\t')
        return std::nullopt;
    }
    out.headers.emplace_back(std::move(name),
                             std::string{trim(line->substr(colon + 1))});
  }
}

} // namespace transitd
