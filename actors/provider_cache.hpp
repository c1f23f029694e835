#pragma once
// TIMETABLE_CACHE and GEOCODING_CACHE: caches in front of the providers
// (interfaces.hpp). Each kind of data has its TTL; entries are bounded by
// count and bytes (LRU); identical queries in flight share one upstream call
// (single-flight). A cached answer keeps the provider's fetched_ms, so a
// reply built on it reports the age of the upstream data, not of the hit.

#include <cstdint>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "transitd/actors/shared_state.hpp"
#include "transitd/messages/interfaces.hpp"
#include "transitd/util/lru_cache.hpp"

namespace transitd {

struct provider_cache_options {
  /// Names the cache in counters ("timetable", "geocoding").
  std::string name;
  /// TTL of departures (timetable), of stop searches (timetable) and of
  /// geocoding answers; 0 turns storing off (single-flight still applies).
  int64_t departures_ttl_ms = 15'000;
  int64_t stops_ttl_ms = 3'600'000;
  int64_t geocoding_ttl_ms = 3'600'000;
  /// Bounds of each kind's store.
  cache_limits limits;
  /// Where to send the cancellation of a shared upstream call whose last
  /// waiter went away (the gate behind the provider).
  std::vector<cancel_listener_actor> upstream_cancel;
  /// The second level shared by replicas (null: none). A local miss asks
  /// Redis; a miss there takes a short lock, so that one replica fetches
  /// while the others wait for its answer (single-flight across the
  /// fleet). Redis unreachable: the cache is local only (fail-open).
  redis_actor redis;
  shared_state_options shared;
};

/// TIMETABLE_CACHE in front of `upstream`.
timetable_cache_actor spawn_timetable_cache(caf::actor_system& system,
                                            timetable_actor upstream,
                                            provider_cache_options options);

/// GEOCODING_CACHE in front of `upstream`.
geocoding_cache_actor spawn_geocoding_cache(caf::actor_system& system,
                                            geocoding_actor upstream,
                                            provider_cache_options options);

/// The cache key of a query: its serialised fields without the call context
/// (and, for departures, without the start time; see covers()).
std::string cache_key(const stop_departures_query& query);
std::string cache_key(const nearby_stops_query& query);
std::string cache_key(const geocode_query& query);

/// What the cache asks upstream for a departures query: the window widened
/// by the TTL, so that the answer still covers a caller's whole window for
/// as long as it is served.
stop_departures_query widen(stop_departures_query query, int64_t ttl_ms);

/// Whether an answer to `stored` holds everything `query` asks for.
bool covers(const stop_departures_query& stored,
            const stop_departures_query& query);

} // namespace transitd
