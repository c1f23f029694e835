#include "transitd/transport/oauth.hpp"

#include <algorithm>
#include <thread>

#include <boost/json.hpp>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <spdlog/spdlog.h>

#include "transitd/net/http_fetch.hpp"
#include "transitd/net/url.hpp"
#include "transitd/util/base64.hpp"

namespace json = boost::json;

namespace transitd::oauth {

namespace {

refusal invalid(std::string description) {
  return refusal{"invalid_token", std::move(description)};
}

failure fetch_failure(const std::string& url, const std::string& why) {
  return make_failure(ec::upstream_error,
                      "cannot fetch " + redact_url(url) + ": " + why);
}

std::optional<json::object> parse_object(std::string_view text) {
  json::error_code error;
  auto value = json::parse(text, error);
  if (error || !value.is_object())
    return std::nullopt;
  return std::move(value.get_object());
}

std::string string_member(const json::object& object, std::string_view name) {
  auto it = object.find(name);
  if (it == object.end() || !it->value().is_string())
    return {};
  return std::string{it->value().get_string()};
}

using pkey_ptr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

struct bignum_deleter {
  void operator()(BIGNUM* n) const {
    BN_free(n);
  }
};
using bignum_ptr = std::unique_ptr<BIGNUM, bignum_deleter>;

/// A public key from JWK parameters, through OpenSSL 3's EVP_PKEY_fromdata.
pkey_ptr key_from_params(const char* type, OSSL_PARAM_BLD* build) {
  pkey_ptr none{nullptr, EVP_PKEY_free};
  auto* params = OSSL_PARAM_BLD_to_param(build);
  auto* ctx = EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr);
  EVP_PKEY* key = nullptr;
  if (params && ctx && EVP_PKEY_fromdata_init(ctx) == 1)
    EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params);
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  return pkey_ptr{key, EVP_PKEY_free};
}

} // namespace

std::optional<std::string> base64url_decode(std::string_view text) {
  return base64_decode(text, base64_form::url_unpadded);
}

std::string base64url_encode(std::string_view bytes) {
  return base64_encode(bytes, base64_form::url_unpadded);
}

bool identity::has_scope(std::string_view scope) const {
  return std::find(scopes.begin(), scopes.end(), scope) != scopes.end();
}

/// One verification key of an issuer.
struct validator::key {
  std::string kid;
  /// "RS256" or "ES256": the only algorithm this key verifies.
  std::string alg;
  pkey_ptr pkey{nullptr, EVP_PKEY_free};
};

struct validator::issuer_keys {
  std::string issuer;
  std::map<std::string, std::shared_ptr<const key>> by_kid;
  /// When the keys were last asked for (successfully or not).
  std::optional<std::chrono::steady_clock::time_point> last_fetch;
  /// When the key set in hand is to be read again (its max-age).
  std::optional<std::chrono::steady_clock::time_point> stale_at;
  bool fetching = false;
  /// The background refresh of a stale key set (joined before the next,
  /// and by the destructor; each ends within the fetch deadline).
  std::thread refresher;
};

namespace {

/// A JWK as a key; nullopt (with the reason) for keys we cannot use.
std::optional<pkey_ptr> jwk_key(const json::object& jwk, std::string& alg,
                                std::string& why) {
  auto kty = string_member(jwk, "kty");
  auto declared = string_member(jwk, "alg");
  auto use = string_member(jwk, "use");
  if (!use.empty() && use != "sig") {
    why = "not a signing key";
    return std::nullopt;
  }
  auto number = [&](std::string_view name) -> bignum_ptr {
    auto bytes = base64url_decode(string_member(jwk, name));
    if (!bytes || bytes->empty())
      return nullptr;
    return bignum_ptr{
      BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes->data()),
                static_cast<int>(bytes->size()), nullptr)};
  };
  std::unique_ptr<OSSL_PARAM_BLD, decltype(&OSSL_PARAM_BLD_free)> build{
    OSSL_PARAM_BLD_new(), OSSL_PARAM_BLD_free};
  if (!build) {
    why = "out of memory";
    return std::nullopt;
  }
  if (kty == "RSA") {
    alg = "RS256";
    if (!declared.empty() && declared != alg) {
      why = "algorithm " + declared + " is not supported";
      return std::nullopt;
    }
    auto n = number("n");
    auto e = number("e");
    if (!n || !e) {
      why = "RSA key without n and e";
      return std::nullopt;
    }
    if (BN_num_bits(n.get()) < 2048) {
      why = "RSA key shorter than 2048 bits";
      return std::nullopt;
    }
    OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_N, n.get());
    OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_E, e.get());
    auto key = key_from_params("RSA", build.get());
    ERR_clear_error();
    if (!key) {
      why = "RSA parameters rejected";
      return std::nullopt;
    }
    return key;
  }
  if (kty == "EC") {
    alg = "ES256";
    if ((!declared.empty() && declared != alg)
        || string_member(jwk, "crv") != "P-256") {
      why = "only P-256 (ES256) elliptic-curve keys are supported";
      return std::nullopt;
    }
    auto x = base64url_decode(string_member(jwk, "x"));
    auto y = base64url_decode(string_member(jwk, "y"));
    if (!x || !y || x->size() != 32 || y->size() != 32) {
      why = "P-256 key without 32-byte x and y";
      return std::nullopt;
    }
    std::string point = "\x04" + *x + *y;
    OSSL_PARAM_BLD_push_utf8_string(build.get(), OSSL_PKEY_PARAM_GROUP_NAME,
                                    "prime256v1", 0);
    OSSL_PARAM_BLD_push_octet_string(build.get(), OSSL_PKEY_PARAM_PUB_KEY,
                                     point.data(), point.size());
    auto key = key_from_params("EC", build.get());
    ERR_clear_error();
    if (!key) {
      why = "P-256 point rejected";
      return std::nullopt;
    }
    return key;
  }
  why = "key type \"" + kty + "\" is not supported";
  return std::nullopt;
}

