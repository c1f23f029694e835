#include "transitd/transport/config.hpp"

#include "transitd/store/redis_link.hpp"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <fstream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "transitd/messages/time.hpp"
#include "transitd/net/url.hpp"
#include "transitd/transport/tools.hpp"

namespace transitd {

namespace {

/// "a=1,b=2" of a name → number map, numbers as written.
template <class Number>
std::string name_values(const std::map<std::string, Number>& values) {
  std::string out;
  for (const auto& [name, value] : values) {
    std::ostringstream number;
    number << value;
    out += (out.empty() ? "" : ",") + name + "=" + number.str();
  }
  return out;
}

/// An OAuth issuer or resource URL: absolute https, or http on loopback
/// (tests and local issuers); no query or fragment. What is wrong, or
/// nullopt.
std::optional<std::string> check_oauth_url(const std::string& url) {
  auto where = split_url(url);
  if (!where)
    return where.error().message;
  if (url.find_first_of("?#") != std::string::npos)
    return "\"" + url + "\" must not have a query or fragment";
  if (url.rfind("https://", 0) == 0)
    return std::nullopt;
  auto host = where->origin.substr(7); // after "http://"
  host = host.substr(0, host.rfind(':') == std::string::npos
                          || host.back() == ']'
                          ? host.size()
                          : host.rfind(':'));
  if (is_loopback_address(host) || host == "localhost")
    return std::nullopt;
  return "\"" + url + "\" must be https (http only on loopback)";
}

// Flags are declared with CLI11 (Debian libcli11-dev): it parses
// `--key value` and `--key=value`, converts and range-checks values, writes
// --help, and names the flag in every error. A --config file holds the same
// keys as `key = value` lines; each line is parsed as the flag `--key=value`
// by the same declarations, so the file and the flags cannot disagree.
// Precedence (defaults < file < flags) comes from applying the file first
// and the flags over it.

/// Values that are plain decimal digits: CLI11 would also read "0x10" and
/// "1e3" as numbers, and "010" as octal.
const CLI::Validator whole_number{
  [](std::string& text) -> std::string {
    if (text.empty() || text.size() > 12
        || !std::all_of(text.begin(), text.end(),
                        [](char c) { return c >= '0' && c <= '9'; }))
      return "expected a whole number, got \"" + text + "\"";
    // Decimal always: CLI11 would read a leading 0 as octal.
    text.erase(0, std::min(text.find_first_not_of('0'), text.size() - 1));
    return {};
  },
  "", "whole number"};

CLI::Validator not_empty(const std::string& what) {
  return CLI::Validator{[what](std::string& text) -> std::string {
                          return text.empty() ? "needs " + what
                                              : std::string{};
                        },
                        "", "not empty"};
}

const CLI::Validator http_url{
  [](std::string& url) -> std::string {
    if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
      return "expected an http:// or https:// URL, got \"" + url + "\"";
    if (url.find("://") + 3 >= url.size())
      return "the URL \"" + url + "\" has no host";
    return {};
  },
  "", "URL"};

/// Parses "name=number,name=number" with names from `known`; errors name
/// the flag (and the entry).
std::map<std::string, int64_t> parse_map(const std::string& flag,
                                         const std::string& text,
                                         const std::vector<std::string>& known,
                                         int64_t min, int64_t max) {
  std::map<std::string, int64_t> out;
  std::stringstream in{text};
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty())
      continue;
    auto eq = item.find('=');
    if (eq == std::string::npos)
      throw CLI::ValidationError(flag, "expected name=number, got \"" + item
                                         + "\"");
    auto name = item.substr(0, eq);
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string names;
      for (const auto& k : known)
        names += (names.empty() ? "" : ", ") + k;
      throw CLI::ValidationError(flag, "unknown name \"" + name
                                         + "\" (known: " + names + ")");
    }
    auto number = item.substr(eq + 1);
    if (auto problem = whole_number(number); !problem.empty())
      throw CLI::ValidationError(flag + " " + name, problem);
    auto value = std::stoll(number);
    if (value < min || value > max)
      throw CLI::ValidationError(flag + " " + name,
                                 "must be between " + std::to_string(min)
                                   + " and " + std::to_string(max)
                                   + ", got " + number);
    out[name] = value;
  }
  if (out.empty())
    throw CLI::ValidationError(flag, "needs at least one name=number");
  return out;
}

} // namespace

