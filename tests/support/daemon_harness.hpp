#pragma once
// The whole daemon in-process for end-to-end tests: mock upstream, actor
// system, engine, gateway, MCP endpoint and HTTP server on ephemeral
// loopback ports; plus a small MCP client speaking real HTTP to it.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include <boost/json.hpp>

#include "transitd/actors/engine.hpp"
#include "transitd/providers/mock/mock_upstream.hpp"
#include "transitd/transport/daemon.hpp"
#include "transitd/transport/mcp_http.hpp"

namespace httplib {
class Client;
}

namespace transitd::test {

struct harness_options {
  /// Routing URL to use instead of the mock (e.g. a closed port).
  std::optional<std::string> routing_url;
  int32_t tool_timeout_ms = 4000;
  int32_t upstream_timeout_ms = 1500;
  bool demo = false;
  /// D12's switch: relaxed plan query in parallel (true) or sequential.
  bool speculative_relax = true;
  /// stationToilets data directory; empty: the built-in demo set.
  std::string station_data;
  double station_toilets_tps = 100;
  /// TfL: URL (default: the mock), key (empty: D18's missing key).
  std::optional<std::string> tfl_url;
  std::string tfl_key = "test-tfl-key";
  double plan_journey_tps = 100;
  /// Provider caches: off by default so that fault tests reach the mock.
  bool cache = false;
  /// Upstream gates: attempts per call and the breaker (practically off by
  /// default, so that fault tests see each fault's own code).
  int32_t max_attempts = 3;
  /// Distinct calls before the breaker may open (at a 50 % failure rate).
  int32_t breaker_min_calls = 100000;
  int64_t breaker_cooldown_ms = 10000;
  /// Outbound requests per second of the routing upstream (0 = unlimited).
  double routing_tps = 0;
  /// HTTP workers per upstream.
  std::size_t http_workers = 4;
  /// The listener's worker threads and connection caps.
  std::size_t http_threads = 16;
  int64_t max_connections_per_client = 2048;
  /// Bearer tokens (null: no authentication).
  std::shared_ptr<const token_table> tokens;
  /// OAuth: accepted issuers and this server's canonical URI.
  std::vector<std::string> oauth_issuers;
  std::string oauth_resource;
  int32_t oauth_refresh_interval_s = 30;
  /// PEM files: serve HTTPS.
  std::string tls_cert;
  std::string tls_key;
  /// GTFS feeds (--gtfs); the harness waits until they are loaded, unless
  /// not `wait_for_feeds`.
  std::vector<std::pair<std::string, std::vector<std::string>>> gtfs_feeds;
  bool wait_for_feeds = true;
  /// --gtfs-rt and --gtfs-rt-max-age-s; the harness waits until each
  /// feed's realtime was applied once.
  std::vector<std::pair<std::string, std::vector<std::string>>> gtfs_rt_feeds;
  int32_t gtfs_rt_max_age_s = 300;
  /// --clock, epoch seconds.
  std::optional<int64_t> clock_start;
  /// Give Digitransit a key beside the feeds (else the feeds alone serve).
  bool digitransit_with_feeds = true;
};

class daemon_harness {
public:
  explicit daemon_harness(harness_options options = {});
  ~daemon_harness();

  int port() const {
    return port_;
  }
  /// The upstream the providers talk to: this harness's mock, or in demo
  /// mode the daemon's embedded one.
  mock::mock_upstream& mock();
  mcp::endpoint& endpoint();
  transitd::engine& engine();
  caf::actor_system& system();

private:
  mock::mock_upstream mock_;
  std::unique_ptr<transitd::daemon> daemon_;
  std::thread server_thread_;
  int port_ = 0;
};

struct http_result {
  int status = 0;
  std::string body;
  std::multimap<std::string, std::string> headers;
  std::string header(const std::string& name) const;
  boost::json::value json() const;
};

class mcp_client {
public:
  explicit mcp_client(int port, bool tls = false);
  ~mcp_client();

  /// POSTs a raw body to /mcp with the session header when there is one.
  http_result post(const std::string& body,
                   const std::map<std::string, std::string>& headers = {});
  http_result post(const boost::json::object& message,
                   const std::map<std::string, std::string>& headers = {});
  http_result del();
  /// GET of another path (/metrics, /readyz, /healthz).
  http_result get(const std::string& path);

  /// Runs initialize + notifications/initialized; returns the session id.
  std::string initialize(const std::string& version = "2025-11-25");

  /// tools/call; returns the JSON-RPC "result" object (fails the test when
  /// the reply is not one).
  boost::json::object call_tool(const std::string& name,
                                const boost::json::object& arguments);

  std::string session_id;
  /// Sent as "Authorization: Bearer ..." when set.
  std::string bearer;

private:
  std::unique_ptr<httplib::Client> client_;
  int next_id_ = 1;
};

/// Writes a fresh self-signed certificate for 127.0.0.1/localhost and its
/// key as PEM files in `directory`; returns {cert path, key path}.
std::pair<std::string, std::string>
write_self_signed_certificate(const std::string& directory);

/// get_departures arguments for a stop id.
boost::json::object departures_args(const std::string& stop = "HSL:1040129",
                                    int limit = 5);

/// The first JSON number in `text` written with an exponent (6.01E1), or
/// an empty string; strings are skipped, escapes included.
std::string exponent_number(std::string_view text);

/// plan_trip arguments between two Helsinki coordinates, plus `extra`.
boost::json::object trip_args(boost::json::object extra = {});

/// structuredContent of a successful tool result.
boost::json::object structured(const boost::json::object& result);
/// The error object of a failed tool result (parsed from its text block).
boost::json::object tool_error(const boost::json::object& result);

} // namespace transitd::test
