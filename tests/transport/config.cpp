#include "transitd/transport/config.hpp"

#include <map>

#include <catch2/catch.hpp>

using namespace transitd;

namespace {

struct inputs {
  std::map<std::string, std::string> env;
  std::map<std::string, std::string> files;

  outcome<config_request> parse(std::vector<std::string> args) const {
    return parse_config(
      args,
      [this](const std::string& name) -> std::optional<std::string> {
        auto it = env.find(name);
        if (it == env.end())
          return std::nullopt;
        return it->second;
      },
      [this](const std::string& path) -> outcome<std::string> {
        auto it = files.find(path);
        if (it == files.end())
          return make_failure(ec::validation_error,
                              "cannot read \"" + path + "\"");
        return it->second;
      });
  }
};

} // namespace

TEST_CASE("defaults are safe and documented", "[config]") {
  auto r = inputs{}.parse({});
  REQUIRE(r);
  CHECK(r->config.port == 8080);
  CHECK(r->config.bind == "127.0.0.1");
  CHECK(r->config.digitransit_routing_url
        == "https://api.digitransit.fi/routing/v2/hsl/gtfs/v1");
  CHECK(r->config.digitransit_geocoding_url
        == "https://api.digitransit.fi/geocoding/v1");
  CHECK(r->config.tfl_url == "https://api.tfl.gov.uk");
  CHECK_FALSE(r->config.demo);
}

TEST_CASE("flags in both spellings", "[config]") {
  auto r = inputs{}.parse({"--port", "9000", "--bind=0.0.0.0", "--insecure",
                           "--demo",
                           "--digitransit-routing-url",
                           "http://127.0.0.1:1/routing/v2/hsl/gtfs/v1",
                           "--tfl-station-data", "/data/tfl"});
  REQUIRE(r);
  CHECK(r->config.port == 9000);
  CHECK(r->config.bind == "0.0.0.0");
  CHECK(r->config.demo);
  CHECK(r->config.digitransit_routing_url_explicit);
  CHECK(r->config.tfl_station_data == "/data/tfl");
}

TEST_CASE("numbers are decimal, whatever their leading zeros", "[config]") {
  auto r = inputs{}.parse({"--port", "010", "--max-sessions", "0100"});
  REQUIRE(r);
  CHECK(r->config.port == 10);
  CHECK(r->config.max_sessions == 100);
  auto zero = inputs{}.parse({"--port", "000"});
  REQUIRE(zero);
  CHECK(zero->config.port == 0);
}

TEST_CASE("the plan_trip relax switch (D12)", "[config]") {
  auto on = inputs{}.parse({});
  CHECK(on->config.plan_speculative_relax);
  auto off = inputs{}.parse({"--plan-speculative-relax", "false"});
  REQUIRE(off);
  CHECK_FALSE(off->config.plan_speculative_relax);
  CHECK_FALSE(inputs{}.parse({"--plan-speculative-relax", "maybe"}));
}

TEST_CASE("bad flags and values name themselves", "[config][validation]") {
  struct bad_case {
    std::vector<std::string> args;
    const char* names;
  };
  for (const auto& [args, names] : std::vector<bad_case>{
         {{"--port", "http"}, "--port"},
         {{"--port", "0x50"}, "--port"},
         {{"--port", "1e3"}, "--port"},
         {{"--port", "-1"}, "--port"},
         {{"--port", "70000"}, "--port"},
         {{"--port"}, "--port"},
         {{"--colour"}, "--colour"},
         {{"--tfl-url", "api.tfl.gov.uk"}, "--tfl-url"},
         {{"--log-level", "chatty"}, "--log-level"},
         {{"stray"}, "stray"},
         {{"--config", "/missing.conf"}, "/missing.conf"},
       }) {
    auto r = inputs{}.parse(args);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains(names));
  }
}