std::pair<std::string, std::size_t>
realtime_feed_of(const std::string& key) {
  auto tilde = key.find('~');
  std::size_t rank = 0;
  if (tilde == std::string::npos
      || std::from_chars(key.data() + tilde + 1, key.data() + key.size(),
                         rank)
             .ec
           != std::errc{})
    return {key, 0};
  return {key.substr(0, tilde), rank};
}

namespace {

/// "NAME=SOURCE[,SOURCE...]": a feed name that can prefix stop ids, and
/// local sources. With `ranked` (realtime), "NAME~N=..." too: the ids of
/// the feed's N-th merged source.
std::pair<std::string, std::vector<std::string>>
parse_feed(const std::string& flag, const std::string& text,
           bool ranked = false) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw CLI::ValidationError(flag, "expected NAME=SOURCE, got \"" + text
                                       + "\"");
  auto key = text.substr(0, eq);
  auto name = key;
  if (auto tilde = key.find('~'); ranked && tilde != std::string::npos) {
    name = key.substr(0, tilde);
    auto rank = key.substr(tilde + 1);
    if (rank.empty() || rank.size() > 3 || rank[0] == '0'
        || !std::all_of(rank.begin(), rank.end(), [](char c) {
             return std::isdigit(static_cast<unsigned char>(c)) != 0;
           }))
      throw CLI::ValidationError(
        flag, "in \"" + key
                + "\", ~N names the feed's N-th --gtfs source, counted "
                  "from 1 (as ids the merge renamed end in ~N)");
  }
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_')
      throw CLI::ValidationError(
        flag, "the feed name \"" + name
                + "\" may hold only letters, digits, - and _ (it prefixes "
                  "stop ids as NAME:)");
  if (name == "HSL")
    throw CLI::ValidationError(flag, "the feed name HSL would take "
                                     "Digitransit's stop ids (HSL:...); "
                                     "choose another, e.g. hsl");
  std::vector<std::string> sources;
  std::stringstream in{text.substr(eq + 1)};
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) {
      if (item.rfind("http://", 0) == 0 || item.rfind("https://", 0) == 0)
        if (auto bad = split_url(item); !bad)
          throw CLI::ValidationError(flag + " " + name, bad.error().message);
      sources.push_back(item);
    }
  if (sources.empty())
    throw CLI::ValidationError(flag + " " + key,
                               "needs at least one SOURCE");
  return {key, sources};
}

/// "a,b,c" without empty items.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in{text};
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty())
      items.push_back(item);
  return items;
}

/// The words a boolean setting takes.
const std::vector<std::string> boolean_words{"true", "false", "1",
                                             "0",    "yes",   "no"};

