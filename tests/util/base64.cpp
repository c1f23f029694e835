#include "transitd/util/base64.hpp"

#include <vector>

#include <catch2/catch.hpp>

using namespace transitd;

TEST_CASE("base64: both forms round-trip", "[base64]") {
  for (auto form : {base64_form::standard_padded, base64_form::url_unpadded})
    for (std::string bytes : std::vector<std::string>{"", "f", "fo", "foo", "foob",
                              std::string{"\xff\xfe\x00\x01", 4}})
      CHECK(base64_decode(base64_encode(bytes, form), form) == bytes);
  CHECK(base64_encode("\xfb\xff", base64_form::url_unpadded) == "-_8");
  CHECK(base64_encode("\xfb\xff", base64_form::standard_padded) == "+/8=");
  CHECK(base64_encode("Hello", base64_form::standard_padded) == "SGVsbG8=");
}

TEST_CASE("base64: only canonical text of the chosen form decodes",
          "[base64]") {
  using f = base64_form;
  CHECK(base64_decode("SGVsbG8=", f::standard_padded) == "Hello");
  CHECK_FALSE(base64_decode("SGVsbG8", f::standard_padded)); // no padding
  CHECK_FALSE(base64_decode("SGVs!!!bG8=", f::standard_padded));
  CHECK_FALSE(base64_decode("A===", f::standard_padded)); // three '='
  CHECK_FALSE(base64_decode("SG=sbG8=", f::standard_padded)); // '=' inside
  CHECK_FALSE(base64_decode("-_8=", f::standard_padded)); // URL letters
  CHECK_FALSE(base64_decode("+/8", f::url_unpadded)); // standard letters
  CHECK_FALSE(base64_decode("-_8=", f::url_unpadded)); // padding
  CHECK_FALSE(base64_decode("abcde", f::url_unpadded)); // impossible length
  CHECK_FALSE(base64_decode("Zh", f::url_unpadded)); // leftover bits set
}
