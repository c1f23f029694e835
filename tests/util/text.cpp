// Text helpers the tools share.

#include "transitd/util/text.hpp"

#include <catch2/catch.hpp>

using namespace transitd;

TEST_CASE("fold_case lowers ASCII and Nordic letters", "[text]") {
  CHECK(fold_case("KAMPPI") == "kamppi");
  CHECK(fold_case("ÄÖÅ") == "äöå");
  CHECK(fold_case("Töölön TULLI") == "töölön tulli");
}