/// Every option, bound to `cfg`; `config_files` receives each --config.
std::unique_ptr<CLI::App> make_app(daemon_config& cfg,
                                   std::vector<std::string>& config_files) {
  auto app = std::make_unique<CLI::App>(
    "transitd: public transport tools for AI agents over MCP", "transitd");
  app->option_defaults()
    ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
    ->always_capture_default(); // --help shows each default
  app->set_help_flag("--help", "print this help");
  app->get_formatter()->column_width(34);
  auto count = [&](const char* name, auto& field, int64_t min, int64_t max,
                   const char* help) {
    return app
      ->add_option(std::string{"--"} + name, field, help)
      ->type_name("N")
      ->transform(whole_number)
      ->check(CLI::Range(min, max));
  };
  auto text = [&](const char* name, std::string& field, const char* value,
                  const char* help) {
    return app->add_option(std::string{"--"} + name, field, help)
      ->type_name(value);
  };
  auto url = [&](const char* name, std::string& field, bool& flag,
                 const char* help) {
    return app
      ->add_option_function<std::string>(
        std::string{"--"} + name,
        [&field, &flag](const std::string& value) {
          field = value;
          flag = true;
        },
        help)
      ->type_name("URL")
      ->check(http_url);
  };
  auto boolean = [&](const char* name, bool& field, const char* help) {
    return app->add_option(std::string{"--"} + name, field, help)
      ->type_name("BOOL")
      ->check(CLI::IsMember(boolean_words));
  };
  auto tool_map = [&](const char* name, auto& field, int64_t min,
                      int64_t max, const std::vector<std::string>& known,
                      const std::string& help) {
    std::string flag = std::string{"--"} + name;
    // Repeats add up: --tool-tps a=1 --tool-tps b=2 sets both.
    return app
      ->add_option_function<std::vector<std::string>>(
        flag,
        [&field, flag, min, max, &known](const std::vector<std::string>& all) {
          for (const auto& value : all)
            for (const auto& [key, n] :
                 parse_map(flag, value, known, min, max))
              field[key] = static_cast<
                typename std::decay_t<decltype(field)>::mapped_type>(n);
        },
        help)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->type_name("LIST");
  };
  auto hosts = [&](const char* name, std::vector<std::string>& field,
                   const char* needs, const char* help) {
    std::string flag = std::string{"--"} + name;
    return app
      ->add_option_function<std::string>(
        flag,
        [&field, flag, needs](const std::string& value) {
          auto names = split_list(value);
          if (names.empty())
            throw CLI::ValidationError(flag, needs);
          field = std::move(names);
        },
        help)
      ->type_name("LIST");
  };

  count("port", cfg.port, 0, 65535, "TCP port of the MCP endpoint");
  text("bind", cfg.bind, "ADDR", "address to listen on")
    ->check(not_empty("an address"));
  url("digitransit-routing-url", cfg.digitransit_routing_url,
      cfg.digitransit_routing_url_explicit,
      "Digitransit GraphQL endpoint (default "
      "https://api.digitransit.fi/routing/v2/hsl/gtfs/v1)");
  url("digitransit-geocoding-url", cfg.digitransit_geocoding_url,
      cfg.digitransit_geocoding_url_explicit,
      "Pelias base, /search is appended (default "
      "https://api.digitransit.fi/geocoding/v1)");
  url("tfl-url", cfg.tfl_url, cfg.tfl_url_explicit,
      "TfL API base (default https://api.tfl.gov.uk)");
  text("tfl-station-data", cfg.tfl_station_data, "DIR",
       "TfL 'station data detailed' directory (in a config file also "
       "tfl.station-data.detailed-dir)")
    ->check(not_empty("a directory"));
  app
    ->add_option("--config", config_files,
                 "read settings from FILE (key = value lines); repeated, "
                 "the files apply in order")
    ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
    ->type_name("FILE")
    ->check(not_empty("a file"));
  text("data-dir", cfg.data_dir, "DIR",
       "where saved variables live (default ~/.local/share/transitd; "
       "':memory:' keeps nothing)")
    ->check(not_empty("a directory"));
  text("store", cfg.store, "URL",
       "keep saved variables in PostgreSQL (postgresql://user@host/db) "
       "instead of the SQLite file in --data-dir; replicas share it")
    ->check(CLI::Validator(
      [](std::string& value) -> std::string {
        if (value.rfind("postgresql://", 0) == 0
            || value.rfind("postgres://", 0) == 0)
          return {};
        return "expected a postgresql:// URL (the default store is the "
               "SQLite file in --data-dir)";
      },
      "URL"));
  count("store-connections", cfg.store_connections, 1, 64,
        "PostgreSQL connections of the variable store");
  text("redis", cfg.redis, "URL",
       "share the outbound quota, 429 hold-offs and the caches with the "
       "other replicas through Redis (redis://[:password@]host[:port][/db])")
    ->check(CLI::Validator(
      [](std::string& value) -> std::string {
        auto parsed = parse_redis_url(value);
        return parsed ? std::string{} : parsed.error().message;
      },
      "URL"));
  count("replicas", cfg.replicas, 1, 1000,
        "replicas sharing the quota: while Redis is unreachable each keeps "
        "to rate / replicas");
  count("principal-share-percent", cfg.principal_share_percent, 0, 100,
        "with authentication on, the most of each tool limit and upstream "
        "quota one principal may take; the principals active in the last "
        "10 s share each limit equally under it (0 = no shares)");
  boolean("shared-tool-limits", cfg.shared_tool_limits,
          "share the per-tool inbound limits (--tool-tps) among the "
          "replicas too (default: each replica keeps its own)");
  text("redis-prefix", cfg.redis_prefix, "TEXT",
       "prefix of every Redis key (several deployments on one Redis)")
    ->check(not_empty("a prefix"));
  app->add_flag("--demo", cfg.demo,
                "serve from the built-in mock upstream (every result says "
                "demo-data)");
  count("http-threads", cfg.http_threads, 1, 4096,
        "HTTP worker threads (a request holds one once it has arrived whole)");
  count("max-body-bytes", cfg.max_body_bytes, 1024, 64 * 1024 * 1024,
        "largest accepted request body");
  hosts("allowed-hosts", cfg.allowed_hosts, "needs at least one host name",
        "comma-separated Host/Origin names accepted (default "
        "localhost,127.0.0.1,[::1])");
  hosts("allowed-origins", cfg.allowed_origins,
        "needs at least one origin or host name",
        "comma-separated Origin host names or whole origins "
        "(https://app.example:8443) accepted from browsers (default "
        "localhost,127.0.0.1,[::1])");
  text("auth-tokens-file", cfg.auth_tokens_file, "FILE",
       "bearer tokens, one \"PRINCIPAL TOKEN\" line each; turns "
       "authentication on")
    ->check(not_empty("a file"));
  hosts("oauth-issuer", cfg.oauth_issuers, "needs at least one issuer URL",
        "comma-separated OAuth authorization servers (issuer URLs) whose "
        "JWT access tokens are accepted; needs --oauth-resource");
  text("oauth-resource", cfg.oauth_resource, "URL",
       "this server's canonical URI (https://host/mcp): the audience of "
       "OAuth tokens, named in /.well-known/oauth-protected-resource")
    ->check(not_empty("a URL"));
  count("oauth-refresh-interval-s", cfg.oauth_refresh_interval_s, 0, 86400,
        "a token naming an unknown key fetches the issuer's keys at most "
        "this often");
  app->add_flag("--stdio", cfg.stdio,
                "speak MCP over standard input and output (one JSON-RPC "
                "message per line; logs on standard error) instead of HTTP");
  app->add_flag("--insecure", cfg.insecure,
                "allow a non-loopback --bind without authentication (warned "
                "about)");
  boolean("metrics-auth", cfg.metrics_auth,
          "with authentication on, /metrics needs a token too (default "
          "true)");
  text("tls-cert", cfg.tls_cert, "FILE", "PEM certificate (chain): serve HTTPS")
    ->check(not_empty("a file"));
  text("tls-key", cfg.tls_key, "FILE", "PEM private key of --tls-cert")
    ->check(not_empty("a file"));
  count("max-header-bytes", cfg.max_header_bytes, 1024, 64 * 1024 * 1024,
        "largest request header block, names and values");
  count("max-argument-bytes", cfg.max_argument_bytes, 1024,
        64 * 1024 * 1024,
        "largest tools/call arguments object, serialised");
  count("read-timeout-s", cfg.read_timeout_s, 1, 3600,
        "a connection idle mid-request this long is closed");
  count("request-timeout-s", cfg.request_timeout_s, 1, 3600,
        "a request must arrive whole within this of its first byte");
  count("write-timeout-s", cfg.write_timeout_s, 1, 3600,
        "a client not reading its reply this long is dropped");
  count("keep-alive-timeout-s", cfg.keep_alive_timeout_s, 1, 3600,
        "idle keep-alive connections close after this");
  count("max-connections-per-client", cfg.max_connections_per_client, 1,
        1000000,
        "connections open at once from one client address; more get 503");
  count("max-connections", cfg.max_connections, 1, 1000000,
        "connections open at once in all; more get 503");
  count("max-sessions", cfg.max_sessions, 1, 10000000,
        "open MCP sessions at most; idle ones are evicted first");
  count("session-idle-timeout-s", cfg.session_idle_timeout_s, 1,
        86400 * 30, "a session unused this long may be evicted");
  text("log-format", cfg.log_format, "FORMAT",
       "text or json: one object per line")
    ->check(CLI::IsMember({"text", "json"}));
  count("tool-timeout-ms", cfg.tool_timeout_ms, 100, 600000,
        "deadline of one tool call");
  tool_map("tool-timeouts-ms", cfg.tool_timeouts_ms, 100, 600000,
           mcp::tool_names(),
           "per-tool deadlines, e.g. plan_trip=8000,get_departures=5000 "
           "(default " + name_values(mcp::default_tool_timeouts()) + ")");
  tool_map("tool-tps", cfg.tool_tps, 0, 1000000, mcp::tool_names(),
           "per-tool calls per second, e.g. planJourney=5,"
           "get_departures=200; 0 = unlimited (default "
             + name_values(mcp::default_tool_tps()) + ")");
  tool_map("upstream-tps", cfg.upstream_tps, 0, 1000000,
           known_upstream_names(),
           "per-upstream requests per second: digitransit-routing, "
           "digitransit-geocoding, tfl; 0 = unlimited (default 50,50,8; not "
           "applied to the demo upstream)");
  tool_map("upstream-burst", cfg.upstream_burst, 1, 1000000,
           known_upstream_names(),
           "per-upstream requests sent at once at most (default: one "
           "second's worth, the rate); 1 spaces requests evenly, so that no "
           "second ever sees more than the rate");
  count("upstream-max-attempts", cfg.upstream_max_attempts, 1, 10,
        "attempts per upstream call, retries included");
  count("upstream-backoff-ms", cfg.upstream_backoff_ms, 0, 600000,
        "first retry backoff ceiling; doubles per retry, full jitter");
  count("upstream-backoff-cap-ms", cfg.upstream_backoff_cap_ms, 0, 600000,
        "largest backoff ceiling");
  count("breaker-min-calls", cfg.breaker_min_calls, 1, 100000,
        "distinct upstream calls in the window before its breaker may open");
  count("breaker-failure-rate", cfg.breaker_failure_rate, 1, 100,
        "percent of those calls failed that opens the breaker");
  count("breaker-window-s", cfg.breaker_window_s, 1, 3600,
        "how far back the breaker's window of calls reaches, seconds");
  count("breaker-cooldown-ms", cfg.breaker_cooldown_ms, 0, 600000,
        "how long an open breaker fails calls fast before a probe");
  count("cache-departures-ttl-s", cfg.cache_departures_ttl_s, 0, 86400 * 7,
        "departures cache TTL, 0 = off; never more than gtfs-rt-max-age-s");
  count("cache-stops-ttl-s", cfg.cache_stops_ttl_s, 0, 86400 * 7,
        "stop search cache TTL, 0 = off");
  count("cache-geocoding-ttl-s", cfg.cache_geocoding_ttl_s, 0, 86400 * 7,
        "geocoding cache TTL, 0 = off");
  count("cache-max-entries", cfg.cache_max_entries, 0, int64_t{1} << 40,
        "entries per cache kind at most");
  count("cache-max-bytes", cfg.cache_max_bytes, 0, int64_t{1} << 40,
        "bytes per cache kind at most");
  count("shutdown-grace-ms", cfg.shutdown_grace_ms, 0, 600000,
        "on SIGTERM/SIGINT, how long calls in flight may finish");
  count("upstream-timeout-ms", cfg.upstream_timeout_ms, 50, 600000,
        "timeout of one upstream HTTP attempt");
  count("http-workers", cfg.http_workers, 1, 1024,
        "concurrent upstream requests per provider");
  count("scheduler-threads", cfg.scheduler_threads, 1, 256,
        "CAF scheduler threads");
  boolean("plan-speculative-relax", cfg.plan_speculative_relax,
          "plan_trip sends its relaxed query in parallel (true, default) or "
          "only after a disrupted answer (false: saves upstream quota)");
  for (auto [flag, tool] : {std::pair{"plan-journey-tps", "planJourney"},
                            std::pair{"station-toilets-tps",
                                      "stationToilets"}})
    app
      ->add_option_function<int64_t>(
        std::string{"--"} + flag,
        [&cfg, tool = std::string{tool}](int64_t tps) {
          cfg.tool_tps[tool] = static_cast<double>(tps);
        },
        std::string{tool} + " calls per second (same as --tool-tps "
          + tool + "=N)")
      ->type_name("N")
      ->transform(whole_number)
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  app
    ->add_option_function<std::vector<std::string>>(
      "--gtfs",
      [&cfg](const std::vector<std::string>& all) {
        for (const auto& value : all) {
          auto [name, sources] = parse_feed("--gtfs", value);
          auto it = std::find_if(cfg.gtfs_feeds.begin(), cfg.gtfs_feeds.end(),
                                 [&](const auto& f) { return f.first == name; });
          if (it != cfg.gtfs_feeds.end())
            it->second = std::move(sources);
          else
            cfg.gtfs_feeds.emplace_back(std::move(name), std::move(sources));
        }
      },
      "serve a GTFS timetable with the built-in router: NAME=SOURCE, SOURCE "
      "a .zip file or folder; several SOURCEs comma-separated are merged; "
      "repeated for more feeds; stop ids become NAME:stop_id")
    ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
    ->type_name("NAME=SOURCE");
  app
    ->add_option_function<std::vector<std::string>>(
      "--gtfs-rt",
      [&cfg](const std::vector<std::string>& all) {
        for (const auto& value : all) {
          auto [name, sources] = parse_feed("--gtfs-rt", value, true);
          auto it = std::find_if(cfg.gtfs_rt_feeds.begin(),
                                 cfg.gtfs_rt_feeds.end(),
                                 [&](const auto& f) { return f.first == name; });
          if (it != cfg.gtfs_rt_feeds.end())
            it->second.insert(it->second.end(), sources.begin(),
                              sources.end());
          else
            cfg.gtfs_rt_feeds.emplace_back(std::move(name),
                                           std::move(sources));
        }
      },
      "apply GTFS-realtime (trip updates, vehicle positions, alerts) to the "
      "--gtfs feed NAME: NAME=SOURCE, SOURCE an http(s) URL polled with "
      "conditional requests or a file read again when it changes; several "
      "SOURCEs comma-separated, or the flag repeated. NAME~N=SOURCE: the "
      "sources name the ids of the feed's N-th merged source (from 1)")
    ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
    ->type_name("NAME=SOURCE");
  count("gtfs-rt-interval-s", cfg.gtfs_rt_interval_s, 1, 3600,
        "seconds between polls of a realtime URL (never sooner than its "
        "Cache-Control max-age allows); files are checked as often");
  count("gtfs-rt-max-age-s", cfg.gtfs_rt_max_age_s, 10, 86400,
        "a realtime source whose last message is older than this is not "
        "applied, and answers say so (warning realtime-stale)");
  count("gtfs-refresh-s", cfg.gtfs_refresh_s, 0, 86400 * 30,
        "check GTFS sources again this often (URLs with conditional "
        "requests, files by modification time); 0 = never");
  count("gtfs-footpath-m", cfg.gtfs_footpath_m, 0, 3000,
        "GTFS stops closer than this are joined by a walking transfer "
        "(transfers.txt overrides a pair)");
  boolean("gtfs-snapshots", cfg.gtfs_snapshots,
          "keep each feed's built timetable in DATA-DIR/gtfs/snapshots and "
          "read it at the next start while the sources are unchanged "
          "(default true; never with --data-dir :memory:)");
  text("provider-order", cfg.provider_order, "ORDER",
       "where a feed and Digitransit (with a key) both cover a point: "
       "feeds-first or digitransit-first")
    ->check(CLI::IsMember({"feeds-first", "digitransit-first"}));
  app
    ->add_option_function<std::string>(
      "--clock",
      [&cfg](const std::string& value) {
        auto start = parse_iso8601(value);
        if (!start)
          throw CLI::ValidationError(
            "--clock", "expected an ISO 8601 date-time with an offset, e.g. "
                       "2026-10-14T08:30:00-04:00, got \"" + value + "\"");
        cfg.clock_start = *start;
      },
      "start the daemon's clock at this ISO 8601 instant (it then runs): "
      "serve a feed outside its validity; results say simulated-time")
    ->type_name("TIME");
  text("log-level", cfg.log_level, "LEVEL", "how much to log")
    ->check(CLI::IsMember(
      {"trace", "debug", "info", "warn", "error", "critical", "off"}));
  app->footer(
    "Every option but --config and --help also works in a --config file, "
    "without\nthe dashes: `port = 9000`.\n\n"
    "environment:\n"
    "  DIGITRANSIT_API_KEY   Digitransit subscription key\n"
    "  TFL_API_KEY           TfL app_key\n"
    "\nprecedence: defaults < config file < flags. Without a key and an "
    "explicit URL,\na provider runs on the built-in demo upstream.");
  return app;
}

