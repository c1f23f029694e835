#include "support/daemon_harness.hpp"

#include <algorithm>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <catch2/catch.hpp>
#include <httplib.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>


namespace json = boost::json;

namespace transitd::test {

std::pair<std::string, std::string>
write_self_signed_certificate(const std::string& directory) {
  auto* key = EVP_RSA_gen(2048);
  REQUIRE(key != nullptr);
  auto* cert = X509_new();
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
  X509_set_pubkey(cert, key);
  auto* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("localhost"),
                             -1, -1, 0);
  X509_set_issuer_name(cert, name);
  REQUIRE(X509_sign(cert, key, EVP_sha256()) > 0);
  auto cert_path = directory + "/cert.pem";
  auto key_path = directory + "/key.pem";
  auto* out = std::fopen(cert_path.c_str(), "w");
  REQUIRE(out != nullptr);
  PEM_write_X509(out, cert);
  std::fclose(out);
  out = std::fopen(key_path.c_str(), "w");
  REQUIRE(out != nullptr);
  PEM_write_PrivateKey(out, key, nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(out);
  X509_free(cert);
  EVP_PKEY_free(key);
  return {cert_path, key_path};
}

daemon_harness::daemon_harness(harness_options options) {
  mock_.start("127.0.0.1", 0, 32);
  // The daemon's own composition (transport/daemon), from the settings a
  // command line would give: live providers pointed at this mock, or the
  // embedded demo upstream.
  daemon_config cfg;
  cfg.port = 0;
  cfg.http_threads = options.http_threads;
  cfg.max_connections_per_client = options.max_connections_per_client;
  cfg.data_dir = ":memory:";
  cfg.scheduler_threads = 2;
  cfg.gateway_shards = 2;
  cfg.demo = options.demo;
  if (!options.demo) {
    cfg.digitransit_routing_url = options.routing_url.value_or(
      mock_.routing_url());
    cfg.digitransit_routing_url_explicit = true;
    cfg.digitransit_geocoding_url = mock_.geocoding_url();
    cfg.digitransit_geocoding_url_explicit = true;
    cfg.digitransit_api_key = "test-key";
    cfg.tfl_url = options.tfl_url.value_or(mock_.base_url());
    cfg.tfl_url_explicit = true;
    cfg.tfl_api_key = options.tfl_key;
  }
  cfg.upstream_timeout_ms = options.upstream_timeout_ms;
  cfg.tool_timeout_ms = options.tool_timeout_ms;
  cfg.tool_timeouts_ms.clear();
  cfg.http_workers = options.http_workers;
  cfg.upstream_max_attempts = options.max_attempts;
  cfg.breaker_min_calls = options.breaker_min_calls;
  cfg.breaker_cooldown_ms = static_cast<int32_t>(options.breaker_cooldown_ms);
  cfg.upstream_tps.clear();
  if (options.routing_tps > 0)
    cfg.upstream_tps["digitransit-routing"] = options.routing_tps;
  if (!options.cache) {
    cfg.cache_departures_ttl_s = 0;
    cfg.cache_stops_ttl_s = 0;
    cfg.cache_geocoding_ttl_s = 0;
  }
  cfg.plan_speculative_relax = options.speculative_relax;
  cfg.tool_tps = {{"planJourney", options.plan_journey_tps},
                  {"stationToilets", options.station_toilets_tps}};
  cfg.tfl_station_data = options.station_data;
  cfg.tokens = options.tokens;
  cfg.oauth_issuers = options.oauth_issuers;
  cfg.oauth_resource = options.oauth_resource;
  cfg.oauth_refresh_interval_s = options.oauth_refresh_interval_s;
  cfg.tls_cert = options.tls_cert;
  cfg.tls_key = options.tls_key;
  cfg.gtfs_feeds = options.gtfs_feeds;
  cfg.gtfs_rt_feeds = options.gtfs_rt_feeds;
  cfg.gtfs_rt_max_age_s = options.gtfs_rt_max_age_s;
  cfg.clock_start = options.clock_start;
  if (!options.digitransit_with_feeds) {
    cfg.digitransit_routing_url_explicit = false;
    cfg.digitransit_geocoding_url_explicit = false;
    cfg.digitransit_api_key.clear();
  }
  env_lookup no_environment = [](const std::string&) {
    return std::optional<std::string>{};
  };
  daemon_ = std::make_unique<transitd::daemon>(cfg, no_environment);
  port_ = daemon_->port();
  server_thread_ = std::thread{[this] { daemon_->run(); }};
  // Until it listens, stop_listening() would stop nothing and the join in
  // the destructor would wait forever.
  for (int i = 0; i < 5000 && !daemon_->running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds{1});
  REQUIRE(daemon_->running());
  // Feeds load on threads of their own: wait (generously) for them.
  for (const auto& slot : engine().feed_slots) {
    if (!options.wait_for_feeds)
      break;
    for (int i = 0; i < 60000 && !slot->status().loaded
                    && slot->status().error.empty();
         ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds{1});
    INFO("feed " << slot->name() << ": " << slot->status().error);
    REQUIRE(slot->status().loaded);
    bool realtime = std::any_of(
      options.gtfs_rt_feeds.begin(), options.gtfs_rt_feeds.end(),
      [&](const auto& f) {
        return realtime_feed_of(f.first).first == slot->name();
      });
    for (int i = 0; realtime && i < 60000 && slot->realtime_state().builds == 0;
         ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds{1});
    CHECK((!realtime || slot->realtime_state().builds > 0));
  }
}

daemon_harness::~daemon_harness() {
  daemon_->stop_listening();
  if (server_thread_.joinable())
    server_thread_.join();
  daemon_->stop();
  daemon_.reset();
  mock_.stop();
}

mock::mock_upstream& daemon_harness::mock() {
  auto* demo = daemon_->demo_upstream();
  return demo != nullptr ? *demo : mock_;
}

mcp::endpoint& daemon_harness::endpoint() {
  return daemon_->endpoint();
}

transitd::engine& daemon_harness::engine() {
  return daemon_->engine();
}

caf::actor_system& daemon_harness::system() {
  return daemon_->system();
}

std::string http_result::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string{} : it->second;
}

