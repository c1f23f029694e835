#pragma once
// RFC 4180 reading for the data files transitd loads (GTFS feeds, TfL's
// station data): quoted fields with commas, newlines and doubled quotes,
// CRLF or LF, an optional UTF-8 byte order mark, and columns found by
// header name (publishers reorder and add columns between releases).

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "transitd/messages/error.hpp"

namespace transitd {

/// Reads records one at a time from a byte source, so a file of hundreds
/// of megabytes is never held whole: fields are views into the reader's
/// buffer, valid until the next call of `next`. Blank lines are skipped.
class csv_reader {
public:
  /// Fills `buffer` with up to `size` bytes; returns 0 at the end and a
  /// negative number on a read error.
  using source = std::function<long(char* buffer, std::size_t size)>;

  explicit csv_reader(source read, std::size_t chunk = 1 << 20);
  /// Reads from text that outlives the reader.
  explicit csv_reader(std::string_view text);

  /// The next record's fields; false at the end or on an error (`error()`
  /// then says what: an unterminated quote names its line, as does a
  /// record longer than `max_record_bytes`).
  bool next(std::vector<std::string_view>& fields);

  /// The failure that ended reading, if any.
  const std::optional<failure>& error() const {
    return error_;
  }
  /// The line the last record returned started on (1-based).
  std::size_t line() const {
    return record_line_;
  }

  /// No single record may be longer than this.
  static constexpr std::size_t max_record_bytes = 1 << 20;

private:
  bool refill();
  void split(std::size_t begin, std::size_t end,
             std::vector<std::string_view>& fields);

  source read_;
  std::string buffer_;
  std::size_t chunk_;
  std::size_t max_chunk_ = 0;
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
  bool eof_ = false;
  bool started_ = false;
  std::size_t next_line_ = 1;
  std::size_t record_line_ = 0;
  std::optional<failure> error_;
};

/// The header of a file read by `csv_reader`: column index by name.
class csv_header {
public:
  csv_header() = default;
  explicit csv_header(const std::vector<std::string_view>& names);

  /// Column index by header name (exact, after trimming), or nullopt.
  std::optional<std::size_t> column(std::string_view name) const;
  const std::vector<std::string>& names() const {
    return names_;
  }

private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::size_t> index_;
};

/// A whole small file in memory (TfL's station data).
class csv_table {
public:
  /// Parses the whole text; the first record is the header. A failure names
  /// the line of an unterminated quote.
  static outcome<csv_table> parse(std::string_view text);

  const std::vector<std::string>& header() const {
    return header_.names();
  }
  const std::vector<std::vector<std::string>>& rows() const {
    return rows_;
  }
  /// Column index by header name (exact, after trimming), or nullopt.
  std::optional<std::size_t> column(std::string_view name) const {
    return header_.column(name);
  }

  /// Field of `row` in column `name`, trimmed; "" when the column or the
  /// field is missing.
  std::string field(const std::vector<std::string>& row,
                    std::string_view name) const;

private:
  csv_header header_;
  std::vector<std::vector<std::string>> rows_;
};

/// Trims spaces and tabs.
std::string_view trim_view(std::string_view text);

/// Trims spaces and tabs.
std::string trim_field(std::string_view text);

/// TRUE/True/true/1/yes → true; anything else (FALSE, False, "") → false.
bool parse_flag(std::string_view text);

} // namespace transitd
