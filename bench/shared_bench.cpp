// The cost of sharing state through Redis, per call, against the local
// state, in one run (bench/replicas.sh starts the Redis):
//
//   transitd-shared-bench --redis redis://127.0.0.1:PORT [--calls N]
//
// Rows, each N sequential requests from one client actor (latency, so the
// round trip to Redis shows whole), then the same with 32 requests in
// flight (throughput):
//   permit, local        RATE_LIMITER, bucket in the actor
//   permit, shared       RATE_LIMITER, bucket in Redis (one EVAL)
//   cache hit, local     TIMETABLE_CACHE, answer in the actor's LRU
//   cache hit, shared    TIMETABLE_CACHE with an empty LRU, answer in Redis
//                        (another replica's): EVAL, deserialise, store
//   upstream, no cache   the stand-in upstream itself (reference)

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "transitd/actors/provider_cache.hpp"
#include "transitd/actors/rate_limiter.hpp"
#include "transitd/actors/shared_state.hpp"
#include "transitd/messages/caf_glue.hpp"

using namespace transitd;
using namespace std::chrono_literals;

namespace {

/// A TIMETABLE answering at once with a departures list of realistic size.
timetable_actor::behavior_type stand_in() {
  return {
    [](const stop_departures_query& q) {
      stop_departures d;
      d.stop_id = q.stop_id;
      d.timezone = "Europe/Helsinki";
      for (int i = 0; i < 20; ++i) {
        stop_time e;
        e.line = std::to_string(100 + i);
        e.headsign = "Destination " + std::to_string(i);
        e.scheduled_departure = 1700000000 + i * 60;
        e.realtime_departure = e.scheduled_departure + 30;
        d.stop_times.push_back(e);
      }
      d.fetched_ms = 1;
      return d;
    },
    [](const nearby_stops_query&) { return nearby_stops{}; },
  };
}

stop_departures_query query(int i) {
  stop_departures_query q;
  q.stop_id = "HSL:" + std::to_string(1000000 + i);
  q.start_time = 1700000000;
  q.time_range_seconds = 3600;
  q.context.correlation_id = "bench";
  return q;
}

struct row {
  const char* name;
  double sequential_us;
  double parallel_us;
};

/// Microseconds per call: `calls` one after another, then with `depth` in
/// flight. `send(i)` issues call i and returns when `self` has its answer
/// (sequential) or sends it (parallel, answers awaited in batches).
template <class Reply, class Request>
row measure(const char* name, caf::scoped_actor& self, int calls, int depth,
            Request make) {
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i)
    make(i, true);
  auto mid = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; i += depth) {
    int n = std::min(depth, calls - i);
    for (int k = 0; k < n; ++k)
      make(i + k, false);
    for (int k = 0; k < n; ++k)
      self->receive([](Reply&) {}, [](caf::error&) {});
  }
  auto end = std::chrono::steady_clock::now();
  auto us = [&](auto a, auto b) {
    return std::chrono::duration<double, std::micro>(b - a).count() / calls;
  };
  return {name, us(start, mid), us(mid, end)};
}

} // namespace

