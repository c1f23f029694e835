// OAuth resource server: JWT access tokens against an issuer of the test's
// own (keys generated here, its metadata and JWKS on 127.0.0.1), and the
// endpoint's 401/403 answers with their WWW-Authenticate challenges.

#include "transitd/transport/oauth.hpp"

#include <atomic>
#include <thread>

#include <catch2/catch.hpp>

#include "support/test_issuer.hpp"
#include "transitd/transport/mcp_http.hpp"

namespace json = boost::json;
using namespace transitd;
using transitd::testing::test_issuer;

namespace {

constexpr int64_t now = 1'790'000'000;
const std::string resource = "https://transit.example/mcp";

struct oauth_fixture {
  test_issuer issuer;
  std::unique_ptr<oauth::validator> validator;

  explicit oauth_fixture(std::chrono::seconds refresh = std::chrono::seconds{0}) {
    issuer.add_key("rsa-1", "RS256");
    issuer.add_key("ec-1", "ES256");
    oauth::options opts;
    opts.resource = resource;
    opts.issuers = {issuer.url()};
    opts.refresh_interval = refresh;
    opts.now_s = [] { return now; };
    validator = std::make_unique<oauth::validator>(opts);
  }

  json::object claims(json::object extra = {}) const {
    json::object c{{"iss", issuer.url()},
                   {"sub", "alice"},
                   {"aud", resource},
                   {"iat", now - 10},
                   {"exp", now + 300},
                   {"scope", "variables:read openid"}};
    for (auto& [k, v] : extra)
      c[k] = v;
    return c;
  }

  /// The refusal's description, or "" when the token was accepted.
  std::string refused(const std::string& token) {
    auto result = validator->validate(token);
    if (auto* r = std::get_if<oauth::refusal>(&result)) {
      CHECK(r->error == "invalid_token");
      CHECK(r->description.find(token) == std::string::npos);
      return r->description;
    }
    return {};
  }
};

} // namespace

TEST_CASE("OAuth: valid RS256 and ES256 tokens name their subject and scopes",
          "[oauth]") {
  oauth_fixture f;
  for (const char* kid : {"rsa-1", "ec-1"}) {
    auto result = f.validator->validate(f.issuer.sign(kid, f.claims()));
    REQUIRE(std::holds_alternative<oauth::identity>(result));
    const auto& who = std::get<oauth::identity>(result);
    CHECK(who.subject == "alice");
    // Qualified by its issuer, apart from static tokens' user:NAME.
    CHECK(who.principal == "oauth:" + f.issuer.url() + "#alice");
    CHECK(who.issuer == f.issuer.url());
    CHECK(who.has_scope("variables:read"));
    CHECK_FALSE(who.has_scope("variables:write"));
  }
  // An audience list that holds this server's URI.
  CHECK(f.refused(f.issuer.sign(
          "rsa-1", f.claims({{"aud", json::array{"other", resource}}})))
        == "");
  // One metadata and JWKS fetch served both keys.
  CHECK(f.issuer.jwks_fetches() == 1);
}

TEST_CASE("OAuth: expired, not yet valid, wrong audience or issuer, no "
          "subject are refused",
          "[oauth]") {
  oauth_fixture f;
  CHECK(f.refused(f.issuer.sign("rsa-1", f.claims({{"exp", now - 61}})))
        == "the token has expired");
  // Within the 60 s clock skew.
  CHECK(f.refused(f.issuer.sign("rsa-1", f.claims({{"exp", now - 30}}))) == "");
  CHECK(f.refused(f.issuer.sign("rsa-1", f.claims({{"nbf", now + 300}})))
        == "the token is not valid yet (nbf)");
  CHECK(f.refused(f.issuer.sign("rsa-1", f.claims({{"nbf", now + 30}}))) == "");
  auto no_exp = f.claims();
  no_exp.erase("exp");
  CHECK(f.refused(f.issuer.sign("rsa-1", no_exp))
        == "the token has no expiry (exp)");
  CHECK_THAT(f.refused(f.issuer.sign(
               "rsa-1", f.claims({{"aud", "https://other.example/mcp"}}))),
             Catch::StartsWith("the token is not meant for this server"));
  CHECK(f.refused(f.issuer.sign(
          "rsa-1", f.claims({{"iss", "https://evil.example"}})))
        == "the token's issuer is not accepted here");
  auto no_sub = f.claims();
  no_sub.erase("sub");
  CHECK(f.refused(f.issuer.sign("rsa-1", no_sub))
        == "the token names no subject (sub)");
}