bool verify_signature(const EVP_PKEY* pkey, std::string_view alg,
                      std::string_view signed_part, std::string signature) {
  if (alg == "ES256") {
    // JWS carries r||s (32 bytes each); OpenSSL verifies DER.
    if (signature.size() != 64)
      return false;
    auto* sig = ECDSA_SIG_new();
    auto* r = BN_bin2bn(reinterpret_cast<const unsigned char*>(signature.data()),
                        32, nullptr);
    auto* s = BN_bin2bn(
      reinterpret_cast<const unsigned char*>(signature.data() + 32), 32,
      nullptr);
    if (!sig || !r || !s || ECDSA_SIG_set0(sig, r, s) != 1) {
      BN_free(r);
      BN_free(s);
      ECDSA_SIG_free(sig);
      return false;
    }
    unsigned char* der = nullptr;
    auto length = i2d_ECDSA_SIG(sig, &der);
    ECDSA_SIG_free(sig);
    if (length <= 0)
      return false;
    signature.assign(reinterpret_cast<char*>(der),
                     static_cast<std::size_t>(length));
    OPENSSL_free(der);
  }
  auto* ctx = EVP_MD_CTX_new();
  bool ok = ctx
            && EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr,
                                    const_cast<EVP_PKEY*>(pkey))
                 == 1
            && EVP_DigestVerify(
                 ctx,
                 reinterpret_cast<const unsigned char*>(signature.data()),
                 signature.size(),
                 reinterpret_cast<const unsigned char*>(signed_part.data()),
                 signed_part.size())
                 == 1;
  EVP_MD_CTX_free(ctx);
  // A failed check leaves errors on this thread's OpenSSL queue, where a
  // TLS connection served by the same thread would find them.
  ERR_clear_error();
  return ok;
}

/// "https://as.example/tenant" → its RFC 8414 and OpenID metadata URLs.
std::vector<std::string> metadata_urls(const std::string& issuer) {
  auto where = split_url(issuer); // checked at start (config)
  if (!where)
    return {};
  return {where->origin + "/.well-known/oauth-authorization-server"
            + where->path,
          where->origin + where->path + "/.well-known/openid-configuration"};
}

} // namespace

std::optional<std::chrono::seconds> cache_max_age(std::string_view value) {
  std::optional<std::chrono::seconds> out;
  std::size_t start = 0;
  while (start <= value.size()) {
    auto end = value.find(',', start);
    if (end == std::string_view::npos)
      end = value.size();
    auto part = value.substr(start, end - start);
    while (!part.empty() && part.front() == ' ')
      part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ')
      part.remove_suffix(1);
    std::string lower;
    for (char c : part)
      lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (lower == "no-store" || lower == "no-cache")
      return std::chrono::seconds{0};
    if (lower.rfind("max-age=", 0) == 0) {
      auto digits = lower.substr(8);
      if (!digits.empty() && digits.size() <= 9
          && digits.find_first_not_of("0123456789") == std::string::npos)
        out = std::chrono::seconds{std::stoll(digits)};
    }
    start = end + 1;
  }
  return out;
}

