#include "transitd/net/http_fetch.hpp"

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <map>
#include <thread>

#include <httplib.h>

#include "transitd/net/url.hpp"

namespace transitd {

namespace {

/// Cuts requests whose deadline has passed. cpp-httplib bounds each wait
/// for bytes, not a whole request: a server that sends its head or body a
/// byte at a time would hold a request for as many waits as it likes. One
/// thread for the process keeps the deadlines and stops the client of any
/// request still running at its own.
class deadline_guard {
public:
  static deadline_guard& instance() {
    static deadline_guard guard;
    return guard;
  }

  /// Watches `client` until disarm(token); true in `*fired` once stopped.
  uint64_t arm(std::chrono::steady_clock::time_point at,
               httplib::Client* client, bool* fired) {
    std::lock_guard<std::mutex> lock{mutex_};
    auto token = ++next_;
    entries_.emplace(token, entry{at, client, fired});
    by_time_.emplace(at, token);
    wake_.notify_one();
    return token;
  }

  /// After it returns, the guard no longer touches the client.
  void disarm(uint64_t token) {
    std::lock_guard<std::mutex> lock{mutex_};
    auto it = entries_.find(token);
    if (it == entries_.end())
      return;
    auto range = by_time_.equal_range(it->second.at);
    for (auto t = range.first; t != range.second; ++t)
      if (t->second == token) {
        by_time_.erase(t);
        break;
      }
    entries_.erase(it);
  }

  ~deadline_guard() {
    {
      std::lock_guard<std::mutex> lock{mutex_};
      stopping_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable())
      thread_.join();
  }

private:
  struct entry {
    std::chrono::steady_clock::time_point at;
    httplib::Client* client;
    bool* fired;
  };

  deadline_guard() : thread_([this] { run(); }) {
  }

  void run() {
    std::unique_lock<std::mutex> lock{mutex_};
    while (!stopping_) {
      if (by_time_.empty()) {
        wake_.wait(lock);
        continue;
      }
      auto first = by_time_.begin();
      // A copy: while this waits (unlocked), disarm may erase the entry.
      const auto at = first->first;
      if (std::chrono::steady_clock::now() < at) {
        wake_.wait_until(lock, at);
        continue;
      }
      auto token = first->second;
      by_time_.erase(first);
      auto it = entries_.find(token);
      if (it == entries_.end())
        continue;
      *it->second.fired = true;
      // Under the lock: disarm waits, so the client outlives this call.
      it->second.client->stop();
      entries_.erase(it);
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::multimap<std::chrono::steady_clock::time_point, uint64_t> by_time_;
  std::map<uint64_t, entry> entries_;
  uint64_t next_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size()
         && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
              return std::tolower(static_cast<unsigned char>(x))
                     == std::tolower(static_cast<unsigned char>(y));
            });
}

http_fetch_failure fetch_failed(http_fetch_error kind, std::string message) {
  return {kind, std::move(message)};
}

bool is_redirect(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307
         || status == 308;
}

/// The request target of a URL split_url accepted, as written: its path
/// (trailing slash kept) and query, without the fragment.
std::string target_of(std::string_view url) {
  auto authority = url.find("://") + 3;
  auto end = url.find_first_of("/?#", authority);
  if (end == std::string_view::npos || url[end] == '#')
    return "/";
  auto target = url.substr(end, url.find('#', end) - end);
  return target.front() == '/' ? std::string{target}
                               : "/" + std::string{target};
}

httplib::Request to_httplib(const std::string& url,
                            const http_fetch_request& request) {
  httplib::Request req;
  req.method = request.method;
  req.path = target_of(url);
  for (const auto& [name, value] : request.headers)
    req.headers.emplace(name, value);
  if (!request.body.empty() || request.method == "POST") {
    req.body = request.body;
    if (!request.content_type.empty())
      req.headers.emplace("Content-Type", request.content_type);
  }
  return req;
}

void set_timeouts(httplib::Client& client, std::chrono::milliseconds left) {
  auto ms = std::max<int64_t>(1, left.count());
  auto seconds = static_cast<time_t>(ms / 1000);
  auto micros = static_cast<time_t>((ms % 1000) * 1000);
  client.set_connection_timeout(seconds, micros);
  client.set_read_timeout(seconds, micros);
  client.set_write_timeout(seconds, micros);
}

} // namespace

std::string http_fetch_response::header(std::string_view name) const {
  for (const auto& [key, value] : headers)
    if (same_name(key, name))
      return value;
  return {};
}

void http_abort::begin(httplib::Client* client) {
  std::lock_guard<std::mutex> guard{mutex_};
  active_ = client;
  hit_ = false;
}

bool http_abort::end() {
  std::lock_guard<std::mutex> guard{mutex_};
  active_ = nullptr;
  return hit_;
}

bool http_abort::abort() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (active_ == nullptr)
    return false;
  active_->stop();
  hit_ = true;
  ++aborted_;
  return true;
}

std::size_t http_abort::aborted() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return aborted_;
}

