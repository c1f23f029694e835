#include "transitd/actors/rate_limiter.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <spdlog/spdlog.h>

#include <caf/local_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/send.hpp>
#include <caf/typed_response_promise.hpp>

#include "transitd/actors/shared_state.hpp"

namespace transitd {

token_bucket::token_bucket(double rate, double burst)
  : rate_(rate), burst_(std::max(1.0, burst)), tokens_(burst_) {
}

void token_bucket::drain(int64_t now_ms) {
  started_ = true;
  tokens_ = 0;
  last_ms_ = now_ms;
}

void token_bucket::refill(int64_t now_ms) {
  if (!started_) {
    started_ = true;
    last_ms_ = now_ms;
    return;
  }
  if (now_ms <= last_ms_)
    return;
  tokens_ = std::min(burst_, tokens_
                               + rate_ * static_cast<double>(now_ms - last_ms_)
                                   / 1000.0);
  last_ms_ = now_ms;
}

permit token_bucket::reserve(int64_t now_ms, int64_t max_wait_ms) {
  refill(now_ms);
  if (tokens_ >= 1) {
    tokens_ -= 1;
    return {};
  }
  if (rate_ <= 0)
    return {false, 60'000};
  auto wait = std::max<int64_t>(
    1, static_cast<int64_t>(std::ceil((1 - tokens_) * 1000.0 / rate_)));
  if (wait > max_wait_ms)
    return {false, wait};
  tokens_ -= 1; // owed: refills pay it back before the next taker
  permit p;
  p.wait_ms = wait;
  return p;
}

void token_bucket::resize(double rate, double burst, int64_t now_ms) {
  refill(now_ms);
  rate_ = rate;
  burst_ = std::max(1.0, burst);
  tokens_ = std::min(tokens_, burst_);
}

int64_t token_bucket::try_take(int64_t now_ms) {
  refill(now_ms);
  if (tokens_ >= 1) {
    tokens_ -= 1;
    return 0;
  }
  if (rate_ <= 0)
    return 60'000;
  auto wait = static_cast<int64_t>(std::ceil((1 - tokens_) * 1000.0 / rate_));
  return std::max<int64_t>(1, wait);
}

std::string share_key(const std::string& key, const std::string& principal) {
  return key + "@" + principal;
}

rate_limits::rate_limits(const std::vector<rate_limit>& limits) {
  for (const auto& limit : limits) {
    if (limit.rate <= 0)
      continue;
    if (limit.principal_share > 0)
      shares_[limit.key].limit = limit;
    auto& e = entries_[limit.key];
    e.has_bucket = true;
    e.bucket = token_bucket{limit.rate,
                            limit.burst > 0 ? limit.burst : limit.rate};
  }
}

void rate_limits::count_active(const std::string& key, share_group& group,
                               int64_t now_ms) {
  auto prefix = key + "@";
  std::size_t active = 0;
  for (const auto& [name, e] : entries_)
    if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0
        && e.used_ms > now_ms - share_window_ms)
      ++active;
  group.active = active;
  group.counted_ms = now_ms;
  group.counted = true;
}

std::size_t rate_limits::active_principals(const std::string& key,
                                           int64_t now_ms) {
  auto it = shares_.find(key);
  if (it == shares_.end())
    return 0;
  count_active(key, it->second, now_ms);
  return it->second.active;
}

void rate_limits::fit_share(share_group& group, entry& e, int64_t now_ms) {
  const auto& l = group.limit;
  auto part = std::min(l.principal_share,
                       1.0 / static_cast<double>(std::max<std::size_t>(
                         1, group.active)));
  auto burst = l.burst > 0 ? l.burst : l.rate;
  auto rate = l.rate * part;
  auto held = std::max(1.0, std::floor(burst * part));
  if (e.bucket.rate() == 0) // a new share starts full
    e.bucket = token_bucket{rate, held};
  else if (e.bucket.rate() != rate)
    e.bucket.resize(rate, held, now_ms);
}

rate_limits::entry* rate_limits::share_entry(const std::string& key,
                                            int64_t now_ms) {
  auto at = key.find('@');
  auto group = shares_.find(key.substr(0, at));
  if (group == shares_.end())
    return nullptr;
  if (share_count_ >= max_shares) {
    // Bounded: the share unused the longest goes (it starts full again if
    // its principal comes back, as a new one would).
    auto oldest = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->first.find('@') != std::string::npos
          && (oldest == entries_.end()
              || it->second.used_ms < oldest->second.used_ms))
        oldest = it;
    if (oldest != entries_.end()) {
      entries_.erase(oldest);
      --share_count_;
    }
  }
  auto& e = entries_[key];
  e.has_bucket = true;
  e.used_ms = now_ms - share_window_ms; // not active until it asks
  e.bucket = token_bucket{0, 1};
  ++share_count_;
  return &e;
}