failure bad(const std::string& where, const std::string& what) {
  return make_failure(ec::validation_error, where + ": " + what);
}

/// What CLI11 would let through: `--key=` (CLI11 then takes the next
/// argument as the value) and --demo/--insecure with any word (CLI11 reads
/// "on", "+" or any number as a flag value).
std::optional<failure> check_flag_values(const std::vector<std::string>& args) {
  for (const auto& arg : args) {
    auto eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos)
      continue;
    auto key = arg.substr(0, eq);
    auto value = arg.substr(eq + 1);
    if (value.empty())
      return bad(key, "needs a value");
    if ((key == "--demo" || key == "--insecure")
        && std::find(boolean_words.begin(), boolean_words.end(), value)
             == boolean_words.end())
      return bad(key, "expected true or false, got \"" + value + "\"");
  }
  return std::nullopt;
}

/// Runs `app` over `args`; a failure carries CLI11's message, which names
/// the flag, prefixed by `where` when given.
std::optional<failure> run(CLI::App& app, std::vector<std::string> args,
                           const std::string& where = {}) {
  if (auto f = check_flag_values(args))
    return where.empty() ? f : bad(where, f->message);
  std::reverse(args.begin(), args.end()); // CLI11 takes them last first
  try {
    app.clear();
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    return make_failure(ec::validation_error,
                        where.empty() ? message : where + ": " + message);
  }
  return std::nullopt;
}