http_fetcher::http_fetcher(bool keep_alive, std::shared_ptr<http_abort> abort)
  : keep_alive_(keep_alive),
    abort_(abort ? std::move(abort) : std::make_shared<http_abort>()) {
}

http_fetcher::~http_fetcher() = default;

httplib::Client& http_fetcher::client_for(const std::string& origin) {
  auto& slot = clients_[origin];
  if (!slot) {
    slot = std::make_unique<httplib::Client>(origin);
    slot->set_keep_alive(keep_alive_);
    slot->set_tcp_nodelay(true);
    slot->set_follow_location(false);
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
    slot->enable_server_certificate_verification(true);
#endif
  }
  return *slot;
}

http_fetch_result http_fetcher::fetch(const http_fetch_request& request,
                                      const http_fetch_options& options,
                                      const http_body_sink* sink) {
  auto deadline = std::chrono::steady_clock::now() + options.timeout;
  auto url = request.url;
  for (int hop = 0;; ++hop) {
    auto result = attempt(url, request, options, sink, deadline);
    auto* response = std::get_if<http_fetch_response>(&result);
    if (response == nullptr || !is_redirect(response->status)
        || options.max_redirects == 0)
      return result;
    auto location = response->header("Location");
    if (location.empty())
      return result;
    if (hop >= options.max_redirects)
      return fetch_failed(http_fetch_error::too_many_redirects,
                     "more than " + std::to_string(options.max_redirects)
                       + " redirects");
    if (location.rfind('/', 0) == 0) {
      auto where = split_url(url);
      location = (where ? where->origin : std::string{}) + location;
    }
    url = std::move(location);
  }
}

http_fetch_result
http_fetcher::attempt(const std::string& url, const http_fetch_request& request,
                      const http_fetch_options& options,
                      const http_body_sink* sink,
                      std::chrono::steady_clock::time_point deadline) {
  auto where = split_url(url);
  if (!where)
    return fetch_failed(http_fetch_error::bad_url, where.error().message);
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
    deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0)
    return fetch_failed(http_fetch_error::timeout, "no time left");
  auto& client = client_for(where->origin);
  // The socket's own waits end at the deadline or just after it (never
  // before: `left` is rounded down), so a wait cut by them is a timeout.
  set_timeouts(client, left + std::chrono::milliseconds{1});
  auto req = to_httplib(url, request);
  auto now = [&] {
    return options.clock ? options.clock() : std::chrono::steady_clock::now();
  };
  auto body_deadline = now() + left;
  cut cut_off = cut::none;
  http_fetch_response out;
  out.url = url;
  bool to_sink = false;
  std::size_t received = 0;
  req.response_handler = [&](const httplib::Response& head) {
    out.status = head.status;
    for (const auto& [name, value] : head.headers)
      out.headers.emplace_back(name, value);
    to_sink = sink != nullptr && head.status == 200;
    if (to_sink && sink->open && !sink->open(out)) {
      cut_off = cut::refused;
      return false;
    }
    return true;
  };
  req.content_receiver = [&](const char* data, std::size_t n, uint64_t,
                             uint64_t) {
    received += n;
    if (received > options.max_bytes) {
      cut_off = cut::too_large;
      return false;
    }
    if (now() > body_deadline) {
      cut_off = cut::too_slow;
      return false;
    }
    if (to_sink) {
      if (!sink->write(data, n)) {
        cut_off = cut::refused;
        return false;
      }
      return true;
    }
    out.body.append(data, n);
    return true;
  };
  bool expired = false;
  auto token = deadline_guard::instance().arm(deadline, &client, &expired);
  abort_->begin(&client);
  auto result = client.send(req);
  bool aborted = abort_->end();
  deadline_guard::instance().disarm(token);
  if (result && cut_off == cut::none)
    return out;
  // A connection cut midway is not reused: the next request starts clean.
  clients_.erase(where->origin);
  if (aborted)
    return fetch_failed(http_fetch_error::cancelled,
                        "the request was aborted");
  return why_failed(result, cut_off, expired, deadline, options);
}

http_fetch_failure
http_fetcher::why_failed(const httplib::Result& result, cut cut_off,
                         bool expired,
                         std::chrono::steady_clock::time_point deadline,
                         const http_fetch_options& options) {
  if (cut_off == cut::too_large)
    return fetch_failed(http_fetch_error::too_large,
                        "the response is larger than "
                          + std::to_string(options.max_bytes) + " bytes");
  if (cut_off == cut::too_slow || expired
      || std::chrono::steady_clock::now() >= deadline)
    return fetch_failed(http_fetch_error::timeout,
                        "no complete answer within "
                          + std::to_string(options.timeout.count()) + " ms");
  if (cut_off == cut::refused)
    return fetch_failed(http_fetch_error::cancelled, "the body was refused");
  if (!result && result.error() == httplib::Error::Canceled)
    return fetch_failed(http_fetch_error::cancelled,
                        "the request was aborted");
  return fetch_failed(http_fetch_error::network,
                      result ? std::string{"the connection broke"}
                             : httplib::to_string(result.error()));
}

} // namespace transitd
