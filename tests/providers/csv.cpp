#include "providers/csv.hpp"

#include <catch2/catch.hpp>

using namespace transitd;

TEST_CASE("CSV: quoted commas, doubled quotes, CRLF, blank fields", "[csv]") {
  auto table = csv_table::parse(
    "A,B,C\r\n1,\"x, y\",\r\n2,\"say \"\"hi\"\"\",z\r\n\r\n3,  padded  ,w");
  REQUIRE(table);
  REQUIRE(table->rows().size() == 3);
  const auto& rows = table->rows();
  CHECK(table->field(rows[0], "B") == "x, y");
  CHECK(table->field(rows[0], "C").empty());
  CHECK(table->field(rows[1], "B") == "say \"hi\"");
  CHECK(table->field(rows[2], "B") == "padded");
  CHECK(table->field(rows[2], "Missing").empty());
  CHECK(table->column("C") == std::optional<std::size_t>{2});
}

TEST_CASE("CSV: quoted newlines, a BOM, LF endings", "[csv]") {
  auto table = csv_table::parse("\xEF\xBB\xBFName,Note\n\"A\",\"two\nlines\"\n");
  REQUIRE(table);
  CHECK(table->header().at(0) == "Name");
  CHECK(table->field(table->rows().at(0), "Note") == "two\nlines");
}

TEST_CASE("CSV: an unterminated quote names its line", "[csv]") {
  auto table = csv_table::parse("A\n1\n\"open\n");
  REQUIRE_FALSE(table);
  CHECK_THAT(table.error().message, Catch::Contains("line 3"));
}

TEST_CASE("flags: TRUE, True, padded, FALSE, False, empty", "[csv]") {
  CHECK(parse_flag("TRUE"));
  CHECK(parse_flag("True"));
  CHECK(parse_flag("    TRUE "));
  CHECK_FALSE(parse_flag("FALSE"));
  CHECK_FALSE(parse_flag("False"));
  CHECK_FALSE(parse_flag(""));
}
