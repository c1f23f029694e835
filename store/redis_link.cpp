#include "transitd/store/redis_link.hpp"

#include <algorithm>
#include <charconv>

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>
#include <hiredis/hiredis.h>

namespace transitd {

outcome<redis_endpoint> parse_redis_url(std::string_view url) {
  auto bad = [](std::string why) {
    return make_failure(ec::validation_error, "--redis: " + std::move(why),
                        "give redis://[:password@]host[:port][/db]");
  };
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed)
    return bad("not a URL");
  const auto& u = *parsed;
  if (u.scheme() != "redis")
    return bad("the scheme must be redis:// (TLS is not supported)");
  redis_endpoint out;
  if (!u.host().empty())
    out.host = std::string{u.host()};
  if (u.has_port()) {
    auto port = u.port_number();
    if (port == 0)
      return bad("the port must be 1..65535");
    out.port = port;
  }
  if (u.has_userinfo()) {
    out.user = std::string{u.user()};
    out.password = std::string{u.password()};
  }
  auto path = std::string{u.path()};
  if (!path.empty() && path != "/") {
    auto digits = std::string_view{path}.substr(1);
    int db = -1;
    auto [end, ec] = std::from_chars(digits.data(),
                                     digits.data() + digits.size(), db);
    if (ec != std::errc{} || end != digits.data() + digits.size() || db < 0
        || db > 15)
      return bad("the path must be a database number 0..15");
    out.db = db;
  }
  return out;
}

struct redis_link::impl {
  redisContext* context = nullptr;

  void close() {
    if (context != nullptr)
      redisFree(context);
    context = nullptr;
  }
};

namespace {

timeval to_timeval(int32_t ms) {
  timeval tv;
  tv.tv_sec = ms / 1000;
  tv.tv_usec = (ms % 1000) * 1000;
  return tv;
}

/// One element of an array reply as text (integers in decimal, nil empty).
std::string element_text(const redisReply* r) {
  switch (r->type) {
    case REDIS_REPLY_INTEGER:
      return std::to_string(r->integer);
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
    case REDIS_REPLY_ERROR:
      return std::string{r->str, r->len};
    default:
      return {};
  }
}

redis_result flatten(const redisReply* r) {
  redis_result out;
  out.reachable = true;
  switch (r->type) {
    case REDIS_REPLY_NIL:
      out.kind = redis_result::nil;
      break;
    case REDIS_REPLY_INTEGER:
      out.kind = redis_result::integer;
      out.number = r->integer;
      break;
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
      out.kind = redis_result::string;
      out.text.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ERROR:
      out.kind = redis_result::error;
      out.text.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ARRAY:
      out.kind = redis_result::array;
      for (std::size_t i = 0; i < r->elements; ++i)
        out.items.push_back(element_text(r->element[i]));
      break;
    default:
      out.kind = redis_result::none;
  }
  return out;
}

} // namespace

redis_link::redis_link(redis_endpoint endpoint, redis_link_options options)
  : impl_(std::make_unique<impl>()),
    endpoint_(std::move(endpoint)),
    options_(options) {
}

redis_link::~redis_link() {
  impl_->close();
}

bool redis_link::connected() const {
  return impl_->context != nullptr;
}

void redis_link::drop(std::string why, int64_t now_ms) {
  impl_->close();
  last_error_ = std::move(why);
  ++failures_;
  backoff_ms_ = backoff_ms_ == 0
                  ? options_.retry_min_ms
                  : std::min(options_.retry_max_ms, backoff_ms_ * 2);
  next_attempt_ms_ = now_ms + backoff_ms_;
}

bool redis_link::connect(int64_t now_ms) {
  if (impl_->context != nullptr)
    return true;
  if (now_ms < next_attempt_ms_)
    return false;
  auto tv = to_timeval(options_.connect_timeout_ms);
  auto* c = redisConnectWithTimeout(endpoint_.host.c_str(), endpoint_.port, tv);
  if (c == nullptr || c->err != 0) {
    std::string why = c == nullptr ? "out of memory" : c->errstr;
    if (c != nullptr)
      redisFree(c);
    drop("cannot connect to " + endpoint_.host + ":"
           + std::to_string(endpoint_.port) + ": " + why,
         now_ms);
    return false;
  }
  auto command_tv = to_timeval(options_.command_timeout_ms);
  redisSetTimeout(c, command_tv);
  impl_->context = c;
  auto setup = [&](const std::vector<std::string>& argv) {
    std::vector<const char*> args;
    std::vector<std::size_t> lengths;
    for (const auto& a : argv) {
      args.push_back(a.data());
      lengths.push_back(a.size());
    }
    auto* reply = static_cast<redisReply*>(redisCommandArgv(
      c, static_cast<int>(args.size()), args.data(), lengths.data()));
    bool ok = reply != nullptr && reply->type != REDIS_REPLY_ERROR;
    std::string why = reply == nullptr               ? c->errstr
                      : reply->type == REDIS_REPLY_ERROR
                        ? std::string{reply->str, reply->len}
                        : std::string{};
    if (reply != nullptr)
      freeReplyObject(reply);
    if (!ok)
      drop(argv.front() + " failed: " + why, now_ms);
    return ok;
  };
  if (!endpoint_.password.empty()) {
    // The password never appears in an error: only AUTH's verdict does.
    std::vector<std::string> auth{"AUTH"};
    if (!endpoint_.user.empty())
      auth.push_back(endpoint_.user);
    auth.push_back(endpoint_.password);
    if (!setup(auth))
      return false;
  }
  if (endpoint_.db != 0 && !setup({"SELECT", std::to_string(endpoint_.db)}))
    return false;
  if (ever_connected_)
    ++reconnects_;
  ever_connected_ = true;
  backoff_ms_ = 0;
  last_error_.clear();
  return true;
}

redis_result redis_link::run(const std::vector<std::string>& argv,
                             int64_t now_ms) {
  if (argv.empty() || !connect(now_ms))
    return {};
  std::vector<const char*> args;
  std::vector<std::size_t> lengths;
  args.reserve(argv.size());
  lengths.reserve(argv.size());
  for (const auto& a : argv) {
    args.push_back(a.data());
    lengths.push_back(a.size());
  }
  auto* reply = static_cast<redisReply*>(
    redisCommandArgv(impl_->context, static_cast<int>(args.size()),
                     args.data(), lengths.data()));
  if (reply == nullptr) {
    // A timeout or a broken connection leaves the context unusable.
    drop(std::string{"connection lost: "} + impl_->context->errstr, now_ms);
    return {};
  }
  auto result = flatten(reply);
  freeReplyObject(reply);
  return result;
}

} // namespace transitd