TEST_CASE("precedence: defaults < file < flags; env gives keys only",
          "[config]") {
  inputs in;
  in.files["/etc/transitd.conf"] = "# comment\nport = 9100\n"
                                   "bind = \"127.0.0.2\"\n"
                                   "demo = true\n";
  in.env["DIGITRANSIT_API_KEY"] = "secret";
  in.env["TFL_API_KEY"] = "tfl-secret";
  auto from_file = in.parse({"--config", "/etc/transitd.conf"});
  REQUIRE(from_file);
  CHECK(from_file->config.port == 9100);
  CHECK(from_file->config.bind == "127.0.0.2");
  CHECK(from_file->config.demo);
  CHECK(from_file->config.digitransit_api_key == "secret");
  CHECK(from_file->config.tfl_api_key == "tfl-secret");
  // A flag wins over the file whatever the order on the command line.
  auto flag_wins = in.parse({"--port", "9200", "--config",
                             "/etc/transitd.conf"});
  REQUIRE(flag_wins);
  CHECK(flag_wins->config.port == 9200);
  CHECK(flag_wins->config.bind == "127.0.0.2");
}

TEST_CASE("config file errors name file, line and key", "[config]") {
  inputs in;
  in.files["/c"] = "port = 1\nprot = 2\n";
  auto typo = in.parse({"--config", "/c"});
  REQUIRE_FALSE(typo);
  CHECK_THAT(typo.error().message, Catch::Contains("/c:2"));
  CHECK_THAT(typo.error().message, Catch::Contains("prot"));
  in.files["/d"] = "just words\n";
  CHECK_FALSE(in.parse({"--config", "/d"}));
}

TEST_CASE("--help lists every option", "[config]") {
  auto r = inputs{}.parse({"--help"});
  REQUIRE(r);
  CHECK(r->help);
  auto text = config_usage();
  for (auto flag : {"--port", "--bind", "--digitransit-routing-url",
                    "--digitransit-geocoding-url", "--tfl-url",
                    "--tfl-station-data", "--config", "--demo",
                    "DIGITRANSIT_API_KEY", "TFL_API_KEY"})
    CHECK_THAT(text, Catch::Contains(flag));
  // With their defaults.
  CHECK_THAT(text, Catch::Contains("=8080") && Catch::Contains("=127.0.0.1"));
}

TEST_CASE("the embedded default: demo unless a key or URL is given",
          "[config][demo]") {
  daemon_config cfg;
  CHECK(routing_uses_demo(cfg)); // no key, no URL
  cfg.digitransit_api_key = "k";
  CHECK_FALSE(routing_uses_demo(cfg)); // key: the real service
  cfg.demo = true;
  CHECK(routing_uses_demo(cfg)); // --demo wins over the key
  cfg.digitransit_routing_url_explicit = true;
  CHECK_FALSE(routing_uses_demo(cfg)); // explicit flags always win
  daemon_config url_only;
  url_only.digitransit_routing_url_explicit = true;
  CHECK_FALSE(routing_uses_demo(url_only));
}

TEST_CASE("station data: flag, ~/Downloads default, or the demo set",
          "[config][station_toilets]") {
  auto env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "HOME")
      return std::string{"/home/u"};
    return std::nullopt;
  };
  auto downloads = std::string{"/home/u/Downloads/TfL station data detailed"};
  auto present = [&](const std::string& dir) { return dir == downloads; };
  auto absent = [](const std::string&) { return false; };
  daemon_config cfg;
  CHECK(station_data_directory(cfg, env, present) == downloads);
  CHECK(station_data_directory(cfg, env, absent).empty()); // demo set
  cfg.demo = true;
  CHECK(station_data_directory(cfg, env, present).empty());
  cfg.tfl_station_data = "/data/tfl"; // explicit flags always win
  CHECK(station_data_directory(cfg, env, absent) == "/data/tfl");
  // D20's name for the setting, in a config file; the flag still wins.
  inputs files;
  files.files["/t.conf"] = "tfl.station-data.detailed-dir = /srv/tfl\n";
  auto dotted = files.parse({"--config", "/t.conf"});
  REQUIRE(dotted);
  CHECK(dotted->config.tfl_station_data == "/srv/tfl");
  auto flag = files.parse({"--config", "/t.conf", "--tfl-station-data", "/x"});
  REQUIRE(flag);
  CHECK(flag->config.tfl_station_data == "/x");
  files.files["/e.conf"] = "tfl.station-data.detailed-dir =\n";
  auto empty = files.parse({"--config", "/e.conf"});
  REQUIRE_FALSE(empty);
  CHECK_THAT(empty.error().message,
             Catch::Contains("/e.conf:1 (tfl.station-data.detailed-dir)"));
  auto tps = inputs{}.parse({"--station-toilets-tps", "3"});
  REQUIRE(tps);
  CHECK(tps->config.tool_tps.at("stationToilets") == Approx(3));
}

