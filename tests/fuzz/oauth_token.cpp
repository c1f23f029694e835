// libFuzzer: the OAuth resource server's token check on any bearer token:
// JWT splitting, base64url, header and claims JSON (the issuer is read
// before the signature), the algorithm and key rules, and ES256 signature
// decoding and verification. The issuer's metadata and key set are fixed
// (no network): one P-256 key, whose private half is not here, so no input
// gets past the signature (the claims' checks are unit-tested with keys
// the tests make, tests/transport/oauth.cpp).

#include <string>

#include <spdlog/spdlog.h>

#include "tests/fuzz/common.hpp"
#include "transitd/transport/oauth.hpp"

using namespace transitd;

namespace {

constexpr const char* issuer = "https://as.example";

outcome<oauth::document> fixed_documents(const std::string& url, std::size_t,
                                        std::chrono::milliseconds) {
  if (url.find("oauth-authorization-server") != std::string::npos)
    return oauth::document{R"({"issuer":"https://as.example","jwks_uri":"https://as.example/jwks"})", std::nullopt};
  return oauth::document{std::string{
    R"({"keys":[{"kty":"EC","crv":"P-256","kid":"k1","alg":"ES256","use":"sig",)"
    R"("x":"BSyO72OspL-SoYnCKSP9yWpZnVCWMep_DXGn--nI4Do",)"
    R"("y":"mRPfKHAFy8KFoO4ElTRptQ2NfeVkWcrqjvGoRm-Ctsk"},)"
    R"({"kty":"RSA","kid":"short","n":"AQAB","e":"AQAB"}]})"}, std::nullopt};
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static oauth::validator* v = [] {
    spdlog::set_level(spdlog::level::off);
    oauth::options opts;
    opts.resource = "https://transit.example/mcp";
    opts.issuers = {issuer};
    opts.now_s = [] { return int64_t{1'790'000'000}; };
    return new oauth::validator{opts, fixed_documents};
  }();
  auto token = fuzz::text(data, size);
  auto result = v->validate(token);
  // No forged token can be accepted: the key's private half is not here.
  if (std::holds_alternative<oauth::identity>(result))
    __builtin_trap();
  (void)oauth::base64url_decode(token);
  return 0;
}
