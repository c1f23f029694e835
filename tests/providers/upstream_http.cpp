#include "transitd/providers/upstream_http.hpp"

#include <catch2/catch.hpp>

using namespace transitd;

namespace {

http_response status(int code, std::string retry_after = {}) {
  http_response r;
  r.status = code;
  r.retry_after = std::move(retry_after);
  r.received_ms = 1445412480000; // Wed, 21 Oct 2015 07:28:00 GMT
  return r;
}

} // namespace

TEST_CASE("HTTP failures map to the contract's codes", "[upstream_http]") {
  auto throttled = classify_http_failure(status(429, "7"), "Digitransit");
  CHECK(throttled.code == ec::rate_limited);
  CHECK(throttled.retry_after == 7);
  CHECK(classify_http_failure(status(500), "X").code == ec::upstream_error);
  CHECK(classify_http_failure(status(503), "X").code == ec::upstream_error);
  auto key = classify_http_failure(status(401), "Digitransit");
  CHECK(key.code == ec::upstream_error);
  CHECK_THAT(key.message, Catch::Contains("key"));
  CHECK(classify_http_failure(status(404), "X").code == ec::upstream_error);
}

TEST_CASE("Retry-After as seconds or HTTP date", "[upstream_http]") {
  CHECK(parse_retry_after("120", 0, 1) == 120);
  CHECK(parse_retry_after("", 0, 5) == 5);
  CHECK(parse_retry_after("soon", 0, 5) == 5);
  CHECK(parse_retry_after("0", 0, 5) == 1);
  CHECK(parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", 1445412480000, 5)
        == 30);
  CHECK(parse_retry_after("99999999999", 0, 5) == 86400);
}

TEST_CASE("URLs split into origin and path", "[upstream_http]") {
  auto url = split_url("https://api.digitransit.fi/routing/v2/hsl/gtfs/v1");
  REQUIRE(url);
  CHECK(url->origin == "https://api.digitransit.fi");
  CHECK(url->path == "/routing/v2/hsl/gtfs/v1");
  auto local = split_url("http://127.0.0.1:8081/");
  REQUIRE(local);
  CHECK(local->origin == "http://127.0.0.1:8081");
  CHECK(local->path.empty());
  CHECK_FALSE(split_url("ftp://example.com"));
  CHECK_FALSE(split_url("api.digitransit.fi"));
  CHECK_FALSE(split_url("http://"));
}

TEST_CASE("URLs with credentials are refused, and never shown whole",
          "[upstream_http][security]") {
  auto with_user = split_url("https://me:s3cret@api.example.com/v1");
  REQUIRE_FALSE(with_user);
  CHECK_THAT(with_user.error().message, Catch::Contains("user information"));
  CHECK(with_user.error().message.find("s3cret") == std::string::npos);
  auto bad_scheme = split_url("ftp://host/x?app_key=s3cret");
  REQUIRE_FALSE(bad_scheme);
  CHECK(bad_scheme.error().message.find("s3cret") == std::string::npos);

  CHECK(redact_url("https://api.tfl.gov.uk/Journey?app_key=s3cret")
        == "https://api.tfl.gov.uk/Journey?...");
  CHECK(redact_url("https://me:s3cret@host:8443/p#frag")
        == "https://host:8443/p?...");
  CHECK(redact_url("http://127.0.0.1:8081") == "http://127.0.0.1:8081");
  CHECK(redact_url("host?key=s3cret") == "host?...");
  // Without "//" the credentials would read as a scheme and a path.
  CHECK(redact_url("key:s3cret@api.tfl.gov.uk/x") == "api.tfl.gov.uk/x");
  CHECK(redact_url("not a url?key=s3cret") == "not a url?...");
  auto no_slashes = split_url("key:s3cret@api.tfl.gov.uk/x");
  REQUIRE_FALSE(no_slashes);
  CHECK(no_slashes.error().message.find("s3cret") == std::string::npos);
  // Any case of scheme, one spelling for the HTTP client.
  auto upper = split_url("HTTPS://API.example.com/v1");
  REQUIRE(upper);
  CHECK(upper->origin.rfind("https://", 0) == 0);
  CHECK(url_encode("a b/ä~") == "a%20b%2F%C3%A4~");
}

TEST_CASE("upstream text is made safe to show", "[upstream_http]") {
  CHECK(sanitize_upstream_text("a\nb\tc") == "a b c");
  auto long_text = std::string(300, 'x');
  auto cut = sanitize_upstream_text(long_text, 200);
  CHECK(cut.size() == 203);
  // Never split a UTF-8 character: "ä" is two bytes.
  std::string umlauts;
  for (int i = 0; i < 10; ++i)
    umlauts += "ä";
  auto safe = sanitize_upstream_text(umlauts, 5);
  CHECK(safe == "ää...");
}