int main(int argc, char** argv) {
  std::string url;
  int calls = 5000;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--redis") == 0 && i + 1 < argc)
      url = argv[++i];
    else if (std::strcmp(argv[i], "--calls") == 0 && i + 1 < argc)
      calls = std::stoi(argv[++i]);
  }
  if (url.empty()) {
    std::fprintf(stderr, "usage: transitd-shared-bench --redis URL "
                         "[--calls N]\n");
    return 2;
  }
  auto endpoint = parse_redis_url(url);
  if (!endpoint) {
    std::fprintf(stderr, "%s\n", endpoint.error().message.c_str());
    return 2;
  }
  caf::actor_system_config cfg;
  add_message_types(cfg);
  cfg.set("scheduler.max-threads", 2);
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  shared_state_options shared;
  shared.url = url;
  shared.prefix = "bench:";
  const int depth = 32;
  std::vector<row> rows;

  // Permits: a rate no bench reaches, so every permit is granted.
  std::vector<rate_limit> limits{{"upstream:u", 1e9, 1e9, true}};
  auto local_limiter = sys.spawn(rate_limiter, limits);
  shared_quota quota;
  quota.redis = spawn_redis(sys, shared, *endpoint, "redis:quota");
  quota.prefix = shared.prefix;
  auto shared_limiter = sys.spawn(shared_rate_limiter, limits, quota);
  auto permits = [&](const rate_limiter_actor& limiter) {
    return [&, limiter](int, bool wait) {
      if (wait)
        self->request(limiter, 10s, acquire_permit{"upstream:u"})
          .receive([](permit&) {}, [](caf::error&) {});
      else
        self->send(limiter, acquire_permit{"upstream:u"});
    };
  };
  rows.push_back(measure<permit>("permit, local", self, calls, depth,
                         permits(local_limiter)));
  rows.push_back(measure<permit>("permit, shared (Redis)", self, calls, depth,
                         permits(shared_limiter)));

  // Cache hits.
  auto upstream = sys.spawn(stand_in);
  provider_cache_options local_options;
  local_options.name = "timetable";
  local_options.departures_ttl_ms = 3'600'000;
  auto local_cache = spawn_timetable_cache(sys, upstream, local_options);
  auto ask = [&](const auto& actor, int i, bool wait) {
    if (wait)
      self->request(actor, 10s, query(i))
        .receive([](stop_departures&) {}, [](caf::error&) {});
    else
      self->send(actor, query(i));
  };
  ask(local_cache, 0, true); // the one entry every hit reads
  rows.push_back(measure<stop_departures>("cache hit, local", self, calls, depth,
                         [&](int, bool wait) { ask(local_cache, 0, wait); }));
  // Fill Redis through one replica's cache, then read through fresh
  // caches (empty LRUs): every call is a hit on the second level.
  auto shared_options = local_options;
  shared_options.redis = spawn_redis(sys, shared, *endpoint, "redis:cache");
  shared_options.shared = shared;
  auto filler = spawn_timetable_cache(sys, upstream, shared_options);
  for (int i = 0; i < calls; ++i)
    ask(filler, i, true);
  auto reader = spawn_timetable_cache(sys, upstream, shared_options);
  auto second = spawn_timetable_cache(sys, upstream, shared_options);
  rows.push_back(measure<stop_departures>("cache hit, shared (Redis)", self, calls, depth,
                         [&](int i, bool wait) {
                           ask(wait ? reader : second, i, wait);
                         }));
  rows.push_back(measure<stop_departures>("upstream stand-in, no cache", self, calls, depth,
                         [&](int i, bool wait) { ask(upstream, i, wait); }));

  std::printf("| path | µs per call, one at a time | µs per call, %d in "
              "flight | vs local (one at a time) |\n|---|--:|--:|--:|\n",
              depth);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    double base = i < 2 ? rows[0].sequential_us : rows[2].sequential_us;
    std::printf("| %s | %.1f | %.1f | %.1fx |\n", r.name, r.sequential_us,
                r.parallel_us, r.sequential_us / base);
  }
  std::printf("\n%d calls per row; Redis at %s\n", calls, url.c_str());
  self->send_exit(local_limiter, caf::exit_reason::user_shutdown);
  self->send_exit(shared_limiter, caf::exit_reason::user_shutdown);
  self->send_exit(quota.redis, caf::exit_reason::user_shutdown);
  self->send_exit(shared_options.redis, caf::exit_reason::user_shutdown);
  for (const auto& c : {local_cache, filler, reader, second})
    self->send_exit(c, caf::exit_reason::user_shutdown);
  self->send_exit(upstream, caf::exit_reason::user_shutdown);
  return 0;
}