outcome<document> fetch_document(const std::string& url,
                                 std::size_t max_bytes,
                                 std::chrono::milliseconds timeout) {
  http_fetch_request request;
  request.url = url;
  request.headers = {{"Accept", "application/json"}};
  http_fetch_options limits;
  // The whole fetch: a document served a byte a second is cut here.
  limits.timeout = timeout;
  limits.max_bytes = max_bytes;
  http_fetcher fetcher;
  auto result = fetcher.fetch(request, limits);
  if (auto* problem = std::get_if<http_fetch_failure>(&result))
    return fetch_failure(url, problem->kind == http_fetch_error::too_large
                                ? "larger than " + std::to_string(max_bytes)
                                    + " bytes"
                                : problem->message);
  auto& answer = std::get<http_fetch_response>(result);
  if (answer.status != 200)
    return fetch_failure(url, "HTTP " + std::to_string(answer.status));
  document out;
  out.body = std::move(answer.body);
  for (const auto& [name, value] : answer.headers)
    if (name.size() == 13 && (name == "Cache-Control" || name == "cache-control"
                              || name == "Cache-control"))
      out.max_age = cache_max_age(value);
  return out;
}

validator::validator(options opts, fetcher fetch)
  : options_(std::move(opts)), fetch_(std::move(fetch)) {
  if (!options_.now_s)
    options_.now_s = [] {
      return static_cast<int64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                    std::chrono::system_clock::now()
                                      .time_since_epoch())
                                    .count());
    };
  for (const auto& issuer : options_.issuers) {
    auto keys = std::make_unique<issuer_keys>();
    keys->issuer = issuer;
    keys_.emplace(issuer, std::move(keys));
  }
}

validator::~validator() {
  for (auto& [name, keys] : keys_)
    if (keys->refresher.joinable())
      keys->refresher.join();
}

std::optional<std::string> validator::refresh(issuer_keys& keys) {
  std::optional<std::string> failed;
  std::optional<std::chrono::seconds> max_age;
  try {
    failed = fetch_keys(keys, max_age);
  } catch (const std::exception& ex) {
    failed = ex.what();
  }
  std::lock_guard<std::mutex> guard{mutex_};
  keys.fetching = false;
  if (!failed) {
    auto age = std::clamp<std::chrono::seconds>(
      max_age.value_or(options_.default_max_age),
      std::chrono::duration_cast<std::chrono::seconds>(
        options_.refresh_interval),
      std::chrono::seconds{86400});
    keys.stale_at = std::chrono::steady_clock::now() + age;
  }
  return failed;
}

std::optional<std::string>
validator::fetch_keys(issuer_keys& keys,
                      std::optional<std::chrono::seconds>& max_age) {
  // Outside the lock: the fetches take time, and `keys` is the issuer's
  // own (only one refresh runs at a time: `fetching`). One deadline for
  // all of them.
  auto deadline = std::chrono::steady_clock::now() + options_.fetch_deadline;
  auto budget = [&]() -> std::optional<std::chrono::milliseconds> {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return std::nullopt;
    return std::min(left, options_.fetch_timeout);
  };
  auto too_slow = "the issuer's metadata and keys took longer than "
                  + std::to_string(options_.fetch_deadline.count()) + " ms";
  std::string jwks_uri;
  std::string why = "no metadata";
  for (const auto& url : metadata_urls(keys.issuer)) {
    auto time = budget();
    if (!time)
      return too_slow;
    auto fetched = fetch_(url, options_.max_document_bytes, *time);
    if (!fetched) {
      why = fetched.error().message;
      continue;
    }
    auto document = parse_object(fetched->body);
    if (!document) {
      why = "the metadata at " + redact_url(url) + " is not a JSON object";
      continue;
    }
    if (string_member(*document, "issuer") != keys.issuer) {
      why = "the metadata at " + redact_url(url) + " names another issuer";
      continue;
    }
    jwks_uri = string_member(*document, "jwks_uri");
    if (keys.issuer.rfind("https://", 0) == 0
        && jwks_uri.rfind("https://", 0) != 0) {
      why = "the jwks_uri of " + keys.issuer + " is not https";
      jwks_uri.clear();
      continue;
    }
    if (jwks_uri.empty()) {
      why = "the metadata at " + redact_url(url) + " has no jwks_uri";
      continue;
    }
    break;
  }
  if (jwks_uri.empty())
    return why;
  auto time = budget();
  if (!time)
    return too_slow;
  auto fetched = fetch_(jwks_uri, options_.max_document_bytes, *time);
  if (!fetched)
    return fetched.error().message;
  max_age = fetched->max_age;
  auto document = parse_object(fetched->body);
  auto keys_it = document ? document->find("keys") : nullptr;
  if (!document || keys_it == document->end() || !keys_it->value().is_array())
    return "the JWKS at " + redact_url(jwks_uri) + " has no \"keys\" array";
  std::map<std::string, std::shared_ptr<const key>> fresh;
  for (const auto& entry : keys_it->value().get_array()) {
    if (!entry.is_object())
      continue;
    const auto& jwk = entry.get_object();
    auto kid = string_member(jwk, "kid");
    std::string alg;
    std::string skipped;
    auto pkey = jwk_key(jwk, alg, skipped);
    if (!pkey) {
      spdlog::warn("OAuth: {} key \"{}\" skipped: {}", keys.issuer, kid,
                   skipped);
      continue;
    }
    auto k = std::make_shared<key>();
    k->kid = kid;
    k->alg = alg;
    k->pkey = std::move(*pkey);
    fresh[kid] = std::move(k);
  }
  std::lock_guard<std::mutex> guard{mutex_};
  keys.by_kid = std::move(fresh);
  spdlog::info("OAuth: {} keys of {}", keys.by_kid.size(), keys.issuer);
  return std::nullopt;
}

