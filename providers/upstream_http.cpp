#include "transitd/providers/upstream_http.hpp"

#include <algorithm>
#include <cstdlib>
#include <ctime>

namespace transitd {

int32_t parse_retry_after(std::string_view value, int64_t now_ms,
                          int32_t fallback) {
  if (value.empty())
    return fallback;
  if (std::all_of(value.begin(), value.end(),
                  [](char c) { return c >= '0' && c <= '9'; })) {
    if (value.size() > 6)
      return 86400;
    return std::max(1, std::atoi(std::string{value}.c_str()));
  }
  // HTTP-date, e.g. "Wed, 21 Oct 2015 07:28:00 GMT".
  std::tm tm{};
  std::string text{value};
  if (strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm) == nullptr)
    return fallback;
  auto at = static_cast<int64_t>(timegm(&tm));
  auto delta = at - now_ms / 1000;
  return static_cast<int32_t>(std::clamp<int64_t>(delta, 1, 86400));
}

failure classify_http_failure(const http_response& response,
                              std::string_view upstream_name) {
  std::string who{upstream_name};
  auto status = std::to_string(response.status);
  if (response.status == 429)
    return make_failure(ec::rate_limited,
                        who + " is throttling requests (HTTP 429)",
                        "wait retryAfter seconds before calling again",
                        parse_retry_after(response.retry_after,
                                          response.received_ms, 1));
  if (response.status == 401 || response.status == 403)
    return make_failure(ec::upstream_error,
                        who + " rejected the API key (HTTP " + status + ")",
                        "check the configured subscription key");
  if (response.status >= 500)
    return make_failure(ec::upstream_error,
                        who + " failed (HTTP " + status + ")",
                        "retry later");
  return make_failure(ec::upstream_error,
                      who + " answered HTTP " + status + " unexpectedly");
}

std::string sanitize_upstream_text(std::string_view text,
                                   std::size_t max_length) {
  std::string result;
  result.reserve(std::min(text.size(), max_length));
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f)
      c = ' ';
    result.push_back(c);
  }
  if (result.size() > max_length) {
    auto cut = max_length;
    // Step back to a UTF-8 lead byte so no character is split.
    while (cut > 0 && (static_cast<unsigned char>(result[cut]) & 0xC0) == 0x80)
      --cut;
    result.resize(cut);
    result += "...";
  }
  return result;
}

} // namespace transitd