TEST_CASE("TfL runs on the demo upstream without key and URL (D18)",
          "[config][demo]") {
  daemon_config cfg;
  CHECK(tfl_uses_demo(cfg));
  cfg.tfl_api_key = "k";
  CHECK_FALSE(tfl_uses_demo(cfg));
  daemon_config url_only;
  url_only.tfl_url_explicit = true; // no key: the calls answer UPSTREAM_ERROR
  CHECK_FALSE(tfl_uses_demo(url_only));
  auto tps = inputs{}.parse({"--plan-journey-tps", "7"});
  REQUIRE(tps);
  CHECK(tps->config.tool_tps.at("planJourney") == Approx(7));
}

TEST_CASE("resilience settings: per-tool and per-upstream maps, errors name "
          "the key",
          "[config][reliability]") {
  inputs in;
  in.files["/etc/t.conf"] = "tool-tps = get_departures=200\n"
                            "cache-departures-ttl-s = 30\n"
                            "breaker-min-calls = 7\n"
                            "breaker-failure-rate = 40\n";
  auto r = in.parse({"--config", "/etc/t.conf", "--tool-timeouts-ms",
                     "plan_trip=6000,find_stops=2000", "--upstream-tps",
                     "tfl=0", "--upstream-max-attempts", "2",
                     "--shutdown-grace-ms", "3000"});
  REQUIRE(r);
  const auto& c = r->config;
  CHECK(c.tool_tps.at("get_departures") == Approx(200));
  CHECK(c.tool_tps.at("planJourney") == Approx(5)); // defaults stay
  CHECK(c.tool_timeouts_ms.at("plan_trip") == 6000);
  CHECK(c.tool_timeouts_ms.at("find_stops") == 2000);
  CHECK(c.upstream_tps.at("tfl") == Approx(0));
  CHECK(c.upstream_tps.at("digitransit-routing") == Approx(50));
  CHECK(c.upstream_max_attempts == 2);
  CHECK(c.cache_departures_ttl_s == 30);
  CHECK(departures_cache_ttl_s(c) == 30);
  // A cached departure never outlives the realtime staleness limit.
  auto capped = c;
  capped.cache_departures_ttl_s = 3600;
  capped.gtfs_rt_max_age_s = 120;
  CHECK(departures_cache_ttl_s(capped) == 120);
  CHECK(c.breaker_min_calls == 7);
  CHECK(c.breaker_failure_rate == 40);
  CHECK(c.shutdown_grace_ms == 3000);
  // The defaults: plan_trip's contract deadline, the London TPS limits.
  auto d = inputs{}.parse({});
  REQUIRE(d);
  CHECK(d->config.tool_timeouts_ms.at("plan_trip") == 8000);
  CHECK(d->config.cache_stops_ttl_s == 3600);
  auto unknown_tool = inputs{}.parse({"--tool-tps", "get_departure=5"});
  REQUIRE_FALSE(unknown_tool);
  CHECK_THAT(unknown_tool.error().message,
             Catch::Contains("--tool-tps")
               && Catch::Contains("unknown name \"get_departure\""));
  auto bad_number = inputs{}.parse({"--upstream-tps", "tfl=fast"});
  REQUIRE_FALSE(bad_number);
  CHECK_THAT(bad_number.error().message, Catch::Contains("--upstream-tps tfl"));
  auto no_pair = inputs{}.parse({"--tool-timeouts-ms", "plan_trip"});
  REQUIRE_FALSE(no_pair);
  CHECK_THAT(no_pair.error().message, Catch::Contains("name=number"));
  auto too_many = inputs{}.parse({"--upstream-max-attempts", "50"});
  REQUIRE_FALSE(too_many);
  CHECK_THAT(too_many.error().message,
             Catch::Contains("--upstream-max-attempts"));
}