std::shared_ptr<const validator::key>
validator::find_key(const std::string& issuer, const std::string& kid,
                    const std::string& alg, std::string& why) {
  auto it = keys_.find(issuer); // keys_ never changes after construction
  if (it == keys_.end()) {
    why = "the token's issuer is not accepted here";
    return nullptr;
  }
  auto& keys = *it->second;
  // The key in hand, by kid, or the one key of the token's algorithm when
  // the token names none.
  auto lookup = [&]() -> std::shared_ptr<const key> {
    if (!kid.empty()) {
      auto k = keys.by_kid.find(kid);
      return k == keys.by_kid.end() ? nullptr : k->second;
    }
    std::shared_ptr<const key> only;
    for (const auto& [id, k] : keys.by_kid) {
      if (k->alg != alg)
        continue;
      if (only)
        return nullptr; // more than one: the token must say which
      only = k;
    }
    return only;
  };
  auto unknown = [&] {
    return kid.empty() ? "the token names no key (kid) and the issuer has "
                         "not exactly one " + alg + " key"
                       : "no key \"" + kid + "\" in the issuer's key set";
  };
  std::unique_lock<std::mutex> lock{mutex_};
  auto now = std::chrono::steady_clock::now();
  auto may_fetch = !keys.fetching
                   && (!keys.last_fetch
                       || now - *keys.last_fetch >= options_.refresh_interval);
  if (auto found = lookup()) {
    // Cached: used at once. A stale set is read again behind it.
    if (keys.stale_at && now >= *keys.stale_at && may_fetch) {
      keys.fetching = true;
      keys.last_fetch = now;
      if (keys.refresher.joinable())
        keys.refresher.join(); // finished: `fetching` was clear
      keys.refresher = std::thread{[this, &keys] {
        if (auto failed = refresh(keys))
          spdlog::warn("OAuth: cannot refresh the keys of {}: {}",
                       keys.issuer, *failed);
      }};
    }
    return found;
  }
  if (keys.fetching) {
    why = unknown() + " (its keys are being fetched; retry shortly)";
    return nullptr;
  }
  if (!may_fetch) {
    why = unknown();
    return nullptr;
  }
  // Unknown: this request fetches (others are refused meanwhile), within
  // the fetch deadline.
  keys.fetching = true;
  keys.last_fetch = now;
  lock.unlock();
  auto failed = refresh(keys);
  lock.lock();
  if (failed) {
    spdlog::warn("OAuth: cannot refresh the keys of {}: {}", issuer, *failed);
    why = "the issuer's keys cannot be fetched; retry shortly";
    return nullptr;
  }
  if (auto found = lookup())
    return found;
  why = unknown();
  return nullptr;
}