TEST_CASE("OAuth: a bad signature, alg none, HMAC and a key of another "
          "algorithm are refused",
          "[oauth]") {
  oauth_fixture f;
  auto good = f.issuer.sign("rsa-1", f.claims());
  auto dot = good.rfind('.');
  auto signature = *oauth::base64url_decode(good.substr(dot + 1));
  signature[10] ^= 0x01;
  CHECK(f.refused(good.substr(0, dot + 1) + oauth::base64url_encode(signature))
        == "the signature does not verify");
  // A payload changed after signing.
  auto first = good.find('.');
  auto second = good.find('.', first + 1);
  auto forged = good.substr(0, first + 1)
                + oauth::base64url_encode(json::serialize(
                  f.claims({{"sub", "mallory"}})))
                + good.substr(second);
  CHECK(f.refused(forged) == "the signature does not verify");
  CHECK(f.refused(test_issuer::unsigned_token(f.claims()))
        == "algorithm \"none\" is not accepted (RS256 or ES256)");
  CHECK(f.refused(f.issuer.sign("rsa-1", f.claims(), "HS256"))
        == "algorithm \"HS256\" is not accepted (RS256 or ES256)");
  // The header says ES256 but the key is RSA: never verified as such.
  CHECK(f.refused(f.issuer.sign("rsa-1", f.claims(), "ES256"))
        == "the key \"rsa-1\" is not an ES256 key");
  CHECK(f.refused("not-a-jwt") == "not a JWT (header.payload.signature)");
}

TEST_CASE("OAuth: an unknown kid refetches the keys, bounded; a rotated key "
          "is then accepted",
          "[oauth]") {
  SECTION("refetch allowed at once") {
    oauth_fixture f;
    f.issuer.add_key("rsa-2", "RS256", false);
    auto token = f.issuer.sign("rsa-2", f.claims());
    CHECK(f.refused(token) == "no key \"rsa-2\" in the issuer's key set");
    auto fetched = f.issuer.jwks_fetches();
    f.issuer.publish("rsa-2"); // the issuer rotates the key in
    CHECK(f.refused(token) == "");
    CHECK(f.issuer.jwks_fetches() == fetched + 1);
    // Known now: no further fetch.
    CHECK(f.refused(token) == "");
    CHECK(f.issuer.jwks_fetches() == fetched + 1);
  }
  SECTION("refetch at most once per interval") {
    oauth_fixture f{std::chrono::seconds{3600}};
    CHECK(f.refused(f.issuer.sign("rsa-1", f.claims())) == "");
    CHECK(f.issuer.jwks_fetches() == 1);
    f.issuer.add_key("rsa-2", "RS256");
    // A flood of unknown kids does not turn into a flood of fetches.
    for (int i = 0; i < 5; ++i)
      CHECK(f.refused(f.issuer.sign("rsa-2", f.claims()))
            == "no key \"rsa-2\" in the issuer's key set");
    CHECK(f.issuer.jwks_fetches() == 1);
  }
}

TEST_CASE("OAuth: a key fetch in flight never delays a token whose key is "
          "cached; unknown kids are refused at once meanwhile",
          "[oauth][keys]") {
  oauth_fixture f;
  auto cached = f.issuer.sign("rsa-1", f.claims());
  CHECK(f.refused(cached) == "");
  CHECK(f.issuer.jwks_fetches() == 1);
  f.issuer.add_key("rsa-2", "RS256", false);
  f.issuer.delay_jwks(1500); // the issuer turns slow
  std::atomic<bool> fetch_done{false};
  std::string slow_answer;
  auto forged_token = f.issuer.sign("rsa-2", f.claims());
  // Catch's assertions are for this thread only: the other just validates.
  std::thread forged{[&] {
    auto result = f.validator->validate(forged_token);
    if (auto* r = std::get_if<oauth::refusal>(&result))
      slow_answer = r->description;
    fetch_done = true;
  }};
  for (int i = 0; i < 2000 && f.issuer.jwks_fetches() < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds{1});
  CHECK(f.issuer.jwks_fetches() == 2);
  // The fetch is in flight (1.5 s): the cached key answers now, and a
  // second unknown kid is refused without a second fetch.
  CHECK(f.refused(cached) == "");
  CHECK(f.refused(f.issuer.sign("ec-1", f.claims())) == "");
  f.issuer.add_key("rsa-3", "RS256", false);
  CHECK_THAT(f.refused(f.issuer.sign("rsa-3", f.claims())),
             Catch::Contains("being fetched; retry shortly"));
  CHECK_FALSE(fetch_done);
  forged.join();
  CHECK(slow_answer == "no key \"rsa-2\" in the issuer's key set");
  CHECK(f.issuer.jwks_fetches() == 2);
}