TEST_CASE("a non-loopback bind needs authentication or --insecure",
          "[config][security]") {
  inputs in;
  auto open = in.parse({"--bind", "0.0.0.0"});
  REQUIRE_FALSE(open);
  CHECK_THAT(open.error().message, Catch::Contains("--auth-tokens-file"));
  CHECK_THAT(open.error().message, Catch::Contains("--insecure"));
  auto insecure = in.parse({"--bind", "0.0.0.0", "--insecure"});
  REQUIRE(insecure);
  CHECK(insecure->config.insecure);
  CHECK_FALSE(insecure->config.tokens);
  // What the start and hourly warnings are about.
  CHECK(exposed_without_auth(insecure->config));
  in.files["/etc/transitd.tokens"] = "alice alice-token-0123456789\n";
  auto authed = in.parse({"--bind", "::", "--auth-tokens-file",
                          "/etc/transitd.tokens"});
  REQUIRE(authed);
  REQUIRE(authed->config.tokens);
  CHECK(authed->config.tokens->principal_of("alice-token-0123456789")
        == "alice");
  CHECK_FALSE(exposed_without_auth(authed->config));
  // Loopback needs neither.
  auto loopback = in.parse({"--bind", "127.0.0.1", "--insecure"});
  REQUIRE(loopback);
  CHECK_FALSE(exposed_without_auth(loopback->config));
}

TEST_CASE("tokens file and TLS settings are checked", "[config][security]") {
  inputs in;
  auto missing = in.parse({"--auth-tokens-file", "/nope"});
  REQUIRE_FALSE(missing);
  CHECK_THAT(missing.error().message, Catch::Contains("/nope"));
  in.files["/weak"] = "alice 123\n";
  auto weak = in.parse({"--auth-tokens-file", "/weak"});
  REQUIRE_FALSE(weak);
  CHECK_THAT(weak.error().message, Catch::Contains("/weak:1"));
  auto half = in.parse({"--tls-cert", "/c.pem"});
  REQUIRE_FALSE(half);
  CHECK_THAT(half.error().message, Catch::Contains("--tls-key"));
  auto both = in.parse({"--tls-cert", "/c.pem", "--tls-key", "/k.pem"});
  REQUIRE(both);
  CHECK(both->config.tls_cert == "/c.pem");
}

TEST_CASE("OAuth settings: issuers and resource together, https or "
          "loopback http; --stdio",
          "[config][security][oauth]") {
  inputs in;
  auto both = in.parse({"--oauth-issuer",
                        "https://as.example,https://as2.example/tenant",
                        "--oauth-resource", "https://transit.example/mcp",
                        "--bind", "0.0.0.0"});
  REQUIRE(both);
  CHECK(both->config.oauth_issuers.size() == 2);
  CHECK(both->config.oauth_resource == "https://transit.example/mcp");
  // OAuth is authentication: a public bind needs no --insecure.
  CHECK_FALSE(exposed_without_auth(both->config));
  auto half = in.parse({"--oauth-issuer", "https://as.example"});
  REQUIRE_FALSE(half);
  CHECK_THAT(half.error().message, Catch::Contains("--oauth-resource"));
  auto other_half = in.parse({"--oauth-resource", "https://t.example/mcp"});
  REQUIRE_FALSE(other_half);
  CHECK_THAT(other_half.error().message, Catch::Contains("--oauth-issuer"));
  auto plain = in.parse({"--oauth-issuer", "http://as.example",
                         "--oauth-resource", "https://t.example/mcp"});
  REQUIRE_FALSE(plain);
  CHECK_THAT(plain.error().message,
             Catch::Contains("must be https (http only on loopback)"));
  auto local = in.parse({"--oauth-issuer", "http://127.0.0.1:9000",
                         "--oauth-resource", "http://localhost:8080/mcp"});
  CHECK(local);
  // The parsed host must be loopback: a name that starts with "127." is not.
  auto lookalike = in.parse({"--oauth-issuer", "http://127.evil.example",
                             "--oauth-resource", "https://t.example/mcp"});
  REQUIRE_FALSE(lookalike);
  CHECK_THAT(lookalike.error().message,
             Catch::Contains("must be https (http only on loopback)"));
  auto query = in.parse({"--oauth-issuer", "https://as.example/?x=1",
                         "--oauth-resource", "https://t.example/mcp"});
  REQUIRE_FALSE(query);
  CHECK_THAT(query.error().message, Catch::Contains("query or fragment"));
  auto stdio = in.parse({"--stdio"});
  REQUIRE(stdio);
  CHECK(stdio->config.stdio);
}

