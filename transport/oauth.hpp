#pragma once
// OAuth 2.1 resource server (MCP authorization): JWT access tokens checked
// locally against the issuer's published keys, and the protected-resource
// metadata (RFC 9728) that tells clients where to get a token.
//
// A token is accepted when its header names RS256 or ES256 and a key of the
// issuer's JWKS (by `kid`) of that very type and algorithm; its signature
// verifies with OpenSSL; `iss` is a configured issuer; `aud` is this
// server's canonical URI (RFC 8707); `exp` and `nbf` hold within the skew;
// and `sub` is set. The algorithm is never taken from the token alone:
// `none`, HMAC and any algorithm the key does not name are refused.
//
// Keys come from the issuer's metadata (RFC 8414, then OpenID discovery):
// fetched once, cached, and fetched again when a token names an unknown
// `kid` (at most once per refresh interval, one fetch per issuer at a
// time, each within an overall deadline), bounded in size. A token whose
// key is cached never waits for a fetch: a fetch in flight refuses unknown
// kids at once, and a key set past its Cache-Control max-age (10 minutes
// without one) is fetched again in the background, so a key the issuer
// withdraws stops working within that time. A token without `kid` is
// checked against the issuer's one key of its algorithm.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <boost/json/object.hpp>

#include "transitd/messages/error.hpp"

namespace transitd::oauth {

/// The scopes transitd knows: the variable tools need them (transit tools
/// need none).
inline constexpr std::string_view scope_variables_read = "variables:read";
inline constexpr std::string_view scope_variables_write = "variables:write";

struct options {
  /// This server's canonical URI, e.g. "https://transit.example/mcp": the
  /// audience tokens must name (RFC 8707), and the metadata's `resource`.
  std::string resource;
  /// Authorization servers whose tokens are accepted (their `issuer`).
  std::vector<std::string> issuers;
  /// Allowed difference between our clock and the issuer's.
  std::chrono::seconds clock_skew{60};
  /// Longest token accepted, in bytes.
  std::size_t max_token_bytes = 8 * 1024;
  /// Largest metadata or JWKS document fetched.
  std::size_t max_document_bytes = 256 * 1024;
  /// Connect plus read time of one fetch.
  std::chrono::milliseconds fetch_timeout{3000};
  /// The whole of one refresh (metadata, then the key set).
  std::chrono::milliseconds fetch_deadline{5000};
  /// How long a key set is used without Cache-Control max-age; a max-age
  /// is kept within [refresh_interval, 1 day].
  std::chrono::seconds default_max_age{600};
  /// A token with an unknown `kid` refetches the keys at most this often.
  std::chrono::seconds refresh_interval{30};
  /// Seconds since the epoch (tests substitute one).
  std::function<int64_t()> now_s;
};

/// Who a valid token stands for.
struct identity {
  std::string issuer;
  std::string subject;
  /// The principal saved variables belong to: the subject, qualified by
  /// the issuer when more than one is configured.
  std::string principal;
  std::vector<std::string> scopes;

  bool has_scope(std::string_view scope) const;
};

/// Why a token was refused (RFC 6750 error codes).
struct refusal {
  /// "invalid_token" or "invalid_request".
  std::string error;
  /// Said to the client; never contains the token.
  std::string description;
};

/// A fetched document: its body and, when its Cache-Control says so, how
/// long it may be used.
struct document {
  std::string body;
  std::optional<std::chrono::seconds> max_age;
};

/// Fetches a document (GET) within the bounds; the document, or why not.
using fetcher = std::function<outcome<document>(
  const std::string& url, std::size_t max_bytes,
  std::chrono::milliseconds timeout)>;

/// The default fetcher: the one outbound path (net/http_fetch), TLS
/// verified, no redirects followed, `timeout` for the whole fetch.
outcome<document> fetch_document(const std::string& url,
                                 std::size_t max_bytes,
                                 std::chrono::milliseconds timeout);

/// The max-age of a Cache-Control value ("public, max-age=300"), or
/// nullopt (no-store and no-cache count as 0).
std::optional<std::chrono::seconds> cache_max_age(std::string_view value);

/// Checks tokens; thread-safe (the HTTP threads share one).
class validator {
public:
  explicit validator(options opts, fetcher fetch = fetch_document);
  ~validator();
  validator(const validator&) = delete;
  validator& operator=(const validator&) = delete;

  /// The identity of a valid token, or why it is refused.
  std::variant<identity, refusal> validate(std::string_view token);

  /// RFC 9728 protected-resource metadata.
  boost::json::object metadata() const;

  /// The URL of that metadata for `resource` (RFC 9728 section 3.1: the
  /// well-known segment inserted before the resource's path), and its path.
  static std::string metadata_url(std::string_view resource);
  static std::string metadata_path(std::string_view resource);
  /// `resource_metadata="URL"` for WWW-Authenticate challenges.
  std::string challenge_parameter() const;

  const options& settings() const {
    return options_;
  }

private:
  struct key;
  struct issuer_keys;
  /// The key `kid` of `issuer`, fetching the JWKS when unknown (bounded by
  /// the refresh interval); null when there is none.
  std::shared_ptr<const key> find_key(const std::string& issuer,
                                      const std::string& kid,
                                      const std::string& alg,
                                      std::string& why);
  /// The fetches of refresh(): metadata, then the key set within the
  /// deadline; the key set's max-age in `max_age`.
  std::optional<std::string>
  fetch_keys(issuer_keys& keys, std::optional<std::chrono::seconds>& max_age);
  /// Fetches `keys`' key set (its `fetching` set by the caller) and clears
  /// `fetching`.
  std::optional<std::string> refresh(issuer_keys& keys);

  options options_;
  fetcher fetch_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<issuer_keys>> keys_;
};

/// Base64url (RFC 4648 section 5, no padding) → bytes; nullopt when the
/// text is not base64url.
std::optional<std::string> base64url_decode(std::string_view text);
std::string base64url_encode(std::string_view bytes);

} // namespace transitd::oauth
