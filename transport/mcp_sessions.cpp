#include "transitd/transport/mcp_sessions.hpp"

#include <spdlog/spdlog.h>

#include "transitd/util/ids.hpp"

namespace transitd::mcp {

session_table::session_table(std::size_t max_sessions,
                             std::chrono::seconds idle_timeout,
                             clock_function clock)
  : max_sessions_(max_sessions),
    idle_timeout_(idle_timeout),
    clock_(std::move(clock)) {
}

std::optional<std::string>
session_table::open(const std::string& protocol_version,
                    const std::string& principal) {
  auto id = make_secret_token();
  auto now = clock_();
  std::lock_guard<std::mutex> guard{mutex_};
  if (sessions_.size() >= max_sessions_)
    evict_idle_locked(now);
  if (sessions_.size() >= max_sessions_) {
    // Still full: drop the least recently used session without calls.
    auto victim = sessions_.end();
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it)
      if (it->second.in_flight.empty()
          && (victim == sessions_.end()
              || it->second.last_used < victim->second.last_used))
        victim = it;
    if (victim == sessions_.end())
      return std::nullopt; // every session has a call in flight
    sessions_.erase(victim);
  }
  session s;
  s.principal = principal;
  s.protocol_version = protocol_version;
  s.last_used = now;
  sessions_.emplace(id, std::move(s));
  return id;
}

void session_table::evict_idle_locked(
  std::chrono::steady_clock::time_point now) {
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (it->second.in_flight.empty()
        && now - it->second.last_used > idle_timeout_)
      it = sessions_.erase(it);
    else
      ++it;
  }
}

session_table::access session_table::use(const std::string& id,
                                         const std::string& principal) {
  auto now = clock_();
  std::lock_guard<std::mutex> guard{mutex_};
  auto it = sessions_.find(id);
  if (it == sessions_.end())
    return access::unknown;
  if (it->second.principal != principal)
    return access::foreign;
  it->second.last_used = now;
  return access::ok;
}

session_table::access session_table::close(const std::string& id,
                                           const std::string& principal) {
  std::vector<std::shared_ptr<cancellation>> calls;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    auto it = sessions_.find(id);
    if (it == sessions_.end())
      return access::unknown;
    if (it->second.principal != principal)
      return access::foreign;
    for (auto& [cancel, request_id] : it->second.in_flight)
      calls.push_back(cancel);
    sessions_.erase(it);
    spdlog::info("MCP session ended by client ({} open)", sessions_.size());
  }
  cancel_each(calls);
  return access::ok;
}

void session_table::set_log_level(const std::string& id, std::string level) {
  std::lock_guard<std::mutex> guard{mutex_};
  if (auto s = sessions_.find(id); s != sessions_.end())
    s->second.log_level = std::move(level);
}

std::optional<std::optional<std::string>>
session_table::add_call(const std::string& session_id,
                        const std::shared_ptr<cancellation>& cancel,
                        std::string key, std::optional<std::string> level) {
  std::lock_guard<std::mutex> guard{mutex_};
  if (session_id.empty()) {
    stateless_.emplace(cancel, std::move(key));
    return level;
  }
  auto s = sessions_.find(session_id);
  if (s == sessions_.end())
    return std::nullopt;
  s->second.in_flight.emplace(cancel, std::move(key));
  return s->second.log_level;
}

void session_table::forget_call(const std::string& session_id,
                                const std::shared_ptr<cancellation>& cancel) {
  std::lock_guard<std::mutex> guard{mutex_};
  if (session_id.empty())
    stateless_.erase(cancel);
  else if (auto s = sessions_.find(session_id); s != sessions_.end())
    s->second.in_flight.erase(cancel);
}

std::size_t session_table::cancel_calls(const std::string& session_id,
                                        const std::string& key) {
  std::vector<std::shared_ptr<cancellation>> calls;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    const call_map* in_flight = &stateless_;
    if (!session_id.empty()) {
      auto s = sessions_.find(session_id);
      if (s == sessions_.end())
        return 0;
      in_flight = &s->second.in_flight;
    }
    // A rare message: a walk over the calls in flight.
    for (const auto& [cancel, request_id] : *in_flight)
      if (request_id == key)
        calls.push_back(cancel);
  }
  cancel_each(calls);
  return calls.size();
}

void session_table::cancel_all() {
  std::vector<std::shared_ptr<cancellation>> calls;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    for (auto& [id, s] : sessions_)
      for (auto& [cancel, request_id] : s.in_flight)
        calls.push_back(cancel);
    for (auto& [cancel, request_id] : stateless_)
      calls.push_back(cancel);
  }
  cancel_each(calls);
}

void session_table::cancel_each(
  const std::vector<std::shared_ptr<cancellation>>& calls) {
  for (const auto& cancel : calls)
    cancel->cancel();
}

std::size_t session_table::size() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return sessions_.size();
}

} // namespace transitd::mcp