TEST_CASE("hardening settings parse and name their bounds",
          "[config][security]") {
  auto r = inputs{}.parse(
    {"--allowed-origins", "https://app.example:8443,tools.example",
     "--max-header-bytes", "4096", "--max-argument-bytes", "2048",
     "--read-timeout-s", "5", "--write-timeout-s", "6",
     "--request-timeout-s", "8",
     "--keep-alive-timeout-s", "7", "--max-sessions", "100",
     "--session-idle-timeout-s", "60", "--log-format", "json",
     "--metrics-auth", "false"});
  REQUIRE(r);
  const auto& c = r->config;
  CHECK(c.allowed_origins
        == std::vector<std::string>{"https://app.example:8443",
                                    "tools.example"});
  CHECK(c.max_header_bytes == 4096);
  CHECK(c.max_argument_bytes == 2048);
  CHECK(c.read_timeout_s == 5);
  CHECK(c.write_timeout_s == 6);
  CHECK(c.request_timeout_s == 8);
  CHECK(c.keep_alive_timeout_s == 7);
  CHECK(c.max_sessions == 100);
  CHECK(c.session_idle_timeout_s == 60);
  CHECK(c.log_format == "json");
  CHECK_FALSE(c.metrics_auth);
  auto format = inputs{}.parse({"--log-format", "xml"});
  REQUIRE_FALSE(format);
  CHECK_THAT(format.error().message, Catch::Contains("--log-format"));
  CHECK_FALSE(inputs{}.parse({"--read-timeout-s", "0"}));
  CHECK_FALSE(inputs{}.parse({"--max-sessions", "0"}));
}

TEST_CASE("the environment overrides no setting", "[config]") {
  inputs in;
  // Whatever the environment holds, only the two API keys are read.
  for (const char* name : {"PORT", "TRANSITD_PORT", "TRANSITD_BIND", "BIND",
                           "TRANSITD_LOG_LEVEL", "LOG_LEVEL", "port"})
    in.env[name] = "9999";
  in.files["/c"] = "port = 9100\n";
  auto r = in.parse({"--config", "/c"});
  REQUIRE(r);
  CHECK(r->config.port == 9100);
  CHECK(r->config.bind == "127.0.0.1");
  CHECK(r->config.log_level == "info");
  CHECK(r->config.digitransit_api_key.empty());
}

TEST_CASE("switches take true or false only, and no setting is left empty",
          "[config][security]") {
  inputs in;
  for (const char* line : {"insecure =\n", "insecure = 7\n", "demo = on\n",
                           "metrics-auth = maybe\n", "bind =\n"}) {
    INFO(line);
    in.files["/s.conf"] = line;
    auto r = in.parse({"--config", "/s.conf"});
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("/s.conf:1"));
  }
  for (std::vector<std::string> args :
       {std::vector<std::string>{"--insecure=7"},
        std::vector<std::string>{"--demo=+"},
        std::vector<std::string>{"--bind=", "--insecure"}}) {
    auto r = in.parse(args);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains(args.front().substr(
                                    0, args.front().find('='))));
  }
  in.files["/ok.conf"] = "demo = yes\ninsecure = false\n";
  auto ok = in.parse({"--config", "/ok.conf"});
  REQUIRE(ok);
  CHECK(ok->config.demo);
  CHECK_FALSE(ok->config.insecure);
}

TEST_CASE("repeated maps and config files add up, in order", "[config]") {
  inputs in;
  in.files["/a.conf"] = "port = 9001\ntool-tps = get_departures=100\n";
  in.files["/b.conf"] = "port = 9002\n";
  auto r = in.parse({"--tool-tps", "find_stops=7", "--config", "/a.conf",
                     "--tool-tps", "plan_trip=3", "--config", "/b.conf"});
  REQUIRE(r);
  CHECK(r->config.port == 9002); // the later file wins
  CHECK(r->config.tool_tps.at("get_departures") == Approx(100));
  CHECK(r->config.tool_tps.at("find_stops") == Approx(7));
  CHECK(r->config.tool_tps.at("plan_trip") == Approx(3));
  // --help wins over a bad flag beside it.
  auto help = in.parse({"--port", "x", "--help"});
  REQUIRE(help);
  CHECK(help->help);
}