std::variant<identity, refusal> validator::validate(std::string_view token) {
  if (token.size() > options_.max_token_bytes)
    return invalid("the token is longer than "
                   + std::to_string(options_.max_token_bytes) + " bytes");
  auto first = token.find('.');
  auto second = first == std::string_view::npos
                  ? std::string_view::npos
                  : token.find('.', first + 1);
  if (second == std::string_view::npos
      || token.find('.', second + 1) != std::string_view::npos)
    return invalid("not a JWT (header.payload.signature)");
  auto header_text = base64url_decode(token.substr(0, first));
  auto payload_text
    = base64url_decode(token.substr(first + 1, second - first - 1));
  auto signature = base64url_decode(token.substr(second + 1));
  if (!header_text || !payload_text || !signature)
    return invalid("the JWT is not base64url");
  auto header = parse_object(*header_text);
  auto claims = parse_object(*payload_text);
  if (!header || !claims)
    return invalid("the JWT header or claims are not a JSON object");
  auto alg = string_member(*header, "alg");
  if (alg != "RS256" && alg != "ES256")
    return invalid("algorithm \"" + alg
                   + "\" is not accepted (RS256 or ES256)");
  if (header->contains("crit"))
    return invalid("critical header parameters are not supported");
  auto issuer = string_member(*claims, "iss");
  if (std::find(options_.issuers.begin(), options_.issuers.end(), issuer)
      == options_.issuers.end())
    return invalid("the token's issuer is not accepted here");
  std::string why;
  auto k = find_key(issuer, string_member(*header, "kid"), alg, why);
  if (!k)
    return invalid(why);
  if (k->alg != alg)
    return invalid("the key \"" + k->kid + "\" is not an " + alg + " key");
  if (!verify_signature(k->pkey.get(), alg, token.substr(0, second),
                        std::move(*signature)))
    return invalid("the signature does not verify");
  // Claims, now that they are the issuer's.
  auto number = [&](std::string_view name) -> std::optional<int64_t> {
    auto it = claims->find(name);
    if (it == claims->end())
      return std::nullopt;
    if (it->value().is_int64())
      return it->value().get_int64();
    if (it->value().is_uint64())
      return static_cast<int64_t>(
        std::min<uint64_t>(it->value().get_uint64(), INT64_MAX));
    if (it->value().is_double()) {
      auto d = it->value().get_double();
      // Beyond int64 (or NaN): no time anyone means; refused below.
      if (!(d > -9.2e18 && d < 9.2e18))
        return INT64_MIN;
      return static_cast<int64_t>(d);
    }
    return INT64_MIN; // present but not a number
  };
  auto now = options_.now_s();
  auto skew = options_.clock_skew.count();
  auto exp = number("exp");
  if (!exp || *exp == INT64_MIN)
    return invalid("the token has no expiry (exp)");
  if (now - skew >= *exp)
    return invalid("the token has expired");
  if (auto nbf = number("nbf"); nbf && (*nbf == INT64_MIN || now + skew < *nbf))
    return invalid("the token is not valid yet (nbf)");
  bool audience = false;
  if (auto it = claims->find("aud"); it != claims->end()) {
    if (it->value().is_string())
      audience = it->value().get_string() == options_.resource;
    else if (it->value().is_array())
      for (const auto& a : it->value().get_array())
        audience = audience
                   || (a.is_string() && a.get_string() == options_.resource);
  }
  if (!audience)
    return invalid("the token is not meant for this server (aud must be "
                   + options_.resource + ")");
  identity who;
  who.issuer = issuer;
  who.subject = string_member(*claims, "sub");
  if (who.subject.empty())
    return invalid("the token names no subject (sub)");
  // Qualified by the issuer, and apart from static tokens' `user:NAME`:
  // no subject can become another issuer's, or a static token's, principal.
  who.principal = "oauth:" + issuer + "#" + who.subject;
  if (auto scope = string_member(*claims, "scope"); !scope.empty()) {
    std::size_t start = 0;
    while (start < scope.size()) {
      auto end = scope.find(' ', start);
      if (end == std::string::npos)
        end = scope.size();
      if (end > start)
        who.scopes.push_back(scope.substr(start, end - start));
      start = end + 1;
    }
  } else if (auto scp = claims->find("scp");
             scp != claims->end() && scp->value().is_array()) {
    for (const auto& s : scp->value().get_array())
      if (s.is_string())
        who.scopes.emplace_back(s.get_string());
  }
  return who;
}

json::object validator::metadata() const {
  json::object out;
  out["resource"] = options_.resource;
  json::array servers;
  for (const auto& issuer : options_.issuers)
    servers.emplace_back(issuer);
  out["authorization_servers"] = std::move(servers);
  out["scopes_supported"] = json::array{scope_variables_read,
                                        scope_variables_write};
  out["bearer_methods_supported"] = json::array{"header"};
  out["resource_name"] = "transitd";
  return out;
}

std::string validator::metadata_path(std::string_view resource) {
  auto where = split_url(resource); // checked at start (config)
  return "/.well-known/oauth-protected-resource"
         + (where ? where->path : std::string{});
}

std::string validator::metadata_url(std::string_view resource) {
  auto where = split_url(resource);
  return (where ? where->origin : std::string{resource})
         + metadata_path(resource);
}

std::string validator::challenge_parameter() const {
  return "resource_metadata=\"" + metadata_url(options_.resource) + "\"";
}

} // namespace transitd::oauth