std::string trim(const std::string& text) {
  auto begin = text.find_first_not_of(" \t\r");
  if (begin == std::string::npos)
    return {};
  auto end = text.find_last_not_of(" \t\r");
  return text.substr(begin, end - begin + 1);
}

/// Applies a config file line by line, each as `--key=value`.
std::optional<failure> apply_file(CLI::App& app, const std::string& path,
                                  const std::string& text) {
  std::istringstream in{text};
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    line = trim(line);
    if (line.empty() || line[0] == '#')
      continue;
    auto where = path + ":" + std::to_string(number);
    auto eq = line.find('=');
    if (eq == std::string::npos)
      return bad(where, "expected \"key = value\", got \"" + line + "\"");
    const auto written = trim(line.substr(0, eq));
    // D20 names the station-data setting in its dotted form.
    auto key = written == "tfl.station-data.detailed-dir"
                 ? std::string{"tfl-station-data"}
                 : written;
    auto value = trim(line.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
    if (key == "config" || key == "help"
        || app.get_option_no_throw("--" + key) == nullptr)
      return bad(where, "unknown setting \"" + key + "\"");
    if (auto f = run(app, {"--" + key + "=" + value},
                     where + " (" + written + ")"))
      return f;
  }
  return std::nullopt;
}

} // namespace

