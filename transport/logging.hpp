#pragma once
// Log output through spdlog: human-readable lines by default, or one JSON
// object per line. Lines about a call start with "[CORRELATION_ID] "; the
// JSON form puts that id in its own "correlationId" field. A tap lets an
// MCP session receive the lines about its own calls as
// notifications/message (logging/setLevel).

#include <memory>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <spdlog/common.h>
#include <spdlog/formatter.h>

namespace transitd {

/// Sets the default logger's level and format ("text" or "json"); with
/// `to_stderr` (--stdio) the lines go to standard error. Call before
/// anything logs.
void configure_logging(const std::string& level, const std::string& format,
                       bool to_stderr = false);

/// One log line as a JSON object (no newline): time, level, correlationId
/// (when the line names a call), message.
std::string json_log_line(spdlog::log_clock::time_point time,
                          spdlog::level::level_enum level,
                          std::string_view payload);

/// The correlation id a line names ("[id] ..." or "[id:shared] ..."), or
/// an empty view.
std::string_view line_correlation_id(std::string_view payload);

/// The spdlog formatter behind --log-format json.
class json_formatter final : public spdlog::formatter {
public:
  void format(const spdlog::details::log_msg& msg,
              spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;
};

/// Collects the log lines about chosen calls (by correlation id) while
/// they run. Installed on the default logger; costs one atomic load per
/// line while nobody listens.
class call_log_tap {
public:
  struct line {
    spdlog::level::level_enum level;
    std::string message;
  };

  /// The process-wide tap, added to the default logger on first use.
  static call_log_tap& global();

  /// Starts collecting lines about `correlation_id` at `min_level` or
  /// above; with `forward`, each line goes there as it is logged (on the
  /// logging thread, which must not block) instead of being collected.
  void listen(const std::string& correlation_id,
              spdlog::level::level_enum min_level,
              std::function<void(const line&)> forward = {});
  /// Stops and returns what was collected.
  std::vector<line> take(const std::string& correlation_id);

  void offer(spdlog::level::level_enum level, std::string_view payload);

private:
  struct listener {
    spdlog::level::level_enum min_level;
    std::vector<line> lines;
    std::function<void(const line&)> forward;
  };
  std::mutex mutex_;
  std::unordered_map<std::string, listener> listeners_;
  std::atomic<std::size_t> count_{0};
};

} // namespace transitd
