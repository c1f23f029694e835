#include "transitd/transport/ops.hpp"

#include <caf/scoped_actor.hpp>

#include "transitd/util/ids.hpp"

namespace json = boost::json;

namespace transitd {

ops_endpoints::ops_endpoints(caf::actor_system& system,
                             transitd::engine engine,
                             const mcp::endpoint& endpoint,
                             ops_options options)
  : system_(system),
    engine_(std::move(engine)),
    endpoint_(endpoint),
    options_(std::move(options)) {
}

std::vector<std::pair<std::string, int64_t>>
ops_endpoints::collect_counters() const {
  std::vector<std::pair<std::string, int64_t>> out;
  caf::scoped_actor self{system_};
  for (const auto& source : engine_.counter_sources()) {
    if (!source)
      continue;
    self->request(source, options_.timeout, get_counters{})
      .receive(
        [&](counters& c) {
          for (auto& value : c.values)
            out.push_back(std::move(value));
        },
        [](caf::error&) {});
  }
  return out;
}

mcp::http_reply
ops_endpoints::metrics(const mcp::http_request& request) const {
  if (options_.metrics_auth) {
    mcp::endpoint::credentials who;
    if (auto refused = endpoint_.authenticate(request, who))
      return *refused;
  }
  std::string out;
  out.reserve(16 * 1024);
  append_gauge(out, "transitd_sessions_open", "Open MCP sessions.",
               static_cast<double>(endpoint_.session_count()));
  endpoint_.metrics().append_prometheus(out);
  out += "# HELP transitd_http_auth_refusals_total Requests refused 401 (no "
         "or a bad bearer token) or 403 (Host, Origin or scope).\n"
         "# TYPE transitd_http_auth_refusals_total counter\n";
  for (int status : {401, 403})
    out += "transitd_http_auth_refusals_total{status=\"" + std::to_string(status)
           + "\"} " + std::to_string(endpoint_.refused(status)) + "\n";
  if (options_.connections)
    append_connection_metrics(out, options_.connections());
  append_engine_metrics(out, collect_counters());
  mcp::http_reply reply;
  reply.content_type = "text/plain; version=0.0.4; charset=utf-8";
  reply.body = std::move(out);
  return reply;
}

mcp::http_reply ops_endpoints::ready(const mcp::http_request&) const {
  json::object checks;
  bool ready = true;
  // Station data: loaded at start, reported by STATION_TOILETS.
  int64_t loaded = -1;
  int64_t stations = 0;
  for (const auto& [name, value] : collect_counters()) {
    if (name == "station_data.loaded")
      loaded = value;
    else if (name == "station_data.stations")
      stations = value;
  }
  if (loaded == 1) {
    checks["stationData"] = "ok: " + std::to_string(stations) + " stations";
  } else {
    ready = false;
    checks["stationData"] = loaded == 0 ? "not loaded" : "no answer";
  }
  // Store: a real read through VARIABLE_STORE (a principal no caller can
  // have: callers are "local", "user:..." or "oauth:...").
  {
    caf::scoped_actor self{system_};
    get_variables_request probe;
    probe.context.correlation_id = make_uuid_v4();
    probe.context.principal = "readyz";
    std::string store = "no answer";
    self->request(engine_.variable_store, options_.timeout, std::move(probe))
      .receive([&](get_variables_reply&) { store = "ok"; },
               [&](caf::error& err) {
                 store = "error: " + to_failure(err).message;
               });
    if (store != "ok")
      ready = false;
    checks["store"] = store;
  }
  // Redis (--redis): a PING through each connection. Down is not "not
  // ready": the replica answers on its share of the quota and its own
  // caches, and says so here and in transitd_redis_up.
  if (!engine_.redis.empty()) {
    caf::scoped_actor self{system_};
    std::string how = "ok";
    for (const auto& link : engine_.redis)
      self->request(link, options_.timeout, redis_command{{"PING"}})
        .receive(
          [&](redis_result& r) {
            if (!r.reachable)
              how = "unreachable: answering on this replica's share of "
                    "each shared quota and on its local caches until it "
                    "is back";
          },
          [&](caf::error& err) {
            how = "no answer: " + to_failure(err).message;
          });
    checks["redis"] = how;
  }
  // Feeds: ready once each has a timetable; a failed reload keeps the
  // last one and says so.
  if (!engine_.feed_slots.empty()) {
    json::object feeds;
    for (const auto& slot : engine_.feed_slots) {
      auto status = slot->status();
      std::string how;
      if (status.loaded) {
        const auto& r = status.report;
        how = "ok: " + std::to_string(r.stops) + " stops, "
              + std::to_string(r.trips) + " trips, service " + r.first_day
              + ".." + r.last_day;
        if (!status.error.empty())
          how += "; the last reload failed: " + status.error;
      } else {
        ready = false;
        how = status.error.empty() ? "loading" : "failed: " + status.error;
      }
      feeds[slot->name()] = how;
    }
    checks["feeds"] = std::move(feeds);
  }
  json::object providers;
  for (const auto& [name, how] : options_.providers)
    providers[name] = how;
  checks["providers"] = std::move(providers);
  json::object body;
  body["status"] = ready ? "ready" : "not ready";
  body["checks"] = std::move(checks);
  mcp::http_reply reply;
  reply.status = ready ? 200 : 503;
  reply.content_type = "application/json";
  reply.body = json::serialize(body);
  return reply;
}

} // namespace transitd
