#include "transport/config.hpp"

#include "transport/tools.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace transitd {

namespace {

struct option_spec {
  const char* name;
  const char* value_name; // nullptr for switches
  const char* help;
};

const option_spec options[] = {
  {"port", "N", "TCP port of the MCP endpoint (default 8080)"},
  {"bind", "ADDR", "address to listen on (default 127.0.0.1)"},
  {"digitransit-routing-url", "URL",
   "Digitransit GraphQL endpoint (default "
   "https://api.digitransit.fi/routing/v2/hsl/gtfs/v1)"},
  {"digitransit-geocoding-url", "URL",
   "Pelias base, /search is appended (default "
   "https://api.digitransit.fi/geocoding/v1)"},
  {"tfl-url", "URL", "TfL API base (default https://api.tfl.gov.uk)"},
  {"tfl-station-data", "DIR", "TfL 'station data detailed' directory"},
  {"config", "FILE", "read settings from FILE (key = value lines)"},
  {"data-dir", "DIR",
   "where saved variables live (default ~/.local/share/transitd; "
   "':memory:' keeps nothing)"},
  {"demo", nullptr,
   "serve from the built-in mock upstream (every result says demo-data)"},
  {"http-threads", "N", "HTTP worker threads (default 128)"},
  {"max-body-bytes", "N", "largest accepted request body (default 1048576)"},
  {"allowed-hosts", "LIST",
   "comma-separated Host/Origin names accepted (default "
   "localhost,127.0.0.1,[::1])"},
  {"allowed-origins", "LIST",
   "comma-separated Origin host names or whole origins "
   "(https://app.example:8443) accepted from browsers (default "
   "localhost,127.0.0.1,[::1])"},
  {"auth-tokens-file", "FILE",
   "bearer tokens, one \"PRINCIPAL TOKEN\" line each; turns "
   "authentication on"},
  {"insecure", nullptr,
   "allow a non-loopback --bind without authentication (warned about)"},
  {"metrics-auth", "BOOL",
   "with authentication on, /metrics needs a token too (default true)"},
  {"tls-cert", "FILE", "PEM certificate (chain): serve HTTPS"},
  {"tls-key", "FILE", "PEM private key of --tls-cert"},
  {"max-header-bytes", "N",
   "largest request header block, names and values (default 16384)"},
  {"max-argument-bytes", "N",
   "largest tools/call arguments object, serialised (default 65536)"},
  {"read-timeout-s", "N",
   "a connection idle mid-request this long is closed (default 10)"},
  {"request-timeout-s", "N",
   "a request must arrive whole within this of its first byte (30)"},
  {"write-timeout-s", "N",
   "a client not reading its reply this long is dropped (default 10)"},
  {"keep-alive-timeout-s", "N",
   "idle keep-alive connections close after this (default 30)"},
  {"max-sessions", "N",
   "open MCP sessions at most; idle ones are evicted first (10000)"},
  {"session-idle-timeout-s", "N",
   "a session unused this long may be evicted (default 3600)"},
  {"log-format", "FORMAT", "text (default) or json: one object per line"},
  {"tool-timeout-ms", "N", "deadline of one tool call (default 10000)"},
  {"tool-timeouts-ms", "LIST",
   "per-tool deadlines, e.g. plan_trip=8000,get_departures=5000 (default "
   "plan_trip=8000)"},
  {"tool-tps", "LIST",
   "per-tool calls per second, e.g. planJourney=5,get_departures=200; 0 = "
   "unlimited (default planJourney=5,stationToilets=10)"},
  {"upstream-tps", "LIST",
   "per-upstream requests per second: digitransit-routing, "
   "digitransit-geocoding, tfl; 0 = unlimited (default 50,50,8; not "
   "applied to the demo upstream)"},
  {"upstream-max-attempts", "N",
   "attempts per upstream call, retries included (default 3)"},
  {"upstream-backoff-ms", "N",
   "first retry backoff ceiling; doubles per retry, full jitter (100)"},
  {"upstream-backoff-cap-ms", "N", "largest backoff ceiling (2000)"},
  {"breaker-failures", "N",
   "consecutive upstream failures that open its circuit breaker (5)"},
  {"breaker-cooldown-ms", "N",
   "how long an open breaker fails calls fast before a probe (10000)"},
  {"cache-departures-ttl-s", "N", "departures cache TTL, 0 = off (15)"},
  {"cache-stops-ttl-s", "N", "stop search cache TTL, 0 = off (3600)"},
  {"cache-geocoding-ttl-s", "N", "geocoding cache TTL, 0 = off (3600)"},
  {"cache-max-entries", "N", "entries per cache kind at most (10000)"},
  {"cache-max-bytes", "N", "bytes per cache kind at most (67108864)"},
  {"shutdown-grace-ms", "N",
   "on SIGTERM/SIGINT, how long calls in flight may finish (10000)"},
  {"upstream-timeout-ms", "N",
   "timeout of one upstream HTTP attempt (default 5000)"},
  {"http-workers", "N", "concurrent upstream requests per provider (16)"},
  {"scheduler-threads", "N", "CAF scheduler threads (default 2)"},
  {"plan-speculative-relax", "BOOL",
   "plan_trip sends its relaxed query in parallel (true, default) or only "
   "after a disrupted answer (false: saves upstream quota)"},
  {"plan-journey-tps", "N",
   "planJourney calls per second (same as tool-tps planJourney=N; 5)"},
  {"station-toilets-tps", "N",
   "stationToilets calls per second (same as tool-tps stationToilets=N; "
   "10)"},
  {"log-level", "LEVEL", "trace|debug|info|warn|error|critical|off (info)"},
  {"help", nullptr, "print this help"},
};

const option_spec* find_option(const std::string& name) {
  for (const auto& opt : options)
    if (name == opt.name)
      return &opt;
  return nullptr;
}

failure bad(const std::string& where, const std::string& what) {
  return make_failure(ec::validation_error, where + ": " + what);
}

std::optional<failure> parse_count(const std::string& where,
                                   const std::string& text, int64_t min,
                                   int64_t max, int64_t& out) {
  if (text.empty()
      || !std::all_of(text.begin(), text.end(),
                      [](char c) { return c >= '0' && c <= '9'; })
      || text.size() > 12)
    return bad(where, "expected a whole number, got \"" + text + "\"");
  auto value = std::stoll(text);
  if (value < min || value > max)
    return bad(where, "must be between " + std::to_string(min) + " and "
                        + std::to_string(max) + ", got " + text);
  out = value;
  return std::nullopt;
}

/// Parses "name=number,name=number" with names from `known`.
std::optional<failure> parse_map(const std::string& where,
                                 const std::string& text,
                                 const std::vector<std::string>& known,
                                 int64_t min, int64_t max,
                                 std::map<std::string, int64_t>& out) {
  std::stringstream in{text};
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty())
      continue;
    auto eq = item.find('=');
    if (eq == std::string::npos)
      return bad(where, "expected name=number, got \"" + item + "\"");
    auto name = item.substr(0, eq);
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string names;
      for (const auto& k : known)
        names += (names.empty() ? "" : ", ") + k;
      return bad(where, "unknown name \"" + name + "\" (known: " + names
                          + ")");
    }
    int64_t n = 0;
    if (auto f = parse_count(where + " " + name, item.substr(eq + 1), min, max,
                             n))
      return f;
    out[name] = n;
  }
  if (out.empty())
    return bad(where, "needs at least one name=number");
  return std::nullopt;
}