TEST_CASE("feeds: --gtfs NAME=SOURCE, merged sources, repeats, the file",
          "[config][gtfs]") {
  inputs in;
  in.files["t.conf"] = "gtfs = bart=/data/bart.zip\n";
  auto r = in.parse({"--gtfs", "nyc=/data/subway.zip,/data/bus",
                     "--gtfs=ct=/data/ct.zip", "--config", "t.conf",
                     "--gtfs-footpath-m", "300", "--provider-order",
                     "digitransit-first"});
  REQUIRE(r);
  const auto& feeds = r->config.gtfs_feeds;
  REQUIRE(feeds.size() == 3);
  // The file applies before the flags: its feed comes first.
  CHECK(feeds[0].first == "bart");
  CHECK(feeds[1].first == "nyc");
  CHECK(feeds[1].second
        == std::vector<std::string>{"/data/subway.zip", "/data/bus"});
  CHECK(feeds[2].first == "ct");
  CHECK(r->config.gtfs_footpath_m == 300);
  CHECK(r->config.provider_order == "digitransit-first");
  // The same name again replaces its sources.
  auto again = in.parse({"--gtfs", "nyc=/a.zip", "--gtfs", "nyc=/b.zip"});
  REQUIRE(again);
  REQUIRE(again->config.gtfs_feeds.size() == 1);
  CHECK(again->config.gtfs_feeds[0].second
        == std::vector<std::string>{"/b.zip"});
}

TEST_CASE("feeds: bad names, sources and orders name the flag",
          "[config][gtfs][validation]") {
  inputs in;
  auto refused = [&](std::vector<std::string> args, const char* says) {
    auto r = in.parse(std::move(args));
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ec::validation_error);
    CHECK_THAT(r.error().message, Catch::Contains(says));
  };
  refused({"--gtfs", "/data/subway.zip"}, "--gtfs");
  refused({"--gtfs", "ny c=/x.zip"}, "letters, digits");
  refused({"--gtfs", "nyc="}, "at least one SOURCE");
  refused({"--gtfs", "nyc=https://user:pw@example.org/gtfs.zip"},
          "--gtfs nyc");
  refused({"--gtfs-refresh-s", "-1"}, "--gtfs-refresh-s");
  refused({"--gtfs", "HSL=/x.zip"}, "Digitransit's stop ids");
  // A URL is a source like a path.
  auto url = in.parse({"--gtfs", "hsl=https://infopalvelut.storage.hsldev.com/"
                                 "gtfs/hsl.zip", "--gtfs-refresh-s", "3600"});
  REQUIRE(url);
  CHECK(url->config.gtfs_feeds[0].second[0].rfind("https://", 0) == 0);
  CHECK(url->config.gtfs_refresh_s == 3600);
  refused({"--provider-order", "random"}, "--provider-order");
  refused({"--gtfs-footpath-m", "5000"}, "--gtfs-footpath-m");
}

TEST_CASE("the clock flag takes an ISO 8601 instant", "[config][gtfs]") {
  inputs in;
  auto r = in.parse({"--clock", "2026-10-14T08:30:00-04:00"});
  REQUIRE(r);
  CHECK(r->config.clock_start == std::optional<int64_t>{1791981000});
  CHECK_FALSE(in.parse({})->config.clock_start);
  auto bad = in.parse({"--clock", "yesterday"});
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message,
             Catch::Contains("--clock") && Catch::Contains("yesterday"));
}