const std::vector<std::string>& known_upstream_names() {
  static const std::vector<std::string> names{
    "digitransit-routing", "digitransit-geocoding", "tfl"};
  return names;
}

std::string config_usage() {
  daemon_config cfg;
  std::vector<std::string> files;
  return make_app(cfg, files)->help();
}

outcome<config_request> parse_config(const std::vector<std::string>& args,
                                     const env_lookup& env,
                                     const file_reader& read_file) {
  config_request request;
  // --help wins over whatever else is on the line.
  if (std::find(args.begin(), args.end(), "--help") != args.end()) {
    request.help = true;
    return request;
  }
  // Pass 1 checks the flags (into a scratch copy) and finds --config.
  daemon_config scratch;
  std::vector<std::string> config_files;
  auto flags = make_app(scratch, config_files);
  if (auto f = run(*flags, args))
    return *f;
  // Pass 2: the files in order, then the flags over them.
  auto& cfg = request.config;
  std::vector<std::string> ignored;
  auto app = make_app(cfg, ignored);
  for (const auto& file : config_files) {
    auto text = read_file(file);
    if (!text)
      return bad("--config", text.error().message);
    if (auto f = apply_file(*app, file, *text))
      return *f;
  }
  if (auto f = run(*app, args))
    return *f;
  if (auto key = env("DIGITRANSIT_API_KEY"))
    cfg.digitransit_api_key = *key;
  if (auto key = env("TFL_API_KEY"))
    cfg.tfl_api_key = *key;
  if (!cfg.auth_tokens_file.empty()) {
    auto text = read_file(cfg.auth_tokens_file);
    if (!text)
      return bad("auth-tokens-file", text.error().message);
    auto tokens = token_table::parse(*text, cfg.auth_tokens_file);
    if (!tokens)
      return bad("auth-tokens-file", tokens.error().message);
    cfg.tokens = std::make_shared<const token_table>(std::move(*tokens));
  }
  if (cfg.oauth_issuers.empty() != cfg.oauth_resource.empty())
    return bad(cfg.oauth_issuers.empty() ? "--oauth-resource"
                                         : "--oauth-issuer",
               "OAuth needs both --oauth-issuer and --oauth-resource");
  for (const auto& issuer : cfg.oauth_issuers)
    if (auto f = check_oauth_url(issuer))
      return bad("--oauth-issuer", *f);
  if (!cfg.oauth_resource.empty())
    if (auto f = check_oauth_url(cfg.oauth_resource))
      return bad("--oauth-resource", *f);
  for (const auto& [key, sources] : cfg.gtfs_rt_feeds) {
    auto [name, rank] = realtime_feed_of(key);
    auto feed = std::find_if(cfg.gtfs_feeds.begin(), cfg.gtfs_feeds.end(),
                             [&](const auto& f) { return f.first == name; });
    if (feed == cfg.gtfs_feeds.end())
      return bad("--gtfs-rt " + key,
                 "realtime needs the timetable it updates: add --gtfs " + name
                   + "=SOURCE");
    if (rank > feed->second.size())
      return bad("--gtfs-rt " + key,
                 "the feed " + name + " merges "
                   + std::to_string(feed->second.size())
                   + " source(s); ~N counts them from 1");
  }
  if (cfg.tls_cert.empty() != cfg.tls_key.empty())
    return bad(cfg.tls_cert.empty() ? "--tls-key" : "--tls-cert",
               "TLS needs both --tls-cert and --tls-key");
  if (exposed_without_auth(cfg) && !cfg.insecure)
    return bad("--bind " + cfg.bind,
               "is reachable from other hosts: give --auth-tokens-file "
               "FILE or --oauth-issuer, or --insecure to serve without "
               "authentication");
  return request;
}

