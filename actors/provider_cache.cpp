#include "transitd/actors/provider_cache.hpp"

#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <utility>

#include <caf/actor_system.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/make_message.hpp>
#include <caf/message.hpp>
#include <caf/response_promise.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include "transitd/actors/rate_limiter.hpp"
#include "transitd/actors/tool_support.hpp"
#include "transitd/messages/time.hpp"
#include "transitd/util/ids.hpp"

namespace transitd {

namespace {

template <class T>
std::vector<char> serialise(T& value) {
  std::vector<char> buf;
  caf::binary_serializer sink{static_cast<caf::execution_unit*>(nullptr),
                              buf};
  static_cast<void>(sink(value));
  return buf;
}

template <class Query>
std::string key_without_context(Query query) {
  query.context = call_context{};
  auto buf = serialise(query);
  return std::string{buf.begin(), buf.end()};
}

bool covers(const nearby_stops_query&, const nearby_stops_query&) {
  return true;
}
bool covers(const geocode_query&, const geocode_query&) {
  return true;
}
nearby_stops_query widen(nearby_stops_query query, int64_t) {
  return query;
}
geocode_query widen(geocode_query query, int64_t) {
  return query;
}

/// One kind of cached data: its store, flights in progress and counters.
template <class Query, class Result>
struct cached_kind {
  struct waiter {
    caf::typed_response_promise<Result> rp;
    std::string correlation_id;
    /// What this caller asked (an answer from another replica must cover
    /// it; the flight's own answer does, being widened).
    Query query;
  };
  struct flight {
    uint64_t id = 0;
    /// The query sent upstream (widened), for coverage checks.
    Query query;
    std::string upstream_correlation_id;
    std::vector<waiter> waiters;
    /// The fleet's lock on this query, when this replica holds it.
    std::string lock_token;
    /// Until when to wait for another replica's fetch (actor clock).
    int64_t wait_until_ms = 0;
  };

  std::string label;
  int64_t ttl_ms = 0;
  /// The query an entry answers, and the answer inside a message: every
  /// hit replies with that message, shared, never a copy of the answer
  /// (a busy stop's departures are hundreds of strings).
  lru_cache<std::pair<Query, caf::message>> store;
  std::unordered_map<std::string, flight> flights;
  uint64_t next_flight = 0;
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t coalesced = 0;
  // The second level (Redis), when the cache has one.
  redis_actor redis;
  shared_state_options shared;
  std::string cache_name;
  int64_t shared_hits = 0;
  int64_t shared_waits = 0;
  int64_t shared_fetches = 0;
  int64_t shared_unreachable = 0;

  bool has_shared() const {
    return redis && ttl_ms > 0;
  }
  std::string shared_key(const std::string& key) const {
    return shared_cache_key(shared.prefix, cache_name, label, key);
  }

  void report(counters& c, const std::string& prefix) const {
    auto p = prefix + "." + label;
    c.add(p + ".hits", hits);
    c.add(p + ".misses", misses);
    c.add(p + ".coalesced", coalesced);
    c.add(p + ".entries", static_cast<int64_t>(store.size()));
    c.add(p + ".bytes", static_cast<int64_t>(store.bytes()));
    c.add(p + ".evictions", store.evictions());
    c.add(p + ".in_flight", static_cast<int64_t>(flights.size()));
    if (redis) {
      c.add(p + ".shared_hits", shared_hits);
      c.add(p + ".shared_waits", shared_waits);
      c.add(p + ".shared_fetches", shared_fetches);
      c.add(p + ".shared_unreachable", shared_unreachable);
    }
  }

