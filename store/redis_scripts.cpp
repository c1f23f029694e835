#include "transitd/store/redis_scripts.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include <openssl/sha.h>

namespace transitd {

namespace {

std::string number(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", value);
  return buf;
}

// The bucket: tokens and the time of the last refill in a hash, on Redis's
// clock (TIME), so that replicas' clocks never matter. A hold-off is a key
// holding the instant it ends. Returns {granted, wait_ms}.
constexpr const char* bucket_script = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local hold = tonumber(redis.call('GET', KEYS[2]) or '0')
if hold > now then return {0, hold - now} end
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
if rate <= 0 then return {1, 0} end
local s = redis.call('HMGET', KEYS[1], 'tokens', 'ms')
local tokens = tonumber(s[1])
local last = tonumber(s[2])
if tokens == nil or last == nil then
  -- A bucket made afresh (a new or restarted Redis) starts empty and
  -- quiet for a second: the replicas' own shares may have spent this one.
  tokens = 0
  last = now + 1000
end
if now > last then
  tokens = math.min(burst, tokens + (now - last) * rate / 1000)
  last = now
end
local max_wait = tonumber(ARGV[3] or '0') or 0
local granted = 0
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
  granted = 1
else
  wait = math.max(1, math.ceil((1 - tokens) * 1000 / rate))
  if last > now then wait = wait + (last - now) end
  if wait <= max_wait then
    -- Reserved: the token is owed, later takers queue behind it.
    tokens = tokens - 1
    granted = 1
  end
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens), 'ms', last)
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 3600000)
return {granted, wait}
)lua";

constexpr const char* hold_script = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ms = tonumber(ARGV[1])
local until_ms = now + ms
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if until_ms > current then
  redis.call('SET', KEYS[1], until_ms, 'PX', ms)
end
return 1
)lua";

constexpr const char* get_script = R"lua(
local v = redis.call('GET', KEYS[1])
if v then return {1, v, redis.call('PTTL', KEYS[1])} end
return {0, '', redis.call('EXISTS', KEYS[2])}
)lua";

constexpr const char* unlock_script = R"lua(
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
)lua";

bool parse_int(const std::string& text, int64_t& out) {
  if (text.empty())
    return false;
  char* end = nullptr;
  auto value = std::strtoll(text.c_str(), &end, 10);
  if (end != text.c_str() + text.size())
    return false;
  out = value;
  return true;
}

} // namespace

redis_command bucket_command(const std::string& prefix, const std::string& key,
                             double rate, double burst, int64_t max_wait_ms) {
  return {{"EVAL", bucket_script, "2", prefix + "bucket:" + key,
           prefix + "hold:" + key, number(rate),
           number(std::max(1.0, burst)),
           std::to_string(std::max<int64_t>(0, max_wait_ms))}};
}

std::optional<permit> parse_bucket_reply(const redis_result& reply) {
  int64_t granted = 0;
  int64_t wait = 0;
  if (!reply.reachable || reply.kind != redis_result::array
      || reply.items.size() != 2 || !parse_int(reply.items[0], granted)
      || !parse_int(reply.items[1], wait))
    return std::nullopt;
  if (granted == 1) {
    permit p;
    p.wait_ms = std::max<int64_t>(0, wait); // a reserved token's wait
    return p;
  }
  return permit{false, std::max<int64_t>(1, wait)};
}

redis_command hold_command(const std::string& prefix, const std::string& key,
                           int64_t duration_ms) {
  return {{"EVAL", hold_script, "1", prefix + "hold:" + key,
           std::to_string(std::max<int64_t>(1, duration_ms))}};
}

std::string shared_cache_key(const std::string& prefix,
                             const std::string& cache,
                             const std::string& kind,
                             const std::string& query_key) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(query_key.data()),
         query_key.size(), digest);
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = prefix + "cache:" + cache + ":" + kind + ":";
  for (auto byte : digest) {
    out += hex[byte >> 4];
    out += hex[byte & 0xf];
  }
  return out;
}

redis_command cache_get_command(const std::string& key,
                                const std::string& lock_key) {
  return {{"EVAL", get_script, "2", key, lock_key}};
}

std::optional<shared_lookup> parse_cache_get(const redis_result& reply) {
  int64_t found = 0;
  int64_t third = 0;
  if (!reply.reachable || reply.kind != redis_result::array
      || reply.items.size() != 3 || !parse_int(reply.items[0], found)
      || !parse_int(reply.items[2], third))
    return std::nullopt;
  shared_lookup out;
  if (found == 1) {
    out.found = true;
    out.value = reply.items[1];
    out.ttl_ms = third;
  } else {
    out.locked = third == 1;
  }
  return out;
}

redis_command cache_put_command(const std::string& key, std::string value,
                                int64_t ttl_ms) {
  return {{"SET", key, std::move(value), "PX",
           std::to_string(std::max<int64_t>(1, ttl_ms))}};
}

redis_command lock_command(const std::string& key, const std::string& token,
                           int64_t ttl_ms) {
  return {{"SET", key, token, "NX", "PX",
           std::to_string(std::max<int64_t>(1, ttl_ms))}};
}

bool lock_taken(const redis_result& reply) {
  return reply.reachable && reply.kind == redis_result::string
         && reply.text == "OK";
}

redis_command unlock_command(const std::string& key, const std::string& token) {
  return {{"EVAL", unlock_script, "1", key, token}};
}

} // namespace transitd
