#pragma once
// transit_coverage: what this daemon serves, provider by provider; the
// tool request and reply, and a feed's own description.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "transitd/messages/common.hpp"

namespace transitd {

/// A realtime source of a feed and how it is doing.
struct realtime_health {
  /// The source as configured (a URL without its query).
  std::string source;
  /// Its last message's time, epoch seconds (0: none yet), and age.
  int64_t timestamp = 0;
  int64_t age_seconds = 0;
  /// Applied to answers: fresh within the staleness limit.
  bool healthy = false;
  std::string last_error;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, realtime_health& x) {
  return f(x.source, x.timestamp, x.age_seconds, x.healthy, x.last_error);
}

/// One provider and what it serves.
struct provider_coverage {
  std::string name;
  /// "gtfs", "digitransit" or "tfl".
  std::string kind;
  /// "live", "demo", "loading" or "failed" (with `problem`).
  std::string state = "live";
  std::string problem;
  /// Stop ids of this provider start with it ("nyc:"); empty: none.
  std::string id_prefix;
  std::optional<region> area;
  std::vector<std::string> agencies;
  std::string timezone;
  /// The languages it answers in, its own first (D24).
  std::vector<std::string> languages;
  /// Service days (YYYY-MM-DD); empty when unknown.
  std::string first_day;
  std::string last_day;
  /// When the data was loaded, epoch seconds (0: unknown).
  int64_t loaded_at = 0;
  int64_t stops = 0;
  int64_t routes = 0;
  std::vector<realtime_health> realtime;
  /// The tools it answers.
  std::vector<std::string> tools;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, provider_coverage& x) {
  return f(x.name, x.kind, x.state, x.problem, x.id_prefix, x.area,
           x.agencies, x.timezone, x.languages, x.first_day, x.last_day, x.loaded_at,
           x.stops, x.routes, x.realtime, x.tools);
}

/// Provider query: a feed describes itself at the engine's `time`.
struct coverage_query {
  call_context context;
  int64_t time = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, coverage_query& x) {
  return f(x.context, x.time);
}

struct transit_coverage_request {
  call_context context;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, transit_coverage_request& x) {
  return f(x.context);
}

struct transit_coverage_reply {
  std::vector<provider_coverage> providers;
  /// ISO 8601 (UTC): the engine's now.
  std::string as_of;
  std::string correlation_id;
  std::vector<warning> warnings;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, transit_coverage_reply& x) {
  return f(x.providers, x.as_of, x.correlation_id, x.warnings);
}

} // namespace transitd