int32_t departures_cache_ttl_s(const daemon_config& cfg) {
  return std::min(cfg.cache_departures_ttl_s, cfg.gtfs_rt_max_age_s);
}

bool exposed_without_auth(const daemon_config& cfg) {
  return !cfg.tokens && cfg.oauth_issuers.empty()
         && !is_loopback_address(cfg.bind);
}

outcome<std::string> read_text_file(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return make_failure(ec::validation_error,
                        "cannot read \"" + path + "\"");
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string variable_store_path(const daemon_config& config,
                                const env_lookup& env) {
  if (config.data_dir == ":memory:")
    return ":memory:";
  auto dir = config.data_dir;
  if (dir.empty()) {
    auto home = env("HOME");
    dir = home ? *home + "/.local/share/transitd" : "transitd-data";
  }
  return dir + "/variables.sqlite3";
}

namespace {

bool uses_demo(bool url_explicit, bool demo, const std::string& key) {
  if (url_explicit)
    return false;
  return demo || key.empty();
}

} // namespace

std::string station_data_directory(
  const daemon_config& config, const env_lookup& env,
  const std::function<bool(const std::string&)>& exists) {
  if (!config.tfl_station_data.empty())
    return config.tfl_station_data;
  if (config.demo)
    return {};
  auto home = env("HOME");
  if (!home)
    return {};
  auto dir = *home + "/Downloads/TfL station data detailed";
  return exists(dir) ? dir : std::string{};
}

bool routing_uses_demo(const daemon_config& config) {
  return uses_demo(config.digitransit_routing_url_explicit, config.demo,
                   config.digitransit_api_key);
}

bool tfl_uses_demo(const daemon_config& config) {
  return uses_demo(config.tfl_url_explicit, config.demo, config.tfl_api_key);
}

bool geocoding_uses_demo(const daemon_config& config) {
  return uses_demo(config.digitransit_geocoding_url_explicit, config.demo,
                   config.digitransit_api_key);
}

} // namespace transitd