TEST_CASE("OAuth: a fetch has one deadline for all its requests",
          "[oauth][keys]") {
  test_issuer issuer;
  issuer.add_key("k", "ES256");
  issuer.delay_jwks(3000);
  oauth::options opts;
  opts.resource = resource;
  opts.issuers = {issuer.url()};
  opts.fetch_timeout = std::chrono::milliseconds{10000};
  opts.fetch_deadline = std::chrono::milliseconds{600};
  opts.now_s = [] { return now; };
  oauth::validator v{opts};
  auto result = v.validate(issuer.sign(
    "k", json::object{{"iss", issuer.url()}, {"sub", "a"}, {"aud", resource},
                      {"exp", now + 60}}));
  auto* r = std::get_if<oauth::refusal>(&result);
  REQUIRE(r);
  CHECK(r->description == "the issuer's keys cannot be fetched; retry shortly");
}

TEST_CASE("OAuth: a key set past its max-age is read again; a withdrawn key "
          "stops working",
          "[oauth][keys]") {
  oauth_fixture f; // refresh interval 0: max-age 0 is honoured
  f.issuer.jwks_max_age(0);
  auto token = f.issuer.sign("rsa-1", f.claims());
  CHECK(f.refused(token) == "");
  CHECK(f.issuer.jwks_fetches() == 1);
  f.issuer.withdraw("rsa-1");
  // Stale: still accepted at once, while the set is read again behind it.
  CHECK(f.refused(token) == "");
  std::string answer;
  for (int i = 0; i < 500; ++i) {
    answer = f.refused(token);
    if (!answer.empty())
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  }
  CHECK(answer == "no key \"rsa-1\" in the issuer's key set");
  CHECK(oauth::cache_max_age("public, max-age=300")
        == std::chrono::seconds{300});
  CHECK(oauth::cache_max_age("No-Store") == std::chrono::seconds{0});
  CHECK_FALSE(oauth::cache_max_age("public"));
  CHECK_FALSE(oauth::cache_max_age("max-age=-3"));
}

TEST_CASE("OAuth: a token without kid uses the issuer's one key of its "
          "algorithm",
          "[oauth][keys]") {
  oauth_fixture f; // one RS256 key and one ES256 key
  CHECK(f.refused(f.issuer.sign("rsa-1", f.claims(), {}, false)) == "");
  CHECK(f.refused(f.issuer.sign("ec-1", f.claims(), {}, false)) == "");
  f.issuer.add_key("rsa-2", "RS256");
  oauth_fixture two;
  two.issuer.add_key("rsa-2", "RS256");
  CHECK_THAT(two.refused(two.issuer.sign("rsa-1", two.claims(), {}, false)),
             Catch::Contains("names no key (kid)"));
}

TEST_CASE("OAuth: an oversized token or key set is refused", "[oauth]") {
  oauth_fixture f;
  auto huge = f.issuer.sign("rsa-1",
                            f.claims({{"pad", std::string(9000, 'x')}}));
  CHECK(f.refused(huge) == "the token is longer than 8192 bytes");
  CHECK(f.issuer.jwks_fetches() == 0); // refused before any fetch
  f.issuer.oversize_jwks();
  CHECK(f.refused(f.issuer.sign("rsa-1", f.claims()))
        == "the issuer's keys cannot be fetched; retry shortly");
}

TEST_CASE("OAuth: protected-resource metadata (RFC 9728)", "[oauth]") {
  CHECK(oauth::validator::metadata_url("https://transit.example/mcp")
        == "https://transit.example/.well-known/oauth-protected-resource/mcp");
  CHECK(oauth::validator::metadata_url("https://transit.example")
        == "https://transit.example/.well-known/oauth-protected-resource");
  oauth::options opts;
  opts.resource = resource;
  opts.issuers = {"https://as.example"};
  oauth::validator v{opts, [](const std::string&, std::size_t,
                              std::chrono::milliseconds)
                       -> outcome<oauth::document> {
                       FAIL("no fetch expected");
                       return oauth::document{};
                     }};
  auto m = v.metadata();
  CHECK(m.at("resource").as_string() == resource);
  CHECK(m.at("authorization_servers").at(0).as_string() == "https://as.example");
  CHECK(m.at("scopes_supported").as_array().size() == 2);
}

