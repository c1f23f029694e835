#pragma once
// One connection to Redis through hiredis (blocking, with timeouts): owned
// by a detached REDIS actor (actors/shared_state.hpp), never used on the CAF
// scheduler's threads. Down means: every command fails at once until the
// next reconnect attempt is due (backoff 0.5 s doubling to 5 s), so that a
// dead Redis costs the callers nothing but the fallback.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "transitd/messages/error.hpp"
#include "transitd/messages/shared.hpp"

namespace transitd {

/// Where Redis listens: redis://[[user]:password@]host[:port][/db].
struct redis_endpoint {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string user;
  std::string password;
  int db = 0;
};

/// Parses a redis:// URL; a failure names what is wrong (never the
/// password).
outcome<redis_endpoint> parse_redis_url(std::string_view url);

struct redis_link_options {
  int32_t connect_timeout_ms = 250;
  int32_t command_timeout_ms = 250;
  int32_t retry_min_ms = 500;
  int32_t retry_max_ms = 5000;
};

class redis_link {
public:
  redis_link(redis_endpoint endpoint, redis_link_options options);
  ~redis_link();
  redis_link(const redis_link&) = delete;
  redis_link& operator=(const redis_link&) = delete;

  /// Runs one command (binary-safe arguments) at `now_ms` (steady clock),
  /// connecting first when needed and due. An unreachable server or a
  /// broken connection answers `reachable == false`; a Redis error reply
  /// is reachable, with `kind == redis_result::error`.
  redis_result run(const std::vector<std::string>& argv, int64_t now_ms);

  bool connected() const;
  const std::string& last_error() const {
    return last_error_;
  }
  int64_t reconnects() const {
    return reconnects_;
  }
  int64_t failures() const {
    return failures_;
  }

private:
  bool connect(int64_t now_ms);
  void drop(std::string why, int64_t now_ms);

  struct impl;
  std::unique_ptr<impl> impl_;
  redis_endpoint endpoint_;
  redis_link_options options_;
  std::string last_error_;
  int64_t next_attempt_ms_ = 0;
  int32_t backoff_ms_ = 0;
  int64_t reconnects_ = 0;
  int64_t failures_ = 0;
  bool ever_connected_ = false;
};

} // namespace transitd