TEST_CASE("replica settings: store, Redis, replicas, shared limits, burst",
          "[config][replicas]") {
  inputs in;
  auto defaults = in.parse({});
  REQUIRE(defaults);
  CHECK(defaults->config.store.empty()); // SQLite in data-dir
  CHECK(defaults->config.redis.empty()); // everything local
  CHECK(defaults->config.replicas == 1);
  CHECK_FALSE(defaults->config.shared_tool_limits);
  CHECK(defaults->config.upstream_burst.empty()); // burst = the rate
  auto r = in.parse({"--store", "postgresql://transitd@db/transitd",
                     "--store-connections", "8", "--redis",
                     "redis://:pw@cache:6380/1", "--replicas", "3",
                     "--shared-tool-limits", "true", "--redis-prefix", "prod:",
                     "--upstream-burst", "digitransit-routing=1"});
  REQUIRE(r);
  CHECK(r->config.store == "postgresql://transitd@db/transitd");
  CHECK(r->config.store_connections == 8);
  CHECK(r->config.redis == "redis://:pw@cache:6380/1");
  CHECK(r->config.replicas == 3);
  CHECK(r->config.shared_tool_limits);
  CHECK(r->config.redis_prefix == "prod:");
  CHECK(r->config.upstream_burst.at("digitransit-routing") == 1);
  struct bad_case {
    std::vector<std::string> args;
    const char* names;
  };
  for (const auto& [args, names] : std::vector<bad_case>{
         {{"--store", "/var/lib/transitd/v.sqlite3"}, "postgresql://"},
         {{"--store", "mysql://h/db"}, "--store"},
         {{"--redis", "http://cache:6379"}, "redis://"},
         {{"--redis", "redis://cache/99"}, "database number"},
         {{"--replicas", "0"}, "--replicas"},
         {{"--store-connections", "0"}, "--store-connections"},
         {{"--upstream-burst", "digitransit-routing=0"}, "--upstream-burst"},
         {{"--upstream-burst", "nowhere=2"}, "nowhere"},
         {{"--redis-prefix", ""}, "--redis-prefix"},
       }) {
    auto bad = in.parse(args);
    REQUIRE_FALSE(bad);
    CHECK_THAT(bad.error().message, Catch::Contains(names));
  }
  // A password in a refused URL is not repeated back.
  auto secret = in.parse({"--redis", "redis://:hunter2@cache/99"});
  REQUIRE_FALSE(secret);
  CHECK(secret.error().message.find("hunter2") == std::string::npos);
}

TEST_CASE("realtime of one merged source: --gtfs-rt NAME~N, N within the "
          "feed's sources",
          "[config][gtfs]") {
  auto r = inputs{}.parse({"--gtfs", "nyc=bus.zip,subway.zip", "--gtfs-rt",
                           "nyc~2=subway-alerts.pb", "--gtfs-rt",
                           "nyc=all.pb", "--gtfs-rt", "nyc~2=subway-trips.pb"});
  REQUIRE(r);
  using sources = std::vector<std::string>;
  const auto& rt = r->config.gtfs_rt_feeds;
  REQUIRE(rt.size() == 2);
  CHECK(rt[0].first == "nyc~2");
  CHECK(rt[0].second == sources{"subway-alerts.pb", "subway-trips.pb"});
  CHECK(rt[1].first == "nyc");
  CHECK(realtime_feed_of("nyc~2") == std::pair<std::string, std::size_t>{
                                       "nyc", 2});
  CHECK(realtime_feed_of("nyc") == std::pair<std::string, std::size_t>{
                                     "nyc", 0});
  struct bad_case {
    const char* rt;
    const char* says;
  };
  for (const auto& [rt_flag, says] : std::vector<bad_case>{
         {"nyc~3=x.pb", "merges 2 source(s)"},
         {"nyc~0=x.pb", "counted from 1"},
         {"nyc~=x.pb", "counted from 1"},
         {"nyc~two=x.pb", "counted from 1"},
         {"nyc~1000=x.pb", "counted from 1"},
         {"bus~1=x.pb", "add --gtfs bus=SOURCE"},
       }) {
    auto bad = inputs{}.parse(
      {"--gtfs", "nyc=bus.zip,subway.zip", "--gtfs-rt", rt_flag});
    INFO(rt_flag);
    REQUIRE_FALSE(bad);
    CHECK_THAT(bad.error().message, Catch::Contains(says));
  }
  // Only realtime takes ~N: a feed's own name may not.
  auto named = inputs{}.parse({"--gtfs", "nyc~2=bus.zip"});
  REQUIRE_FALSE(named);
  CHECK_THAT(named.error().message, Catch::Contains("only letters"));
}
