#pragma once
// transit-mock-upstream: a real HTTP server on loopback that speaks the
// upstream APIs in their recorded shapes, with deterministic generated data
// and fault controls for tests and benchmarks.
//
// Control endpoints (JSON):
//   POST /__mock/faults  {"latencyMs":200,"errorRate":0.1,"fault":"http503",
//                         "faultCount":3,"retryAfter":2,"hangMs":30000}
//   GET  /__mock/stats   {"requests":N,"byOperation":{...},"maxInFlight":K,
//                         "maxPerSecond":M (most in one wall-clock second),
//                         "withSubscriptionKey":M}
//   POST /__mock/reset   zero the counters, forget the last request and
//                         clear the faults
//   GET  /__mock/last-request  the last upstream request served, verbatim:
//                         its body, with X-Mock-Method and X-Mock-Target
//                         (path and query) headers; 404 before the first
//                         (the bench replays it against the mock directly)
// Faults: none, http500, http503, http429, hang, malformed, truncated,
// graphql-error (a GraphQL `errors` payload; a Pelias 500 with
// geocoding.errors). "confidenceScale": 100 makes Pelias confidences 0..100.
// "planDisruption": "delay"|"cancel" disrupts line 550 in trip plans.
// Routes: POST /routing/v2/{router}/gtfs/v1 (StopDepartures, NearbyStops,
// PlanTrip),
// GET /geocoding/v1/search.

#include <atomic>
#include <functional>
#include <optional>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <boost/json.hpp>

namespace httplib {
struct Request;
struct Response;
}

namespace transitd {
class connection_server;
}

namespace transitd::mock {

struct fault_settings {
  int latency_ms = 0;
  /// Share of requests (0..1) that get `fault` (deterministic sequence).
  double error_rate = 0;
  std::string fault = "none";
  /// How many requests get the fault; -1 = no bound.
  int fault_count = -1;
  /// Retry-After seconds sent with http429.
  int retry_after = 2;
  /// How long a "hang" holds the request.
  int hang_ms = 30000;
  /// Geocoding confidences on a 0..1 scale, or 0..100 (some deployments).
  int confidence_scale = 1;
  /// Trip plans: none, delay (line 550 runs 7 min late) or cancel (line
  /// 550 cancelled).
  std::string plan_disruption = "none";
  /// When set, only requests whose body contains this text get `fault`
  /// (e.g. one plan query of a fan-out); others are answered normally.
  std::string match;
};

/// Parses the control JSON; a failure names the bad field.
bool parse_fault_settings(const boost::json::object& body,
                          fault_settings& out, std::string& problem);

/// An upstream request as it arrived.
struct recorded_request {
  std::string method;
  /// Path and query string.
  std::string target;
  std::string body;
};

struct mock_stats {
  int64_t requests = 0;
  int64_t max_in_flight = 0;
  int64_t with_subscription_key = 0;
  int64_t faults_injected = 0;
  /// Milliseconds of latency added to answers (latencyMs), in all.
  int64_t latency_added_ms = 0;
  std::map<std::string, int64_t> by_operation;
  /// Upstream requests by the wall-clock second they arrived in (epoch
  /// seconds; the last hour), to check an outbound rate limit at the
  /// receiving end.
  std::map<int64_t, int64_t> per_second;
};

/// The most requests that arrived in one wall-clock second.
int64_t max_per_second(const mock_stats& stats);

class mock_upstream {
public:
  mock_upstream();
  ~mock_upstream();

  /// Binds and serves on a background thread; returns the port.
  int start(const std::string& host = "127.0.0.1", int port = 0,
            std::size_t threads = 64);
  void stop();

  int port() const {
    return port_;
  }
  /// "http://127.0.0.1:PORT"
  std::string base_url() const;
  /// The Digitransit routing GraphQL endpoint on this mock (router "hsl").
  std::string routing_url() const;
  /// The Pelias base on this mock ("/search" is appended by clients).
  std::string geocoding_url() const;

  void set_faults(fault_settings faults);
  mock_stats stats() const;
  /// The last upstream request served (control requests excluded).
  std::optional<recorded_request> last_request() const;
  void reset();

private:
  /// Common to every route: counts, latency, fault injection; `produce`
  /// makes the healthy answer (or answers itself and returns nullopt).
  void serve(const httplib::Request& req, httplib::Response& res,
             const std::string& operation, bool graphql,
             const std::function<std::optional<boost::json::object>()>&
               produce);
  boost::json::object answer_graphql(const boost::json::object& request);

  /// Decides, per request, whether the configured fault applies.
  std::string next_fault();
  void record(const httplib::Request& req, const std::string& operation,
              bool has_key);
  bool wait_or_stop(int milliseconds);

  std::unique_ptr<connection_server> server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  fault_settings faults_;
  int faults_left_ = -1;
  uint64_t sequence_ = 0;
  mock_stats stats_;
  std::optional<recorded_request> last_request_;
  std::atomic<int64_t> in_flight_{0};
};

} // namespace transitd::mock