std::optional<failure> check_url(const std::string& where,
                                 const std::string& url) {
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
    return bad(where, "expected an http:// or https:// URL, got \"" + url
                        + "\"");
  if (url.find("://") + 3 >= url.size())
    return bad(where, "the URL \"" + url + "\" has no host");
  return std::nullopt;
}

/// Applies one setting; `where` names its source for messages.
std::optional<failure> apply(daemon_config& cfg, const std::string& key,
                             const std::string& value,
                             const std::string& where) {
  int64_t n = 0;
  if (key == "port") {
    if (auto f = parse_count(where, value, 0, 65535, n))
      return f;
    cfg.port = static_cast<int>(n);
  } else if (key == "bind") {
    if (value.empty())
      return bad(where, "needs an address");
    cfg.bind = value;
  } else if (key == "digitransit-routing-url") {
    if (auto f = check_url(where, value))
      return f;
    cfg.digitransit_routing_url = value;
    cfg.digitransit_routing_url_explicit = true;
  } else if (key == "digitransit-geocoding-url") {
    if (auto f = check_url(where, value))
      return f;
    cfg.digitransit_geocoding_url = value;
    cfg.digitransit_geocoding_url_explicit = true;
  } else if (key == "tfl-url") {
    if (auto f = check_url(where, value))
      return f;
    cfg.tfl_url = value;
    cfg.tfl_url_explicit = true;
  } else if (key == "tfl-station-data") {
    if (value.empty())
      return bad(where, "needs a directory");
    cfg.tfl_station_data = value;
  } else if (key == "data-dir") {
    if (value.empty())
      return bad(where, "needs a directory");
    cfg.data_dir = value;

  } else if (key == "auth-tokens-file" || key == "tls-cert"
             || key == "tls-key") {
    if (value.empty())
      return bad(where, "needs a file");
    (key == "auth-tokens-file" ? cfg.auth_tokens_file
     : key == "tls-cert"       ? cfg.tls_cert
                               : cfg.tls_key)
      = value;
  } else if (key == "max-header-bytes" || key == "max-argument-bytes") {
    if (auto f = parse_count(where, value, 1024, 64 * 1024 * 1024, n))
      return f;
    (key == "max-header-bytes" ? cfg.max_header_bytes
                               : cfg.max_argument_bytes)
      = static_cast<std::size_t>(n);
  } else if (key == "read-timeout-s" || key == "write-timeout-s"
             || key == "request-timeout-s" || key == "keep-alive-timeout-s") {
    if (auto f = parse_count(where, value, 1, 3600, n))
      return f;
    (key == "read-timeout-s"      ? cfg.read_timeout_s
     : key == "write-timeout-s"   ? cfg.write_timeout_s
     : key == "request-timeout-s" ? cfg.request_timeout_s
                                  : cfg.keep_alive_timeout_s)
      = static_cast<int>(n);
  } else if (key == "max-sessions") {
    if (auto f = parse_count(where, value, 1, 10000000, n))
      return f;
    cfg.max_sessions = static_cast<std::size_t>(n);
  } else if (key == "session-idle-timeout-s") {
    if (auto f = parse_count(where, value, 1, 86400 * 30, n))
      return f;
    cfg.session_idle_timeout_s = static_cast<int>(n);
  } else if (key == "log-format") {
    if (value != "text" && value != "json")
      return bad(where, "expected text or json, got \"" + value + "\"");
    cfg.log_format = value;
  } else if (key == "demo" || key == "plan-speculative-relax" || key == "insecure"
             || key == "metrics-auth") {
    bool flag;
    if (value == "true" || value == "1" || value == "yes")
      flag = true;
    else if (value == "false" || value == "0" || value == "no")
      flag = false;
    else
      return bad(where, "expected true or false, got \"" + value + "\"");
    (key == "demo"       ? cfg.demo
     : key == "insecure" ? cfg.insecure
     : key == "metrics-auth" ? cfg.metrics_auth
                             : cfg.plan_speculative_relax)
      = flag;
  } else if (key == "http-threads") {
    if (auto f = parse_count(where, value, 1, 4096, n))
      return f;
    cfg.http_threads = static_cast<std::size_t>(n);
  } else if (key == "max-body-bytes") {
    if (auto f = parse_count(where, value, 1024, 64 * 1024 * 1024, n))
      return f;
    cfg.max_body_bytes = static_cast<std::size_t>(n);
  } else if (key == "allowed-hosts" || key == "allowed-origins") {
    std::vector<std::string> names;
    std::stringstream in{value};
    std::string item;
    while (std::getline(in, item, ','))
      if (!item.empty())
        names.push_back(item);
    if (names.empty())
      return bad(where, key == "allowed-hosts"
                          ? "needs at least one host name"
                          : "needs at least one origin or host name");
    (key == "allowed-hosts" ? cfg.allowed_hosts : cfg.allowed_origins)
      = std::move(names);
  } else if (key == "tool-timeout-ms") {
    if (auto f = parse_count(where, value, 100, 600000, n))
      return f;
    cfg.tool_timeout_ms = static_cast<int32_t>(n);
  } else if (key == "tool-timeouts-ms") {
    std::map<std::string, int64_t> parsed;
    if (auto f = parse_map(where, value, mcp::tool_names(), 100, 600000,
                           parsed))
      return f;
    for (const auto& [name, ms] : parsed)
      cfg.tool_timeouts_ms[name] = static_cast<int32_t>(ms);
  } else if (key == "tool-tps" || key == "upstream-tps") {
    bool tools = key == "tool-tps";
    std::map<std::string, int64_t> parsed;
    if (auto f = parse_map(where, value,
                           tools ? mcp::tool_names() : known_upstream_names(),
                           0, 1000000, parsed))
      return f;
    for (const auto& [name, tps] : parsed)
      (tools ? cfg.tool_tps : cfg.upstream_tps)[name] = static_cast<double>(tps);
  } else if (key == "upstream-max-attempts") {
    if (auto f = parse_count(where, value, 1, 10, n))
      return f;
    cfg.upstream_max_attempts = static_cast<int32_t>(n);
  } else if (key == "upstream-backoff-ms" || key == "upstream-backoff-cap-ms"
             || key == "breaker-cooldown-ms" || key == "shutdown-grace-ms") {
    if (auto f = parse_count(where, value, 0, 600000, n))
      return f;
    auto v = static_cast<int32_t>(n);
    if (key == "upstream-backoff-ms")
      cfg.upstream_backoff_ms = v;
    else if (key == "upstream-backoff-cap-ms")
      cfg.upstream_backoff_cap_ms = v;
    else if (key == "breaker-cooldown-ms")
      cfg.breaker_cooldown_ms = v;
    else
      cfg.shutdown_grace_ms = v;
  } else if (key == "breaker-failures") {
    if (auto f = parse_count(where, value, 1, 1000, n))
      return f;
    cfg.breaker_failures = static_cast<int32_t>(n);
  } else if (key == "cache-departures-ttl-s" || key == "cache-stops-ttl-s"
             || key == "cache-geocoding-ttl-s") {
    if (auto f = parse_count(where, value, 0, 86400 * 7, n))
      return f;
    auto v = static_cast<int32_t>(n);
    if (key == "cache-departures-ttl-s")
      cfg.cache_departures_ttl_s = v;
    else if (key == "cache-stops-ttl-s")
      cfg.cache_stops_ttl_s = v;
    else
      cfg.cache_geocoding_ttl_s = v;
  } else if (key == "cache-max-entries" || key == "cache-max-bytes") {
    if (auto f = parse_count(where, value, 0, int64_t{1} << 40, n))
      return f;
    (key == "cache-max-entries" ? cfg.cache_max_entries : cfg.cache_max_bytes)
      = static_cast<std::size_t>(n);
  } else if (key == "upstream-timeout-ms") {
    if (auto f = parse_count(where, value, 50, 600000, n))
      return f;
    cfg.upstream_timeout_ms = static_cast<int32_t>(n);
  } else if (key == "http-workers") {
    if (auto f = parse_count(where, value, 1, 1024, n))
      return f;
    cfg.http_workers = static_cast<std::size_t>(n);
  } else if (key == "scheduler-threads") {
    if (auto f = parse_count(where, value, 1, 256, n))
      return f;
    cfg.scheduler_threads = static_cast<std::size_t>(n);
  } else if (key == "station-toilets-tps" || key == "plan-journey-tps") {
    if (auto f = parse_count(where, value, 1, 100000, n))
      return f;
    cfg.tool_tps[key == "plan-journey-tps" ? "planJourney" : "stationToilets"]
      = static_cast<double>(n);
  } else if (key == "log-level") {
    static const char* levels[] = {"trace", "debug", "info",    "warn",
                                   "error", "critical", "off"};
    if (std::none_of(std::begin(levels), std::end(levels),
                     [&](const char* l) { return value == l; }))
      return bad(where, "expected one of trace, debug, info, warn, error, "
                        "critical, off; got \"" + value + "\"");
    cfg.log_level = value;
  } else {
    return bad(where, "unknown setting");
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

std::optional<failure> apply_file(daemon_config& cfg, const std::string& path,
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
    if (key == "config" || key == "help" || find_option(key) == nullptr)
      return bad(where, "unknown setting \"" + key + "\"");
    if (auto f = apply(cfg, key, value, where + " (" + written + ")"))
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
  std::string out = "usage: transitd [options]\n\noptions (the same keys, "
                    "without dashes, work in a --config file):\n";
  for (const auto& opt : options) {
    std::string left = std::string{"  --"} + opt.name;
    if (opt.value_name)
      left += std::string{" "} + opt.value_name;
    if (left.size() < 34)
      left.resize(34, ' ');
    else
      left += "\n" + std::string(34, ' ');
    out += left + opt.help + "\n";
  }
  out += "\nenvironment:\n"
         "  DIGITRANSIT_API_KEY   Digitransit subscription key\n"
         "  TFL_API_KEY           TfL app_key\n"
         "\nprecedence: defaults < config file < flags. Without a key and an "
         "explicit URL,\na provider runs on the built-in demo upstream.\n";
  return out;
}

outcome<config_request> parse_config(const std::vector<std::string>& args,
                                     const env_lookup& env,
                                     const file_reader& read_file) {
  // Pass 1: split flags into (key, value) pairs and find --config.
  std::vector<std::pair<std::string, std::string>> flags;
  config_request request;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& arg = args[i];
    if (arg.rfind("--", 0) != 0)
      return bad(arg, "unexpected argument (options start with --)");
    auto body = arg.substr(2);
    std::optional<std::string> value;
    if (auto eq = body.find('='); eq != std::string::npos) {
      value = body.substr(eq + 1);
      body = body.substr(0, eq);
    }
    const auto* opt = find_option(body);
    if (opt == nullptr)
      return bad("--" + body, "unknown option (see --help)");
    if (opt->value_name == nullptr) {
      if (value && body != "demo" && body != "insecure")
        return bad("--" + body, "takes no value");
      flags.emplace_back(body, value.value_or("true"));
      continue;
    }
    if (!value) {
      if (i + 1 >= args.size())
        return bad("--" + body, std::string{"needs a value ("}
                                  + opt->value_name + ")");
      value = args[++i];
    }
    flags.emplace_back(body, *value);
  }
  auto& cfg = request.config;
  for (const auto& [key, value] : flags)
    if (key == "help")
      request.help = true;
  if (request.help)
    return request;
  for (const auto& [key, value] : flags) {
    if (key != "config")
      continue;
    auto text = read_file(value);
    if (!text)
      return bad("--config", text.error().message);
    if (auto f = apply_file(cfg, value, *text))
      return *f;
  }
  for (const auto& [key, value] : flags) {
    if (key == "config")
      continue;
    if (auto f = apply(cfg, key, value, "--" + key))
      return *f;
  }
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
  if (cfg.tls_cert.empty() != cfg.tls_key.empty())
    return bad(cfg.tls_cert.empty() ? "--tls-key" : "--tls-cert",
               "TLS needs both --tls-cert and --tls-key");
  if (exposed_without_auth(cfg) && !cfg.insecure)
    return bad("--bind " + cfg.bind,
               "is reachable from other hosts: give --auth-tokens-file "
               "FILE, or --insecure to serve without authentication");
  return request;
}

bool exposed_without_auth(const daemon_config& cfg) {
  return !cfg.tokens && !is_loopback_address(cfg.bind);
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