namespace {

struct oauth_endpoint_fixture : oauth_fixture {
  mcp::tool_catalog catalog;
  std::unique_ptr<mcp::endpoint> endpoint;

  oauth_endpoint_fixture() {
    mcp::tool_spec echo;
    echo.name = "echo";
    echo.input = mcp::field::object({}, {});
    echo.output_schema = mcp::schema_object({}, {});
    echo.run = [](const json::object&, call_context& ctx,
                  const std::shared_ptr<mcp::cancellation>&,
                  mcp::tool_done done) {
      done(mcp::success_outcome(json::object{{"principal", ctx.principal}}));
    };
    catalog.add(echo);
    auto write = echo;
    write.name = "write_thing";
    write.scope = std::string{oauth::scope_variables_write};
    catalog.add(write);
    mcp::endpoint_options opts;
    oauth::options o;
    o.resource = resource;
    o.issuers = {issuer.url()};
    o.now_s = [] { return now; };
    opts.oauth = std::make_shared<oauth::validator>(o);
    endpoint = std::make_unique<mcp::endpoint>(opts, catalog);
  }

  mcp::http_reply call(const std::string& tool, const std::string& token) {
    mcp::http_request r;
    r.method = "POST";
    r.headers = {{"host", "localhost"},
                 {"content-type", "application/json"},
                 {"accept", "application/json, text/event-stream"},
                 {"mcp-protocol-version", "2026-07-28"},
                 {"mcp-method", "tools/call"},
                 {"mcp-name", tool}};
    if (!token.empty())
      r.headers.emplace_back("authorization", "Bearer " + token);
    r.body = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":")"
             + tool
             + R"(","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}})";
    return endpoint->handle(r);
  }

  static std::string challenge(const mcp::http_reply& reply) {
    for (const auto& [k, v] : reply.headers)
      if (k == "WWW-Authenticate")
        return v;
    return {};
  }
};

} // namespace

TEST_CASE("OAuth at the endpoint: 401 names the metadata, 403 the missing "
          "scope, and the subject owns the call",
          "[oauth][mcp]") {
  oauth_endpoint_fixture f;
  auto metadata = "resource_metadata=\"https://transit.example/.well-known/"
                  "oauth-protected-resource/mcp\"";
  auto none = f.call("echo", "");
  CHECK(none.status == 401);
  CHECK_THAT(f.challenge(none), Catch::Contains(metadata));
  CHECK_THAT(f.challenge(none), !Catch::Contains("error="));

  auto expired = f.call("echo", f.issuer.sign("rsa-1",
                                               f.claims({{"exp", now - 600}})));
  CHECK(expired.status == 401);
  CHECK_THAT(f.challenge(expired), Catch::Contains("error=\"invalid_token\""));
  // The reason is in the body only: nothing of the token in the header.
  CHECK_THAT(f.challenge(expired), !Catch::Contains("expired"));
  CHECK_THAT(f.challenge(expired), Catch::Contains(metadata));
  CHECK_THAT(expired.body, Catch::Contains("the token has expired"));

  auto ok = f.call("echo", f.issuer.sign("rsa-1", f.claims()));
  CHECK(ok.status == 200);
  CHECK_THAT(ok.body, Catch::Contains("\"principal\":\"oauth:" + f.issuer.url()
                                      + "#alice\""));

  // variables:read only: a write tool is forbidden, naming the scope.
  auto forbidden = f.call("write_thing", f.issuer.sign("rsa-1", f.claims()));
  CHECK(forbidden.status == 403);
  CHECK_THAT(f.challenge(forbidden),
             Catch::Contains("error=\"insufficient_scope\""));
  CHECK_THAT(f.challenge(forbidden),
             Catch::Contains("scope=\"variables:write\""));
  auto allowed = f.call("write_thing",
                        f.issuer.sign("ec-1", f.claims({{"scope",
                                                         "variables:write"}})));
  CHECK(allowed.status == 200);
}