permit rate_limits::acquire(const std::string& key, int64_t now_ms,
                            int64_t max_wait_ms) {
  auto it = entries_.find(key);
  entry* found = it != entries_.end() ? &it->second : nullptr;
  auto at = key.find('@');
  if (found == nullptr && at != std::string::npos)
    found = share_entry(key, now_ms);
  if (found == nullptr)
    return {};
  auto& e = *found;
  share_group* group = nullptr;
  if (at != std::string::npos) {
    auto g = shares_.find(key.substr(0, at));
    if (g != shares_.end()) {
      group = &g->second;
      // A principal (re)appearing counts at once; the ones that went quiet
      // leave at the next count, at most a second later.
      if (e.used_ms <= now_ms - share_window_ms)
        ++group->active;
      if (!group->counted || now_ms - group->counted_ms >= 1000) {
        e.used_ms = now_ms;
        count_active(g->first, *group, now_ms);
      }
      fit_share(*group, e, now_ms);
    }
  }
  e.used_ms = now_ms;
  if (e.hold_until_ms > now_ms) {
    ++e.refused;
    return {false, e.hold_until_ms - now_ms};
  }
  permit p;
  if (e.has_bucket) {
    p = e.bucket.reserve(now_ms, max_wait_ms);
    if (!p.granted) {
      ++e.refused;
      return p;
    }
  }
  ++e.granted;
  if (group != nullptr && !group->limit.shared) {
    // The active principals' shares add up to the whole: it is charged
    // here (as far as it holds tokens) and asks no second permit, so one
    // principal's flood never refuses another within its share.
    auto whole = entries_.find(key.substr(0, at));
    if (whole != entries_.end() && whole->second.has_bucket) {
      static_cast<void>(whole->second.bucket.try_take(now_ms));
      ++whole->second.granted;
    }
    p.settled = true;
  }
  return p;
}

void rate_limits::hold(const std::string& key, int64_t until_ms) {
  auto& e = entries_[key];
  e.hold_until_ms = std::max(e.hold_until_ms, until_ms);
}

void rate_limits::drain(const std::string& key, int64_t now_ms) {
  auto it = entries_.find(key);
  if (it != entries_.end() && it->second.has_bucket)
    it->second.bucket.drain(now_ms);
}

bool rate_limits::limited(const std::string& key) const {
  auto it = entries_.find(key);
  return it != entries_.end() && it->second.has_bucket;
}

void rate_limits::record(const std::string& key, bool granted) {
  auto& e = entries_[key];
  if (granted)
    ++e.granted;
  else
    ++e.refused;
}

std::vector<rate_limit> replica_share(const std::vector<rate_limit>& limits,
                                      int32_t replicas) {
  auto n = static_cast<double>(std::max(1, replicas));
  std::vector<rate_limit> out;
  for (auto limit : limits) {
    if (!limit.shared)
      continue;
    auto burst = limit.burst > 0 ? limit.burst : limit.rate;
    limit.rate = limit.rate >= n ? std::floor(limit.rate / n) : limit.rate / n;
    limit.burst = std::max(1.0, std::floor(burst / n));
    out.push_back(std::move(limit));
  }
  return out;
}

counters rate_limits::snapshot() const {
  counters result;
  // Principals' shares: the most refused by name, the rest summed.
  std::vector<std::pair<const std::string*, const entry*>> shares;
  for (const auto& [key, e] : entries_) {
    if (key.find('@') != std::string::npos) {
      shares.emplace_back(&key, &e);
      continue;
    }
    result.add(key + ".granted", e.granted);
    result.add(key + ".refused", e.refused);
  }
  std::sort(shares.begin(), shares.end(), [](const auto& a, const auto& b) {
    return a.second->refused != b.second->refused
             ? a.second->refused > b.second->refused
             : *a.first < *b.first;
  });
  std::unordered_map<std::string, std::pair<int64_t, int64_t>> others;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    const auto& key = *shares[i].first;
    const auto& e = *shares[i].second;
    if (i < top_principals) {
      result.add(key + ".granted", e.granted);
      result.add(key + ".refused", e.refused);
      continue;
    }
    auto& sum = others[key.substr(0, key.find('@')) + "@others"];
    sum.first += e.granted;
    sum.second += e.refused;
  }
  for (const auto& [key, sum] : others) {
    result.add(key + ".granted", sum.first);
    result.add(key + ".refused", sum.second);
  }
  return result;
}

