#include "transitd/net/url.hpp"

#include <boost/url/encode.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>
#include <boost/url/url.hpp>

namespace urls = boost::urls;

namespace transitd {

namespace {

/// Without an authority ("key:secret@host/x" reads as scheme "key" and a
/// path): drop everything up to the last '@' before the first '/', and any
/// query or fragment, so nothing that may be a secret is shown.
std::string redact_without_authority(std::string_view text) {
  auto end = text.find_first_of("?#");
  auto shown = text.substr(0, end);
  auto slash = shown.find('/');
  auto at = shown.substr(0, slash).rfind('@');
  if (at != std::string_view::npos)
    shown = shown.substr(at + 1);
  std::string out{shown};
  if (end != std::string_view::npos)
    out += "?...";
  return out;
}

} // namespace

std::string redact_url(std::string_view text) {
  auto parsed = urls::parse_uri_reference(text);
  if (!parsed || !parsed->has_authority())
    return redact_without_authority(text);
  urls::url u{*parsed};
  bool hidden = u.has_query() || u.has_fragment();
  u.remove_userinfo();
  u.remove_query();
  u.remove_fragment();
  std::string out{u.buffer()};
  if (hidden)
    out += "?...";
  return out;
}

outcome<endpoint> split_url(std::string_view text) {
  auto invalid = [text](std::string what) {
    return make_failure(ec::validation_error,
                        "URL \"" + redact_url(text) + "\" " + what);
  };
  auto parsed = urls::parse_uri(text);
  if (!parsed)
    return invalid(text.find("://") == std::string_view::npos
                     ? "lacks a scheme (http:// or https://)"
                     : "is not a valid URL (RFC 3986)");
  const auto& u = *parsed;
  if (u.scheme_id() != urls::scheme::http
      && u.scheme_id() != urls::scheme::https)
    return invalid("must use http or https");
  if (!u.has_authority() || u.encoded_host().empty())
    return invalid("has no host");
  // The origin goes into error messages; credentials have their own
  // settings (DIGITRANSIT_API_KEY, TFL_API_KEY).
  if (u.has_userinfo())
    return invalid("must not carry user information (user:password@); give "
                   "API keys through their own settings");
  endpoint result;
  // Lower case: the HTTP client reads only "http" and "https".
  result.origin = std::string{u.scheme_id() == urls::scheme::https
                                ? "https://"
                                : "http://"}
                  + std::string{u.encoded_host_and_port()};
  result.path = std::string{u.encoded_path()};
  while (!result.path.empty() && result.path.back() == '/')
    result.path.pop_back();
  if (u.has_query())
    result.path += "?" + std::string{u.encoded_query()};
  return result;
}

std::string url_encode(std::string_view text) {
  return urls::encode(text, urls::unreserved_chars);
}

} // namespace transitd
