#pragma once
// Bearer-token authentication: a table from token to principal, loaded from
// a tokens file. Tokens are kept only as SHA-256 digests and compared in
// constant time (every entry, no early exit); they never reach a log line
// or a reply.

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "transitd/messages/error.hpp"

namespace transitd {

class token_table {
public:
  /// Shortest token accepted (guessing must stay hopeless).
  static constexpr std::size_t min_token_length = 16;

  /// Parses a tokens file: one "PRINCIPAL TOKEN" pair per line, separated
  /// by blanks; '#' starts a comment line. A failure names the line (never
  /// the token).
  static outcome<token_table> parse(const std::string& text,
                                    const std::string& where);

  /// Adds one token; a failure says what is wrong with it.
  std::optional<failure> add(const std::string& principal,
                             std::string_view token);

  /// The principal `token` stands for, or nullopt.
  std::optional<std::string> principal_of(std::string_view token) const;

  bool empty() const {
    return entries_.empty();
  }
  std::size_t size() const {
    return entries_.size();
  }

private:
  using digest = std::array<unsigned char, 32>;
  static digest hash(std::string_view token);

  struct entry {
    digest token_digest;
    std::string principal;
  };
  std::vector<entry> entries_;
};

/// The token of an "Authorization: Bearer TOKEN" header value, or nullopt
/// when the header is absent or uses another scheme.
std::optional<std::string_view> bearer_token(std::string_view authorization);

/// Whether listening on `bind` is reachable from this host only.
bool is_loopback_address(std::string_view bind);

} // namespace transitd