json::value http_result::json() const {
  return json::parse(body);
}

mcp_client::mcp_client(int port, bool tls)
  : client_(std::make_unique<httplib::Client>(
    (tls ? "https://127.0.0.1:" : "http://127.0.0.1:")
    + std::to_string(port))) {
  // The test's own self-signed certificate.
  client_->enable_server_certificate_verification(false);
  client_->set_keep_alive(true);
  client_->set_tcp_nodelay(true);
  client_->set_read_timeout(20, 0);
}

mcp_client::~mcp_client() = default;

namespace {

http_result to_result(const httplib::Result& res) {
  http_result out;
  if (!res)
    return out;
  out.status = res->status;
  out.body = res->body;
  for (const auto& [k, v] : res->headers)
    out.headers.emplace(k, v);
  return out;
}

/// The session header (when there is a session) and the bearer token.
httplib::Headers base_headers(const std::string& session_id,
                              const std::string& bearer) {
  httplib::Headers headers;
  if (!session_id.empty())
    headers.emplace("Mcp-Session-Id", session_id);
  if (!bearer.empty())
    headers.emplace("Authorization", "Bearer " + bearer);
  return headers;
}

} // namespace

http_result mcp_client::post(const std::string& body,
                             const std::map<std::string, std::string>& extra) {
  auto headers = base_headers(session_id, bearer);
  headers.emplace("Accept", "application/json, text/event-stream");
  std::string content_type = "application/json";
  for (const auto& [name, value] : extra) {
    if (name == "Content-Type")
      content_type = value;
    else
      headers.emplace(name, value);
  }
  return to_result(client_->Post("/mcp", headers, body, content_type.c_str()));
}

http_result mcp_client::post(const json::object& message,
                             const std::map<std::string, std::string>& extra) {
  return post(json::serialize(message), extra);
}

http_result mcp_client::get(const std::string& path) {
  return to_result(client_->Get(path.c_str(), base_headers({}, bearer)));
}

http_result mcp_client::del() {
  return to_result(client_->Delete("/mcp", base_headers(session_id, bearer)));
}

std::string mcp_client::initialize(const std::string& version) {
  json::object params{{"protocolVersion", version},
                      {"capabilities", json::object{}},
                      {"clientInfo", json::object{{"name", "transitd-tests"},
                                                  {"version", "1"}}}};
  auto res = post(json::object{{"jsonrpc", "2.0"},
                               {"id", next_id_++},
                               {"method", "initialize"},
                               {"params", params}});
  REQUIRE(res.status == 200);
  session_id = res.header("Mcp-Session-Id");
  REQUIRE(!session_id.empty());
  auto note = post(json::object{{"jsonrpc", "2.0"},
                                {"method", "notifications/initialized"}});
  REQUIRE(note.status == 202);
  return session_id;
}

json::object mcp_client::call_tool(const std::string& name,
                                   const json::object& arguments) {
  auto res = post(json::object{
    {"jsonrpc", "2.0"},
    {"id", next_id_++},
    {"method", "tools/call"},
    {"params", json::object{{"name", name}, {"arguments", arguments}}}});
  INFO(res.body);
  REQUIRE(res.status == 200);
  auto reply = res.json().as_object();
  REQUIRE(reply.contains("result"));
  return reply["result"].as_object();
}

json::object departures_args(const std::string& stop, int limit) {
  return json::object{
    {"stop", json::object{{"type", "id"}, {"value", stop}}},
    {"limit", limit}};
}

json::object trip_args(json::object extra) {
  json::object args{
    {"origin", json::object{{"type", "coords"},
                            {"value", json::object{{"lat", 60.1699},
                                                   {"lon", 24.9384}}}}},
    {"destination", json::object{{"type", "coords"},
                                 {"value", json::object{{"lat", 60.2055},
                                                        {"lon", 24.6559}}}}}};
  for (auto& item : extra)
    args[item.key()] = item.value();
  return args;
}

std::string exponent_number(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      ++i;
      continue;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      auto start = i;
      while (i < text.size()
             && std::string_view{"0123456789+-.eE"}.find(text[i])
                  != std::string_view::npos)
        ++i;
      auto number = text.substr(start, i - start);
      if (number.find_first_of("eE") != std::string_view::npos)
        return std::string{number};
      continue;
    }
    ++i;
  }
  return {};
}

json::object structured(const json::object& result) {
  INFO(json::serialize(result));
  REQUIRE(result.at("isError").as_bool() == false);
  const auto& content = result.at("structuredContent").as_object();
  // D2: the text block carries the same JSON.
  auto text = result.at("content").as_array().at(0).as_object().at("text");
  REQUIRE(json::parse(text.as_string()) == json::value(content));
  return content;
}

json::object tool_error(const json::object& result) {
  INFO(json::serialize(result));
  REQUIRE(result.at("isError").as_bool() == true);
  // D2: no structuredContent on errors.
  REQUIRE_FALSE(result.contains("structuredContent"));
  auto text = result.at("content").as_array().at(0).as_object().at("text");
  return json::parse(text.as_string()).as_object().at("error").as_object();
}

} // namespace transitd::test