  /// Drops the waiters of `correlation_id`; a flight left without waiters
  /// is abandoned and its upstream call cancelled through `cancel`.
  template <class Cancel>
  void cancel(const std::string& correlation_id, Cancel cancel_upstream) {
    for (auto it = flights.begin(); it != flights.end();) {
      auto& ws = it->second.waiters;
      auto gone = std::remove_if(ws.begin(), ws.end(), [&](waiter& w) {
        if (w.correlation_id != correlation_id)
          return false;
        w.rp.deliver(make_error(ec::cancelled, "the call was cancelled"));
        return true;
      });
      bool touched = gone != ws.end();
      ws.erase(gone, ws.end());
      if (touched && ws.empty()) {
        cancel_upstream(it->second.upstream_correlation_id);
        it = flights.erase(it);
      } else {
        ++it;
      }
    }
  }
};

template <class Query, class Result>
using flight_of = typename cached_kind<Query, Result>::flight;

/// The flight `id` under `key`, or nullptr when it ended meanwhile.
template <class Query, class Result>
flight_of<Query, Result>* find_flight(cached_kind<Query, Result>& kind,
                                      const std::string& key, uint64_t id) {
  auto it = kind.flights.find(key);
  if (it == kind.flights.end() || it->second.id != id)
    return nullptr;
  return &it->second;
}

/// Answers every waiter of the flight and ends it; a value is stored.
template <class Self, class Query, class Result, class Answer>
void land(Self* self, cached_kind<Query, Result>& kind, const std::string& key,
          uint64_t id, Answer answer) {
  auto* f = find_flight(kind, key, id);
  if (f == nullptr)
    return;
  if (!f->lock_token.empty()) {
    caf::anon_send(kind.redis, unlock_command(kind.shared_key(key) + ":lock",
                                              f->lock_token));
    f->lock_token.clear();
  }
  for (auto& w : f->waiters)
    w.rp.deliver(answer);
  kind.flights.erase(key);
  static_cast<void>(self);
}

/// Fetches the flight's query upstream; the answer is stored here and,
/// with a second level, in Redis for the other replicas.
template <class Self, class Upstream, class Query, class Result>
void fetch(Self* self, const Upstream& upstream,
           cached_kind<Query, Result>& kind, const std::string& key,
           uint64_t id) {
  auto* f = find_flight(kind, key, id);
  if (f == nullptr)
    return;
  auto upstream_query = f->query;
  auto timeout = std::chrono::milliseconds{
    remaining_ms(upstream_query.context, 10'000) + 500};
  auto* kind_ptr = &kind;
  self->request(upstream, timeout, upstream_query)
    .then(
      [self, kind_ptr, key, id, upstream_query](Result& result) {
        auto& k = *kind_ptr;
        if (k.ttl_ms > 0) {
          // The entry outlives the call: not its context.
          auto kept = upstream_query;
          kept.context = call_context{};
          std::pair<Query, Result> entry{std::move(kept), result};
          auto blob = serialise(entry);
          if (k.has_shared())
            caf::anon_send(k.redis,
                           cache_put_command(k.shared_key(key),
                                             std::string{blob.begin(),
                                                         blob.end()},
                                             k.ttl_ms));
          k.store.put(key,
                      {std::move(entry.first),
                       caf::make_message(std::move(entry.second))},
                      blob.size() + key.size(), clock_ms(self) + k.ttl_ms);
        }
        land(self, k, key, id, result);
      },
      [self, kind_ptr, key, id](caf::error& err) {
        land(self, *kind_ptr, key, id, err);
      });
}

/// Second level: the answer another replica stored, or the lock to fetch
/// it, or a wait while another replica fetches. Redis unreachable: fetch.
template <class Self, class Upstream, class Query, class Result>
void look_shared(Self* self, const Upstream& upstream,
                 cached_kind<Query, Result>& kind, const std::string& key,
                 uint64_t id) {
  auto* kind_ptr = &kind;
  auto rkey = kind.shared_key(key);
  auto timeout = std::chrono::milliseconds{kind.shared.timeout_ms};
  auto unreachable = [self, upstream, kind_ptr, key, id]() {
    ++kind_ptr->shared_unreachable;
    fetch(self, upstream, *kind_ptr, key, id);
  };
  auto failed = [unreachable](caf::error&) { unreachable(); };
  self->request(kind.redis, timeout, cache_get_command(rkey, rkey + ":lock"))
    .then(
      [self, upstream, kind_ptr, key, id, rkey, timeout,
       unreachable, failed](redis_result& reply) {
        auto& k = *kind_ptr;
        auto* f = find_flight(k, key, id);
        if (f == nullptr)
          return;
        auto found = parse_cache_get(reply);
        if (!found) {
          unreachable();
          return;
        }
        if (found->found) {
          std::pair<Query, Result> entry;
          caf::binary_deserializer source{
            static_cast<caf::execution_unit*>(nullptr), found->value.data(),
            found->value.size()};
          auto covered = [&entry](const auto& w) {
            return covers(entry.first, w.query);
          };
          if (!source(entry)
              && std::all_of(f->waiters.begin(), f->waiters.end(), covered)) {
            ++k.shared_hits;
            auto result = entry.second;
            k.store.put(key,
                        {std::move(entry.first),
                         caf::make_message(std::move(entry.second))},
                        found->value.size() + key.size(),
                        clock_ms(self) + std::max<int64_t>(1, found->ttl_ms));
            land(self, k, key, id, std::move(result));
            return;
          }
          // Another version's entry, or an older window: fetch anew.
        } else if (found->locked && clock_ms(self) < f->wait_until_ms) {
          ++k.shared_waits;
          self->delayed_send(self, std::chrono::milliseconds{k.shared.poll_ms},
                             cache_poll{k.label, key, id});
          return;
        }
        // Nobody fetching (or the wait is over): take the lock and fetch.
        auto token = make_uuid_v4();
        self
          ->request(k.redis, timeout,
                    lock_command(rkey + ":lock", token, k.shared.lock_ms))
          .then(
            [self, upstream, kind_ptr, key, id, token](redis_result& r) {
              auto& k = *kind_ptr;
              auto* f = find_flight(k, key, id);
              if (f == nullptr)
                return;
              if (lock_taken(r) || !r.reachable
                  || clock_ms(self) >= f->wait_until_ms) {
                if (lock_taken(r))
                  f->lock_token = token;
                ++k.shared_fetches;
                fetch(self, upstream, k, key, id);
                return;
              }
              // Another replica took it first: wait for its answer.
              ++k.shared_waits;
              self->delayed_send(self,
                                 std::chrono::milliseconds{k.shared.poll_ms},
                                 cache_poll{k.label, key, id});
            },
            failed);
      },
      failed);
}

/// Serves `query` from the store, by joining a flight, or by a new flight.
template <class Self, class Upstream, class Query, class Result>
caf::result<Result> serve(Self* self, const Upstream& upstream,
                          cached_kind<Query, Result>& kind, Query query) {
  auto key = cache_key(query);
  auto now = clock_ms(self);
  if (kind.ttl_ms > 0)
    if (const auto* hit = kind.store.get(key, now);
        hit != nullptr && covers(hit->first, query)) {
      ++kind.hits;
      auto shared = self->make_response_promise();
      shared.deliver(hit->second);
      return shared;
    }
  auto rp = self->template make_response_promise<Result>();
  const auto& cid = query.context.correlation_id;
  auto timeout = std::chrono::milliseconds{
    remaining_ms(query.context, 10'000) + 500};
  if (auto it = kind.flights.find(key); it != kind.flights.end()) {
    if (covers(it->second.query, query)) {
      ++kind.coalesced;
      it->second.waiters.push_back({rp, cid, query});
      return rp;
    }
    // A flight for an older window: this query goes alone, unshared.
    ++kind.misses;
    self->request(upstream, timeout, std::move(query))
      .then([rp](Result& result) mutable { rp.deliver(std::move(result)); },
            [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
    return rp;
  }
  ++kind.misses;
  auto upstream_query = widen(query, kind.ttl_ms);
  // The shared call gets its own id, so that cancelling one waiter never
  // aborts it for the others; the prefix keeps the logs traceable.
  upstream_query.context.correlation_id = cid + ":shared";
  auto id = ++kind.next_flight;
  auto& f = kind.flights[key];
  f.id = id;
  f.query = upstream_query;
  f.upstream_correlation_id = upstream_query.context.correlation_id;
  f.waiters.push_back({rp, cid, query});
  if (kind.has_shared()) {
    f.wait_until_ms = clock_ms(self) + kind.shared.lock_ms;
    look_shared(self, upstream, kind, key, id);
  } else {
    fetch(self, upstream, kind, key, id);
  }
  return rp;
}

/// What a cache does with the shared call its last waiter abandoned: tell
/// the gates behind it.
auto cancel_upstream(const std::vector<cancel_listener_actor>& listeners) {
  return [&listeners](const std::string& correlation_id) {
    for (const auto& listener : listeners)
      caf::anon_send(listener, cancel_call{correlation_id});
  };
}

/// Gives a kind the cache's second level, if it has one.
template <class Query, class Result>
void share(cached_kind<Query, Result>& kind,
           const provider_cache_options& options) {
  kind.redis = options.redis;
  kind.shared = options.shared;
  kind.cache_name = options.name;
}

struct timetable_cache_state {
  static inline const char* name = "timetable_cache";
  timetable_actor upstream;
  provider_cache_options options;
  cached_kind<stop_departures_query, stop_departures> departures;
  cached_kind<nearby_stops_query, nearby_stops> stops;
};

timetable_cache_actor::behavior_type timetable_cache(
  timetable_cache_actor::stateful_pointer<timetable_cache_state> self,
  timetable_actor upstream, provider_cache_options options) {
  auto& st = self->state;
  st.upstream = std::move(upstream);
  st.departures.label = "departures";
  st.departures.ttl_ms = options.departures_ttl_ms;
  st.departures.store
    = lru_cache<std::pair<stop_departures_query, caf::message>>{
      options.limits};
  st.stops.label = "stops";
  st.stops.ttl_ms = options.stops_ttl_ms;
  st.stops.store = lru_cache<std::pair<nearby_stops_query, caf::message>>{
    options.limits};
  share(st.departures, options);
  share(st.stops, options);
  st.options = std::move(options);
  return {
    [self](stop_departures_query& query) {
      return serve(self, self->state.upstream, self->state.departures,
                   std::move(query));
    },
    [self](nearby_stops_query& query) {
      return serve(self, self->state.upstream, self->state.stops,
                   std::move(query));
    },
    [self](const cache_poll& poll) {
      auto& st = self->state;
      if (poll.kind == st.departures.label)
        look_shared(self, st.upstream, st.departures, poll.key, poll.flight);
      else if (poll.kind == st.stops.label)
        look_shared(self, st.upstream, st.stops, poll.key, poll.flight);
    },
    [self](const cancel_call& request) {
      auto forward = cancel_upstream(self->state.options.upstream_cancel);
      self->state.departures.cancel(request.correlation_id, forward);
      self->state.stops.cancel(request.correlation_id, forward);
    },
    [self](get_counters) {
      counters c;
      self->state.departures.report(c, self->state.options.name);
      self->state.stops.report(c, self->state.options.name);
      return c;
    },
  };
}

struct geocoding_cache_state {
  static inline const char* name = "geocoding_cache";
  geocoding_actor upstream;
  provider_cache_options options;
  cached_kind<geocode_query, geocode_candidates> answers;
};

geocoding_cache_actor::behavior_type geocoding_cache(
  geocoding_cache_actor::stateful_pointer<geocoding_cache_state> self,
  geocoding_actor upstream, provider_cache_options options) {
  auto& st = self->state;
  st.upstream = std::move(upstream);
  st.answers.label = "geocoding";
  st.answers.ttl_ms = options.geocoding_ttl_ms;
  st.answers.store = lru_cache<std::pair<geocode_query, caf::message>>{
    options.limits};
  share(st.answers, options);
  st.options = std::move(options);
  return {
    [self](geocode_query& query) {
      return serve(self, self->state.upstream, self->state.answers,
                   std::move(query));
    },
    [self](const cache_poll& poll) {
      auto& st = self->state;
      if (poll.kind == st.answers.label)
        look_shared(self, st.upstream, st.answers, poll.key, poll.flight);
    },
    [self](const cancel_call& request) {
      self->state.answers.cancel(
        request.correlation_id,
        cancel_upstream(self->state.options.upstream_cancel));
    },
    [self](get_counters) {
      counters c;
      self->state.answers.report(c, self->state.options.name);
      return c;
    },
  };
}

} // namespace

std::string cache_key(const stop_departures_query& query) {
  auto q = query;
  q.start_time = 0;
  return key_without_context(std::move(q));
}

std::string cache_key(const nearby_stops_query& query) {
  return key_without_context(query);
}

std::string cache_key(const geocode_query& query) {
  return key_without_context(query);
}

stop_departures_query widen(stop_departures_query query, int64_t ttl_ms) {
  auto extra = static_cast<int32_t>((std::max<int64_t>(0, ttl_ms) + 999) / 1000);
  query.time_range_seconds += extra;
  return query;
}

bool covers(const stop_departures_query& stored,
            const stop_departures_query& query) {
  return stored.start_time <= query.start_time
         && stored.start_time + stored.time_range_seconds
              >= query.start_time + query.time_range_seconds;
}

timetable_cache_actor spawn_timetable_cache(caf::actor_system& system,
                                            timetable_actor upstream,
                                            provider_cache_options options) {
  return system.spawn(timetable_cache, std::move(upstream),
                      std::move(options));
}

geocoding_cache_actor spawn_geocoding_cache(caf::actor_system& system,
                                            geocoding_actor upstream,
                                            provider_cache_options options) {
  return system.spawn(geocoding_cache, std::move(upstream),
                      std::move(options));
}

} // namespace transitd
