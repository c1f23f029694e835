#pragma once
// Downloading a GTFS feed published at a URL into a file, with conditional
// requests (If-None-Match / If-Modified-Since from the last copy's
// validators, kept beside it), so an unchanged feed costs one 304. A failed
// download leaves the last good copy in place.

#include <cstdint>
#include <cstddef>
#include <functional>
#include <string>

#include "transitd/messages/error.hpp"

namespace transitd::gtfs {

struct fetch_options {
  /// The whole download, from connecting to the last byte (a server that
  /// trickles is cut here, not at each read).
  int32_t timeout_s = 900;
  /// Largest accepted feed.
  int64_t max_bytes = int64_t{2} << 30;
};

enum class fetch_outcome : uint8_t {
  /// A new copy replaced the file.
  downloaded,
  /// The server said 304: the file is current.
  unchanged,
};

/// The validators of a copy held (sent as If-None-Match and
/// If-Modified-Since) or of the one just fetched.
struct validators {
  std::string etag;
  std::string last_modified;
};

/// What a conditional GET ended with: 200 (the body went to the sink) or
/// 304 (nothing changed), the new validators (200) and Cache-Control.
struct conditional_reply {
  int status = 0;
  validators fresh;
  std::string cache_control;
};

/// GETs `url` with the validators `known` through the one outbound path
/// (net/http_fetch), following up to 5 redirects (a 304 is never taken for
/// one). A 200's body goes to
/// `open` (called once per 200, before the body: false refuses) and `sink`
/// (false stops), at most `options.max_bytes`. Any status but 200 and 304
/// fails, as does a network error or a larger body; the failure's message
/// says what happened, without the URL.
outcome<conditional_reply>
conditional_get(const std::string& url, const validators& known,
                const fetch_options& options,
                const std::function<bool()>& open,
                const std::function<bool(const char*, std::size_t)>& sink);

/// Fetches `url` into `path` (written beside and renamed, so readers never
/// see half a file); `path + ".validators"` keeps ETag and Last-Modified.
/// A failure (network, status, size) names the URL without its query and
/// leaves `path` as it was.
outcome<fetch_outcome> fetch_feed(const std::string& url,
                                  const std::string& path,
                                  const fetch_options& options = {});

/// Where a URL source of feed `name` lives in `directory`:
/// DIRECTORY/NAME-INDEX.zip.
std::string feed_copy_path(const std::string& directory,
                           const std::string& name, std::size_t index);

/// Whether a source is a URL (http:// or https://) rather than a path.
bool is_url(const std::string& source);

} // namespace transitd::gtfs
