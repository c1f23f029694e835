#include "transitd/offline/csv.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace transitd {

std::string_view trim_view(std::string_view text) {
  auto begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos)
    return {};
  auto end = text.find_last_not_of(" \t");
  return text.substr(begin, end - begin + 1);
}

std::string trim_field(std::string_view text) {
  return std::string{trim_view(text)};
}

bool parse_flag(std::string_view text) {
  auto value = trim_field(text);
  std::transform(value.begin(), value.end(), value.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return value == "true" || value == "1" || value == "yes";
}

// -- csv_reader ---------------------------------------------------------------

csv_reader::csv_reader(source read, std::size_t chunk)
  : read_(std::move(read)),
    chunk_(std::min<std::size_t>(std::max<std::size_t>(chunk, 64), 16384)),
    max_chunk_(std::max<std::size_t>(chunk, 64)) {
}

csv_reader::csv_reader(std::string_view text) : chunk_(64) {
  buffer_.assign(text.data(), text.size());
  end_ = buffer_.size();
  eof_ = true;
}

bool csv_reader::refill() {
  if (eof_ || !read_)
    return false;
  // Keep the unread tail at the front, then append a chunk.
  if (pos_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  if (buffer_.size() < end_ + chunk_)
    buffer_.resize(end_ + chunk_);
  auto got = read_(buffer_.data() + end_, chunk_);
  // Small files stay small; big ones read in chunks of up to max_chunk_.
  chunk_ = std::min(chunk_ * 2, max_chunk_);
  if (got < 0) {
    error_ = failure{ec::data_not_available,
                     "read error after line " + std::to_string(next_line_),
                     {}};
    eof_ = true;
    return false;
  }
  if (got == 0) {
    eof_ = true;
    return false;
  }
  end_ += static_cast<std::size_t>(got);
  return true;
}

bool csv_reader::next(std::vector<std::string_view>& fields) {
  fields.clear();
  if (error_)
    return false;
  for (;;) {
    if (!started_) {
      // A UTF-8 byte order mark is not part of the first header name.
      while (end_ - pos_ < 3 && refill()) {
      }
      if (end_ - pos_ >= 3
          && std::memcmp(buffer_.data() + pos_, "\xEF\xBB\xBF", 3) == 0)
        pos_ += 3;
      started_ = true;
    }
    // Find the end of the record: a newline outside quotes. Only a quote
    // opening a field (after blanks) starts quoting, as in `split`; a stray
    // quote inside a bare field is text.
    std::size_t i = pos_;
    enum class at { field_start, bare, quoted, quote_in_quoted };
    at state = at::field_start;
    std::size_t lines = 0;
    bool complete = false;
    for (;;) {
      const char* data = buffer_.data();
      for (; i < end_ && !complete; ++i) {
        char c = data[i];
        switch (state) {
          case at::field_start:
            if (c == '"')
              state = at::quoted;
            else if (c != ' ' && c != '\t' && c != ',')
              state = at::bare;
            break;
          case at::bare:
            if (c == ',')
              state = at::field_start;
            break;
          case at::quoted:
            if (c == '"')
              state = at::quote_in_quoted;
            break;
          case at::quote_in_quoted:
            // "" is an escaped quote; anything else closed the field.
            state = c == '"' ? at::quoted : (c == ',' ? at::field_start
                                                      : at::bare);
            break;
        }
        if (c == '\n') {
          ++lines;
          if (state != at::quoted) {
            complete = true;
            break;
          }
        }
      }
      if (complete)
        break;
      if (i - pos_ > max_record_bytes) {
        error_ = failure{ec::data_not_available,
                         "record starting on line " + std::to_string(next_line_)
                           + " is longer than 1 MiB",
                         {}};
        return false;
      }
      auto offset = i - pos_;
      bool more = refill(); // may move the unread bytes to the front
      i = pos_ + offset;
      if (!more) {
        if (error_)
          return false;
        break; // the last record has no newline
      }
    }
    bool quoted = state == at::quoted;
    if (!complete && quoted) {
      error_ = failure{ec::data_not_available,
                       "unterminated quoted field starting on line "
                         + std::to_string(next_line_),
                       {}};
      return false;
    }
    if (!complete && i == pos_)
      return false; // nothing left
    record_line_ = next_line_;
    next_line_ += complete ? lines : lines + 1;
    auto begin = pos_;
    auto stop = i;
    pos_ = complete ? i + 1 : i;
    if (stop > begin && buffer_[stop - 1] == '\r')
      --stop;
    split(begin, stop, fields);
    // Skip blank lines (a lone empty field).
    if (fields.size() == 1 && trim_view(fields[0]).empty()) {
      fields.clear();
      continue;
    }
    return true;
  }
}

void csv_reader::split(std::size_t begin, std::size_t end,
                       std::vector<std::string_view>& fields) {
  char* data = buffer_.data();
  std::size_t i = begin;
  for (;;) {
    // Leading blanks before an opening quote belong to no field.
    std::size_t start = i;
    while (i < end && (data[i] == ' ' || data[i] == '\t'))
      ++i;
    if (i < end && data[i] == '"') {
      // Quoted: unescape in place (the result is never longer).
      std::size_t out = i;
      std::size_t first = out;
      ++i;
      while (i < end) {
        if (data[i] == '"') {
          if (i + 1 < end && data[i + 1] == '"') {
            data[out++] = '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        data[out++] = data[i++];
      }
      // Anything after the closing quote up to the comma is kept (lenient).
      std::size_t tail = i;
      while (i < end && data[i] != ',')
        ++i;
      std::size_t keep = i - tail;
      std::memmove(data + out, data + tail, keep);
      out += keep;
      fields.emplace_back(data + first, out - first);
    } else {
      i = start;
      while (i < end && data[i] != ',')
        ++i;
      fields.emplace_back(data + start, i - start);
    }
    if (i >= end)
      return;
    ++i; // the comma
    if (i == end) {
      fields.emplace_back(); // a trailing empty field
      return;
    }
  }
}

// -- csv_header and csv_table ------------------------------------------------

csv_header::csv_header(const std::vector<std::string_view>& names) {
  for (auto name : names)
    names_.push_back(trim_field(name));
  for (std::size_t i = 0; i < names_.size(); ++i)
    index_.emplace(names_[i], i);
}

std::optional<std::size_t> csv_header::column(std::string_view name) const {
  auto it = index_.find(std::string{name});
  if (it == index_.end())
    return std::nullopt;
  return it->second;
}

outcome<csv_table> csv_table::parse(std::string_view text) {
  csv_reader reader{text};
  std::vector<std::string_view> fields;
  csv_table table;
  if (!reader.next(fields)) {
    if (reader.error())
      return *reader.error();
    return table;
  }
  table.header_ = csv_header{fields};
  while (reader.next(fields))
    table.rows_.emplace_back(fields.begin(), fields.end());
  if (reader.error())
    return *reader.error();
  return table;
}

std::string csv_table::field(const std::vector<std::string>& row,
                             std::string_view name) const {
  auto index = column(name);
  if (!index || *index >= row.size())
    return {};
  return trim_field(row[*index]);
}

} // namespace transitd
