#pragma once
// Daemon configuration: defaults < config file < command-line flags. The
// environment supplies only the API keys (DIGITRANSIT_API_KEY, TFL_API_KEY).
// Pure: tests feed arguments, environment and files directly.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "transitd/messages/error.hpp"
#include "transitd/transport/auth.hpp"

namespace transitd {

namespace mcp {
// The engine's tool defaults by MCP name (transport/tools.hpp).
std::map<std::string, int32_t> default_tool_timeouts();
std::map<std::string, double> default_tool_tps();
} // namespace mcp

inline constexpr const char* default_routing_url
  = "https://api.digitransit.fi/routing/v2/hsl/gtfs/v1";
inline constexpr const char* default_geocoding_url
  = "https://api.digitransit.fi/geocoding/v1";
inline constexpr const char* default_tfl_url = "https://api.tfl.gov.uk";

struct daemon_config {
  // Listener.
  std::string bind = "127.0.0.1";
  int port = 8080;
  std::size_t http_threads = 128;
  std::size_t max_body_bytes = 1024 * 1024;
  std::vector<std::string> allowed_hosts{"localhost", "127.0.0.1", "[::1]"};
  std::vector<std::string> allowed_origins{"localhost", "127.0.0.1",
                                           "[::1]"};
  std::size_t max_header_bytes = 16 * 1024;
  std::size_t max_argument_bytes = 64 * 1024;
  int read_timeout_s = 10;
  int write_timeout_s = 10;
  int request_timeout_s = 30;
  int keep_alive_timeout_s = 30;
  /// Connections open at once from one client address, and in all.
  int64_t max_connections_per_client = 2048;
  int64_t max_connections = 16384;
  std::size_t max_sessions = 10000;
  int session_idle_timeout_s = 3600;
  // Security.
  /// Bearer tokens read from auth_tokens_file; null without one.
  std::string auth_tokens_file;
  std::shared_ptr<const token_table> tokens;
  /// OAuth 2.1 resource server: the authorization servers whose JWT access
  /// tokens are accepted, and this server's canonical URI (their audience).
  std::vector<std::string> oauth_issuers;
  std::string oauth_resource;
  /// A token naming an unknown key fetches the issuer's keys at most this
  /// often.
  int32_t oauth_refresh_interval_s = 30;
  /// Speak MCP over standard input and output instead of HTTP.
  bool stdio = false;
  /// Serve a non-loopback bind without authentication (warned about).
  bool insecure = false;
  /// Whether /metrics needs a bearer token when authentication is on.
  bool metrics_auth = true;
  std::string tls_cert;
  std::string tls_key;
  // Upstreams; *_explicit marks URLs set by file or flag.
  std::string digitransit_routing_url = default_routing_url;
  bool digitransit_routing_url_explicit = false;
  std::string digitransit_geocoding_url = default_geocoding_url;
  bool digitransit_geocoding_url_explicit = false;
  std::string tfl_url = default_tfl_url;
  bool tfl_url_explicit = false;
  std::string tfl_station_data;
  std::string digitransit_api_key;
  std::string tfl_api_key;
  bool demo = false;
  // Engine.
  int32_t tool_timeout_ms = 10000;
  /// Per-tool deadlines overriding tool_timeout_ms (default: the engine's,
  /// default_tool_settings: plan_trip's contract deadline).
  std::map<std::string, int32_t> tool_timeouts_ms = mcp::default_tool_timeouts();
  int32_t upstream_timeout_ms = 5000;
  std::size_t http_workers = 16;
  std::size_t gateway_shards = 2;
  std::size_t scheduler_threads = 2;
  /// Inbound calls per second (and burst) by tool; 0 or absent = unlimited.
  std::map<std::string, double> tool_tps = mcp::default_tool_tps();
  /// Outbound requests per second (and burst) by upstream, applied to real
  /// upstreams only (not the demo mock); 0 = unlimited.
  std::map<std::string, double> upstream_tps{{"digitransit-routing", 50},
                                             {"digitransit-geocoding", 50},
                                             {"tfl", 8}};
  /// Outbound burst by upstream (requests sent at once at most); absent =
  /// the rate.
  std::map<std::string, double> upstream_burst;
  /// Retry policy and breaker of every upstream.
  int32_t upstream_max_attempts = 3;
  int32_t upstream_backoff_ms = 100;
  int32_t upstream_backoff_cap_ms = 2000;
  /// The breaker: it opens when at least `breaker_failure_rate` percent of
  /// at least `breaker_min_calls` distinct calls in the last
  /// `breaker_window_s` seconds failed.
  int32_t breaker_min_calls = 10;
  int32_t breaker_failure_rate = 50;
  int32_t breaker_window_s = 60;
  int32_t breaker_cooldown_ms = 10000;
  /// Provider caches: TTLs in seconds (0 = no storing) and bounds.
  int32_t cache_departures_ttl_s = 15;
  int32_t cache_stops_ttl_s = 3600;
  int32_t cache_geocoding_ttl_s = 3600;
  std::size_t cache_max_entries = 10000;
  std::size_t cache_max_bytes = 64 * 1024 * 1024;
  /// SIGTERM/SIGINT: how long calls in flight may take to finish.
  int32_t shutdown_grace_ms = 10000;
  /// plan_trip: relaxed query in parallel with the primary (D12).
  bool plan_speculative_relax = true;
  /// Directory of the variable store; empty = ~/.local/share/transitd;
  /// ":memory:" keeps nothing on disk.
  std::string data_dir;
  /// --store postgresql://...: saved variables in PostgreSQL instead of
  /// the SQLite file under data_dir; empty = SQLite.
  std::string store;
  /// PostgreSQL connections (one detached actor each).
  std::size_t store_connections = 4;
  // Replicas.
  /// --redis redis://...: quota, 429 hold-offs and the caches' second
  /// level shared by every replica; empty = all local.
  std::string redis;
  /// Replicas sharing the quota: each keeps rate / replicas while Redis is
  /// unreachable.
  int32_t replicas = 1;
  /// Per-tool inbound limits shared by the replicas too.
  bool shared_tool_limits = false;
  /// With authentication on, each principal's share of every tool limit
  /// and upstream quota, in percent (0 = none).
  int32_t principal_share_percent = 100;
  /// Prefix of every Redis key (several deployments on one Redis).
  std::string redis_prefix = "transitd:";
  // Feeds: GTFS timetables the daemon routes on itself.
  /// --gtfs NAME=SOURCE[,SOURCE...] in the order given: zip files or
  /// folders, merged per NAME. Stop ids are NAME:stop_id.
  std::vector<std::pair<std::string, std::vector<std::string>>> gtfs_feeds;
  /// Stops closer than this get a generated footpath (meters).
  int32_t gtfs_footpath_m = 500;
  /// Keep each feed's built timetable in the data directory and read it
  /// at the next start when the sources have not changed.
  bool gtfs_snapshots = true;
  /// Check the feeds' sources again this often (seconds); 0 = never.
  int32_t gtfs_refresh_s = 86400;
  /// --gtfs-rt NAME=SOURCE[,SOURCE...]: GTFS-realtime sources (URLs or
  /// files) of the --gtfs feed NAME; keyed "NAME~N" when they name the
  /// ids of its N-th merged source (`realtime_feed_of`).
  std::vector<std::pair<std::string, std::vector<std::string>>> gtfs_rt_feeds;
  /// Seconds between polls of a realtime URL (and checks of a file).
  int32_t gtfs_rt_interval_s = 30;
  /// A realtime source older than this (seconds) is not applied.
  int32_t gtfs_rt_max_age_s = 300;
  /// Where a feed and Digitransit (with a key) both cover a point:
  /// "feeds-first" or "digitransit-first".
  std::string provider_order = "feeds-first";
  /// --clock: the instant the daemon's clock starts at (epoch seconds), for
  /// serving recorded feeds; nullopt: the system clock.
  std::optional<int64_t> clock_start;
  // Logs.
  std::string log_level = "info";
  /// "text" (human-readable) or "json" (one JSON object per line).
  std::string log_format = "text";
};

/// What the command line asked for.
struct config_request {
  daemon_config config;
  bool help = false;
};

using env_lookup = std::function<std::optional<std::string>(const std::string&)>;
using file_reader = std::function<outcome<std::string>(const std::string&)>;

/// Parses flags (`--key value` or `--key=value`), the --config file and the
/// environment. A failure names the flag or key and what is wrong.
outcome<config_request> parse_config(const std::vector<std::string>& args,
                                     const env_lookup& env,
                                     const file_reader& read_file);

/// The upstream names that per-upstream settings accept (per-tool settings
/// accept mcp::tool_names()).
const std::vector<std::string>& known_upstream_names();

/// Whether the daemon serves hosts other than this one without
/// authentication (--insecure): warned about at start and every hour.
bool exposed_without_auth(const daemon_config& cfg);

/// The departures cache's TTL in seconds: cache-departures-ttl-s, never
/// more than gtfs-rt-max-age-s (a cached departure never outlives the
/// realtime staleness limit).
int32_t departures_cache_ttl_s(const daemon_config& cfg);

/// A --gtfs-rt key ("NAME" or "NAME~N"): the feed's name, and the merged
/// source (from 1) whose ids its sources name (0: the timetable's).
std::pair<std::string, std::size_t>
realtime_feed_of(const std::string& key);

/// The --help text.
std::string config_usage();

/// Reads a whole file; a failure names the path.
outcome<std::string> read_text_file(const std::string& path);

/// The SQLite path for the variable store: ":memory:", or
/// DATA_DIR/variables.sqlite3 (DATA_DIR defaulting from $HOME).
std::string variable_store_path(const daemon_config& config,
                                const env_lookup& env);

/// The station data directory stationToilets should read, or "" for the
/// built-in demo set: the --tfl-station-data directory when given; else
/// ~/Downloads/TfL station data detailed when it exists (and not --demo).
std::string station_data_directory(const daemon_config& config,
                                   const env_lookup& env,
                                   const std::function<bool(const std::string&)>&
                                     exists);

/// Whether the routing provider runs on the embedded mock: --demo without
/// an explicit URL, or neither a key nor an explicit URL.
bool routing_uses_demo(const daemon_config& config);

/// The same rule for the geocoding provider.
bool geocoding_uses_demo(const daemon_config& config);

/// D18: TfL runs on the demo upstream with neither a TFL_API_KEY nor an
/// explicit --tfl-url (or with --demo and no explicit URL).
bool tfl_uses_demo(const daemon_config& config);

} // namespace transitd