int64_t clock_ms(caf::local_actor* self) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           self->clock().now().time_since_epoch())
    .count();
}

std::string tool_key(const std::string& tool) {
  return "tool:" + tool;
}

std::string upstream_key(const std::string& upstream) {
  return "upstream:" + upstream;
}

namespace {

/// Whether Redis decides `key`: a shared limit, or any upstream's key (its
/// 429 hold-offs concern every replica).
bool shared_key(const rate_limiter_state& st, const std::string& key) {
  // A principal's share ("...@principal") is each replica's own.
  return st.shared.redis && key.find('@') == std::string::npos
         && (st.shared_limits.count(key) > 0 || key.rfind("upstream:", 0) == 0);
}

} // namespace

rate_limiter_actor::behavior_type
rate_limiter(rate_limiter_actor::stateful_pointer<rate_limiter_state> self,
             std::vector<rate_limit> limits) {
  return shared_rate_limiter(self, std::move(limits), shared_quota{});
}

rate_limiter_actor::behavior_type shared_rate_limiter(
  rate_limiter_actor::stateful_pointer<rate_limiter_state> self,
  std::vector<rate_limit> limits, shared_quota shared) {
  auto& st = self->state;
  st.limits = rate_limits{limits};
  if (shared.redis) {
    for (const auto& limit : limits)
      if (limit.shared && limit.rate > 0)
        st.shared_limits.emplace(limit.key, limit);
    st.fallback = rate_limits{replica_share(limits, shared.replicas)};
  }
  st.shared = std::move(shared);
  return {
    [self](const acquire_permit& request) -> caf::result<permit> {
      auto& st = self->state;
      auto it = st.shared_limits.find(request.key);
      if (!shared_key(st, request.key))
        return st.limits.acquire(request.key, clock_ms(self),
                                 request.max_wait_ms);
      // An upstream without a rate still shares its 429 hold-offs.
      auto limit = it != st.shared_limits.end()
                     ? it->second
                     : rate_limit{request.key, 0, 0, true};
      auto rp = self->make_response_promise<permit>();
      // Unreachable or slow: this replica's share, decided here.
      auto local = [self, key = request.key, wait = request.max_wait_ms]() {
        auto& st = self->state;
        ++st.fallbacks[key];
        // Redis just left (or was never reached): this replica's share
        // starts empty, as the fleet may have spent this second already.
        auto was = st.on_redis.find(key);
        if (was == st.on_redis.end() || was->second) {
          st.fallback.drain(key, clock_ms(self));
          st.on_redis[key] = false;
        }
        auto p = st.fallback.acquire(key, clock_ms(self), wait);
        st.limits.record(key, p.granted);
        return p;
      };
      self
        ->request(st.shared.redis,
                  std::chrono::milliseconds{st.shared.timeout_ms},
                  bucket_command(st.shared.prefix, limit.key, limit.rate,
                                 limit.burst > 0 ? limit.burst : limit.rate,
                                 request.max_wait_ms))
        .then(
          [self, rp, local, key = request.key](redis_result& reply) mutable {
            auto p = parse_bucket_reply(reply);
            if (!p) {
              if (reply.reachable)
                spdlog::warn("shared quota: unexpected reply from Redis "
                             "({}); deciding locally",
                             reply.text);
              rp.deliver(local());
              return;
            }
            self->state.limits.record(key, p->granted);
            self->state.on_redis[key] = true;
            rp.deliver(*p);
          },
          [rp, local](caf::error&) mutable { rp.deliver(local()); });
      return rp;
    },
    [self](const hold_off& request) {
      auto& st = self->state;
      auto until = clock_ms(self) + request.duration_ms;
      st.limits.hold(request.key, until);
      if (shared_key(st, request.key)) {
        st.fallback.hold(request.key, until);
        // Every replica holds off too (best effort: no reply awaited).
        caf::anon_send(st.shared.redis, hold_command(st.shared.prefix,
                                                 request.key,
                                                 request.duration_ms));
      }
    },
    [self](get_counters) {
      auto& st = self->state;
      auto c = st.limits.snapshot();
      for (const auto& [key, n] : st.fallbacks)
        c.add(key + ".fallbacks", n);
      return c;
    },
  };
}

} // namespace transitd
