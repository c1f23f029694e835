#include "actors/provider_cache.hpp"

#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <utility>

#include <caf/actor_system.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include "actors/rate_limiter.hpp"
#include "actors/tool_support.hpp"
#include "messages/time.hpp"

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
  };
  struct flight {
    uint64_t id = 0;
    /// The query sent upstream (widened), for coverage checks.
    Query query;
    std::string upstream_correlation_id;
    std::vector<waiter> waiters;
  };

  std::string label;
  int64_t ttl_ms = 0;
  lru_cache<std::pair<Query, Result>> store;
  std::unordered_map<std::string, flight> flights;
  uint64_t next_flight = 0;
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t coalesced = 0;

  void report(counters& c, const std::string& prefix) const {
    auto p = prefix + "." + label;
    c.add(p + ".hits", hits);
    c.add(p + ".misses", misses);
    c.add(p + ".coalesced", coalesced);
    c.add(p + ".entries", static_cast<int64_t>(store.size()));
    c.add(p + ".bytes", static_cast<int64_t>(store.bytes()));
    c.add(p + ".evictions", store.evictions());
    c.add(p + ".in_flight", static_cast<int64_t>(flights.size()));
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
      return hit->second;
    }
  auto rp = self->template make_response_promise<Result>();
  const auto& cid = query.context.correlation_id;
  auto timeout = std::chrono::milliseconds{
    remaining_ms(query.context, 10'000) + 500};
  if (auto it = kind.flights.find(key); it != kind.flights.end()) {
    if (covers(it->second.query, query)) {
      ++kind.coalesced;
      it->second.waiters.push_back({rp, cid});
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
  f.waiters.push_back({rp, cid});
  auto* kind_ptr = &kind;
  self->request(upstream, timeout, upstream_query)
    .then(
      [self, kind_ptr, key, id, upstream_query](Result& result) {
        auto& k = *kind_ptr;
        if (k.ttl_ms > 0) {
          auto bytes = serialise(result).size() + key.size();
          // The entry outlives the call: not its progress stream.
          auto kept = upstream_query;
          kept.context.progress.reset();
          k.store.put(key, {std::move(kept), result}, bytes,
                      clock_ms(self) + k.ttl_ms);
        }
        auto it = k.flights.find(key);
        if (it == k.flights.end() || it->second.id != id)
          return;
        for (auto& w : it->second.waiters)
          w.rp.deliver(result);
        k.flights.erase(it);
      },
      [kind_ptr, key, id](caf::error& err) {
        auto& k = *kind_ptr;
        auto it = k.flights.find(key);
        if (it == k.flights.end() || it->second.id != id)
          return;
        for (auto& w : it->second.waiters)
          w.rp.deliver(err);
        k.flights.erase(it);
      });
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
  st.departures.store = lru_cache<std::pair<stop_departures_query,
                                            stop_departures>>{options.limits};
  st.stops.label = "stops";
  st.stops.ttl_ms = options.stops_ttl_ms;
  st.stops.store = lru_cache<std::pair<nearby_stops_query, nearby_stops>>{
    options.limits};
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
  st.answers.store = lru_cache<std::pair<geocode_query, geocode_candidates>>{
    options.limits};
  st.options = std::move(options);
  return {
    [self](geocode_query& query) {
      return serve(self, self->state.upstream, self->state.answers,
                   std::move(query));
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
