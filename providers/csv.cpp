#include "providers/csv.hpp"

#include <algorithm>
#include <cctype>

namespace transitd {

std::string trim_field(std::string_view text) {
  auto begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos)
    return {};
  auto end = text.find_last_not_of(" \t");
  return std::string{text.substr(begin, end - begin + 1)};
}

bool parse_flag(std::string_view text) {
  auto value = trim_field(text);
  std::transform(value.begin(), value.end(), value.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return value == "true" || value == "1" || value == "yes";
}

outcome<csv_table> csv_table::parse(std::string_view text) {
  // A UTF-8 byte order mark is not part of the first header name.
  if (text.substr(0, 3) == "\xEF\xBB\xBF")
    text.remove_prefix(3);
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;
  bool field_started = false;
  std::size_t line = 1;
  std::size_t quote_line = 0;
  auto end_field = [&] {
    record.push_back(std::move(field));
    field.clear();
    field_started = false;
  };
  auto end_record = [&] {
    end_field();
    // Skip blank lines (a lone empty field).
    if (!(record.size() == 1 && record[0].empty()))
      records.push_back(std::move(record));
    record.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n')
          ++line;
        field.push_back(c);
      }
      continue;
    }
    switch (c) {
      case '"':
        if (!field_started || trim_field(field).empty()) {
          field.clear();
          quoted = true;
          quote_line = line;
        } else {
          field.push_back(c); // a stray quote inside a bare field
        }
        field_started = true;
        break;
      case ',':
        end_field();
        break;
      case '\r':
        break; // CRLF: the \n ends the record
      case '\n':
        ++line;
        end_record();
        break;
      default:
        field.push_back(c);
        field_started = true;
    }
  }
  if (quoted)
    return make_failure(ec::data_not_available,
                        "unterminated quoted field starting on line "
                          + std::to_string(quote_line));
  if (field_started || !field.empty() || !record.empty())
    end_record();
  csv_table table;
  if (records.empty())
    return table;
  for (auto& name : records.front())
    table.header_.push_back(trim_field(name));
  for (std::size_t i = 0; i < table.header_.size(); ++i)
    table.index_.emplace(table.header_[i], i);
  table.rows_.assign(std::make_move_iterator(records.begin() + 1),
                     std::make_move_iterator(records.end()));
  return table;
}

std::optional<std::size_t> csv_table::column(std::string_view name) const {
  auto it = index_.find(std::string{name});
  if (it == index_.end())
    return std::nullopt;
  return it->second;
}

std::string csv_table::field(const std::vector<std::string>& row,
                             std::string_view name) const {
  auto index = column(name);
  if (!index || *index >= row.size())
    return {};
  return trim_field(row[*index]);
}

} // namespace transitd
