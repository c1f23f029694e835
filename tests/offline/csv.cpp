#include "transitd/offline/csv.hpp"

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

TEST_CASE("CSV reader: records across chunk boundaries read whole",
          "[csv]") {
  std::string text = "id,name\r\n";
  for (int i = 0; i < 200; ++i)
    text += std::to_string(i) + ",\"stop, " + std::to_string(i)
            + "\nsecond line \"\"q\"\"\"\r\n";
  std::size_t offset = 0;
  // A 7-byte chunk splits every record, quote and CRLF somewhere.
  csv_reader reader{[&](char* buffer, std::size_t size) -> long {
                      auto n = std::min<std::size_t>(size, text.size() - offset);
                      std::copy_n(text.data() + offset, n, buffer);
                      offset += n;
                      return static_cast<long>(n);
                    },
                    7};
  std::vector<std::string_view> fields;
  REQUIRE(reader.next(fields));
  CHECK(fields == std::vector<std::string_view>{"id", "name"});
  int rows = 0;
  while (reader.next(fields)) {
    REQUIRE(fields.size() == 2);
    CHECK(fields[0] == std::to_string(rows));
    CHECK(fields[1]
          == "stop, " + std::to_string(rows) + "\nsecond line \"q\"");
    CHECK(reader.line() == static_cast<std::size_t>(2 + 2 * rows));
    ++rows;
  }
  CHECK_FALSE(reader.error());
  CHECK(rows == 200);
}

TEST_CASE("CSV reader: a stray quote inside a bare field is text", "[csv]") {
  csv_reader reader{std::string_view{"a,b\n5th \"Ave,x\nlast,y"}};
  std::vector<std::string_view> fields;
  REQUIRE(reader.next(fields));
  REQUIRE(reader.next(fields));
  CHECK(fields[0] == "5th \"Ave");
  REQUIRE(reader.next(fields));
  CHECK(fields[0] == "last");
  CHECK_FALSE(reader.next(fields));
  CHECK_FALSE(reader.error());
}

TEST_CASE("CSV reader: a read error and an endless record end reading",
          "[csv]") {
  csv_reader failing{[](char*, std::size_t) -> long { return -1; }};
  std::vector<std::string_view> fields;
  CHECK_FALSE(failing.next(fields));
  REQUIRE(failing.error());
  std::string endless = "\"" + std::string(csv_reader::max_record_bytes + 10,
                                           'x');
  csv_reader reader{std::string_view{endless}};
  CHECK_FALSE(reader.next(fields));
  REQUIRE(reader.error());
  CHECK_THAT(reader.error()->message, Catch::Contains("line 1"));
}
