#include "transitd/transport/logging.hpp"

#include <atomic>
#include <chrono>
#include <ctime>

#include <boost/json.hpp>
#include <spdlog/details/log_msg.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace transitd {

namespace {

std::string iso_time(spdlog::log_clock::time_point time) {
  auto seconds = spdlog::log_clock::to_time_t(time);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
              time.time_since_epoch())
              .count()
            % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buffer[40];
  auto n = std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(buffer + n, sizeof(buffer) - n, ".%03dZ",
                static_cast<int>(ms));
  return buffer;
}

/// Forwards lines to the tap; no locking of its own.
class tap_sink final : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
public:
  explicit tap_sink(call_log_tap& tap) : tap_(tap) {
  }

protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    tap_.offer(msg.level,
               std::string_view{msg.payload.data(), msg.payload.size()});
  }
  void flush_() override {
  }

private:
  call_log_tap& tap_;
};

/// The payload after "[id] ".
std::string_view after_id(std::string_view payload, std::string_view id) {
  payload.remove_prefix(id.size() + 2);
  if (!payload.empty() && payload.front() == ' ')
    payload.remove_prefix(1);
  return payload;
}

} // namespace

std::string_view line_correlation_id(std::string_view payload) {
  if (payload.size() < 3 || payload.front() != '[')
    return {};
  auto end = payload.find(']');
  if (end == std::string_view::npos || end < 2)
    return {};
  auto id = payload.substr(1, end - 1);
  if (id.find(' ') != std::string_view::npos)
    return {};
  return id;
}

std::string json_log_line(spdlog::log_clock::time_point time,
                          spdlog::level::level_enum level,
                          std::string_view payload) {
  boost::json::object line;
  line["time"] = iso_time(time);
  auto name = spdlog::level::to_string_view(level);
  line["level"] = std::string_view{name.data(), name.size()};
  auto id = line_correlation_id(payload);
  if (!id.empty()) {
    line["correlationId"] = id;
    payload = after_id(payload, id);
  }
  line["message"] = payload;
  return boost::json::serialize(line);
}

void json_formatter::format(const spdlog::details::log_msg& msg,
                            spdlog::memory_buf_t& dest) {
  auto text = json_log_line(
    msg.time, msg.level,
    std::string_view{msg.payload.data(), msg.payload.size()});
  dest.append(text.data(), text.data() + text.size());
  dest.push_back('\n');
}

std::unique_ptr<spdlog::formatter> json_formatter::clone() const {
  return std::make_unique<json_formatter>();
}

void configure_logging(const std::string& level, const std::string& format,
                       bool to_stderr) {
  if (to_stderr) {
    // Standard output carries the protocol (--stdio): logs go to stderr.
    auto logger = std::make_shared<spdlog::logger>(
      "transitd", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    spdlog::set_default_logger(std::move(logger));
  }
  spdlog::set_level(spdlog::level::from_str(level));
  if (format == "json")
    spdlog::set_formatter(std::make_unique<json_formatter>());
  else
    spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %^%l%$ %v");
  call_log_tap::global();
}

call_log_tap& call_log_tap::global() {
  static call_log_tap* tap = [] {
    auto* t = new call_log_tap; // lives as long as the logger
    spdlog::default_logger()->sinks().push_back(
      std::make_shared<tap_sink>(*t));
    return t;
  }();
  return *tap;
}

void call_log_tap::listen(const std::string& correlation_id,
                          spdlog::level::level_enum min_level,
                          std::function<void(const line&)> forward) {
  std::lock_guard<std::mutex> guard{mutex_};
  if (listeners_
        .emplace(correlation_id,
                 listener{min_level, {}, std::move(forward)})
        .second)
    count_.fetch_add(1, std::memory_order_relaxed);
}

std::vector<call_log_tap::line>
call_log_tap::take(const std::string& correlation_id) {
  std::lock_guard<std::mutex> guard{mutex_};
  auto it = listeners_.find(correlation_id);
  if (it == listeners_.end())
    return {};
  auto lines = std::move(it->second.lines);
  listeners_.erase(it);
  count_.fetch_sub(1, std::memory_order_relaxed);
  return lines;
}

void call_log_tap::offer(spdlog::level::level_enum level,
                         std::string_view payload) {
  if (count_.load(std::memory_order_relaxed) == 0)
    return;
  auto id = line_correlation_id(payload);
  if (id.empty())
    return;
  // A shared upstream call logs as "<id>:shared" of its first caller.
  auto base = id.substr(0, id.find(':'));
  std::lock_guard<std::mutex> guard{mutex_};
  auto it = listeners_.find(std::string{base});
  if (it == listeners_.end() || level < it->second.min_level)
    return;
  line item{level, std::string{after_id(payload, id)}};
  if (it->second.forward)
    it->second.forward(item);
  else
    it->second.lines.push_back(std::move(item));
}

} // namespace transitd
