#include "transitd/transport/auth.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include <openssl/crypto.h>
#include <openssl/sha.h>

namespace transitd {

namespace {

bool valid_principal(const std::string& name) {
  return !name.empty() && name.size() <= 128
         && std::all_of(name.begin(), name.end(), [](unsigned char c) {
              return std::isalnum(c) || c == '.' || c == '_' || c == '-'
                     || c == '@';
            });
}

bool printable_token(std::string_view token) {
  return std::all_of(token.begin(), token.end(), [](unsigned char c) {
    return c > 0x20 && c < 0x7f;
  });
}

} // namespace

token_table::digest token_table::hash(std::string_view token) {
  digest out{};
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(),
         out.data());
  return out;
}

std::optional<failure> token_table::add(const std::string& principal,
                                        std::string_view token) {
  if (!valid_principal(principal))
    // Neither field is echoed: with the columns swapped, the "principal"
    // is the token, and messages reach logs. The caller names the line.
    return make_failure(ec::validation_error,
                        "the principal (first field) must be 1-128 letters, "
                        "digits or . _ - @");
  if (token.size() < min_token_length || !printable_token(token))
    return make_failure(ec::validation_error,
                        "the token (second field) must be at least "
                          + std::to_string(min_token_length)
                          + " printable characters without blanks (are the "
                            "fields swapped? the format is PRINCIPAL TOKEN)");
  auto d = hash(token);
  for (const auto& e : entries_)
    if (CRYPTO_memcmp(e.token_digest.data(), d.data(), d.size()) == 0)
      return make_failure(ec::validation_error,
                          "the token is already given to another principal");
  entries_.push_back(entry{d, principal});
  return std::nullopt;
}

outcome<token_table> token_table::parse(const std::string& text,
                                        const std::string& where) {
  token_table table;
  std::istringstream in{text};
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    auto at = where + ":" + std::to_string(number);
    std::istringstream fields{line};
    std::string principal;
    std::string token;
    std::string extra;
    if (!(fields >> principal) || principal[0] == '#')
      continue;
    if (!(fields >> token) || (fields >> extra))
      return make_failure(ec::validation_error,
                          at + ": expected \"PRINCIPAL TOKEN\"");
    if (auto f = table.add(principal, token))
      return make_failure(ec::validation_error, at + ": " + f->message);
  }
  if (table.empty())
    return make_failure(ec::validation_error,
                        where + ": no tokens (expected \"PRINCIPAL TOKEN\" "
                                "lines)");
  return table;
}

std::optional<std::string>
token_table::principal_of(std::string_view token) const {
  auto d = hash(token);
  const std::string* found = nullptr;
  // Every entry is compared, so the time taken says nothing about which
  // (or whether one) matched.
  for (const auto& e : entries_)
    if (CRYPTO_memcmp(e.token_digest.data(), d.data(), d.size()) == 0)
      found = &e.principal;
  if (found == nullptr)
    return std::nullopt;
  return *found;
}

std::optional<std::string_view> bearer_token(std::string_view authorization) {
  constexpr std::string_view scheme = "bearer";
  if (authorization.size() <= scheme.size())
    return std::nullopt;
  for (std::size_t i = 0; i < scheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(authorization[i]))
        != scheme[i])
      return std::nullopt;
  auto rest = authorization.substr(scheme.size());
  if (rest.front() != ' ')
    return std::nullopt;
  auto begin = rest.find_first_not_of(' ');
  if (begin == std::string_view::npos)
    return std::nullopt;
  rest = rest.substr(begin);
  auto end = rest.find_last_not_of(' ');
  return rest.substr(0, end + 1);
}

bool is_loopback_address(std::string_view bind) {
  if (bind == "localhost" || bind == "::1" || bind == "[::1]")
    return true;
  // An IPv4 address in 127.0.0.0/8, written as one (not "127.evil.example").
  std::string text{bind};
  in_addr v4{};
  if (::inet_pton(AF_INET, text.c_str(), &v4) != 1)
    return false;
  return (ntohl(v4.s_addr) >> 24) == 127;
}

} // namespace transitd
