#pragma once
// A small RFC 4180 reader for TfL's station data files: quoted fields with
// commas and doubled quotes, CRLF or LF, and columns found by header name
// (TfL changes column order between releases).

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "messages/error.hpp"

namespace transitd {

class csv_table {
public:
  /// Parses the whole text; the first record is the header. A failure names
  /// the line of an unterminated quote.
  static outcome<csv_table> parse(std::string_view text);

  const std::vector<std::string>& header() const {
    return header_;
  }
  const std::vector<std::vector<std::string>>& rows() const {
    return rows_;
  }
  /// Column index by header name (exact, after trimming), or nullopt.
  std::optional<std::size_t> column(std::string_view name) const;

  /// Field of `row` in column `name`, trimmed; "" when the column or the
  /// field is missing.
  std::string field(const std::vector<std::string>& row,
                    std::string_view name) const;

private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  std::unordered_map<std::string, std::size_t> index_;
};

/// Trims spaces and tabs.
std::string trim_field(std::string_view text);

/// TRUE/True/true/1/yes → true; anything else (FALSE, False, "") → false.
bool parse_flag(std::string_view text);

} // namespace transitd
