#include "transitd/providers/mock/mock_upstream.hpp"

#include <algorithm>
#include <chrono>
#include <sstream>

#include <date/date.h>
#include <stdexcept>

#include <httplib.h>
#include <sys/socket.h>

#include "transitd/providers/mock/departures_generator.hpp"
#include "transitd/providers/mock/geocoding_generator.hpp"
#include "transitd/providers/mock/alerts_generator.hpp"
#include "transitd/providers/mock/plan_generator.hpp"
#include "transitd/providers/mock/stops_generator.hpp"
#include "transitd/providers/mock/london_generator.hpp"
#include "transitd/providers/mock/tfl_generator.hpp"
#include "transitd/net/connection_server.hpp"

namespace json = boost::json;

namespace transitd::mock {

namespace {

const char* const known_faults[] = {"none",      "http500",   "http503",
                                    "http429",   "hang",      "malformed",
                                    "truncated", "graphql-error"};

std::optional<int64_t> as_int(const json::value& v) {
  if (v.is_int64())
    return v.get_int64();
  if (v.is_uint64())
    return static_cast<int64_t>(v.get_uint64());
  if (v.is_double())
    return static_cast<int64_t>(v.get_double());
  return std::nullopt;
}

void send_json(httplib::Response& res, int status, const json::value& body) {
  res.status = status;
  res.set_content(json::serialize(body), "application/json");
}

} // namespace

bool parse_fault_settings(const json::object& body, fault_settings& out,
                          std::string& problem) {
  fault_settings result;
  for (const auto& item : body) {
    auto key = std::string_view{item.key()};
    const auto& v = item.value();
    if (key == "planDisruption") {
      if (!v.is_string() || (v.get_string() != "none"
                             && v.get_string() != "delay"
                             && v.get_string() != "cancel")) {
        problem = "planDisruption must be none, delay or cancel";
        return false;
      }
      result.plan_disruption = std::string{v.get_string()};
    } else if (key == "fault") {
      if (!v.is_string()) {
        problem = "fault must be a string";
        return false;
      }
      result.fault = std::string{v.get_string()};
      bool known = false;
      for (const char* f : known_faults)
        known = known || result.fault == f;
      if (!known) {
        problem = "unknown fault \"" + result.fault + "\"";
        return false;
      }
    } else if (key == "match") {
      if (!v.is_string()) {
        problem = "match must be a string";
        return false;
      }
      result.match = std::string{v.get_string()};
    } else if (key == "errorRate") {
      if (!v.is_number()) {
        problem = "errorRate must be a number in 0..1";
        return false;
      }
      result.error_rate = v.to_number<double>();
      if (result.error_rate < 0 || result.error_rate > 1) {
        problem = "errorRate must be a number in 0..1";
        return false;
      }
    } else if (key == "latencyMs" || key == "faultCount" || key == "retryAfter"
               || key == "hangMs" || key == "confidenceScale") {
      auto n = as_int(v);
      if (!n) {
        problem = std::string{key} + " must be an integer";
        return false;
      }
      auto value = static_cast<int>(*n);
      if (key == "latencyMs")
        result.latency_ms = value;
      else if (key == "faultCount")
        result.fault_count = value;
      else if (key == "retryAfter")
        result.retry_after = value;
      else if (key == "confidenceScale")
        result.confidence_scale = value == 100 ? 100 : 1;
      else
        result.hang_ms = value;
    } else {
      problem = "unknown field \"" + std::string{key} + "\"";
      return false;
    }
  }
  // A fault without a rate applies to every request.
  if (result.fault != "none" && !body.contains("errorRate"))
    result.error_rate = 1.0;
  out = result;
  return true;
}

namespace {

/// cpp-httplib's own timeouts (5 s), in our connection loop: an idle
/// keep-alive connection waits in one poll instead of waking every 10 ms,
/// which under a benchmark's hundreds of upstream connections would cost
/// the machine tens of thousands of wake-ups a second.
connection_limits mock_limits() {
  connection_limits limits;
  limits.read_timeout = std::chrono::seconds{5};
  limits.write_timeout = std::chrono::seconds{5};
  return limits;
}

} // namespace

mock_upstream::mock_upstream()
  : server_(std::make_unique<connection_server>(mock_limits(),
                                                std::chrono::seconds{5})) {
  auto& svr = *server_;
  svr.set_tcp_nodelay(true);
  svr.set_keep_alive_max_count(100000);
  svr.set_socket_options([](socket_t fd) {
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });

  svr.Post(R"(/routing/v2/([^/]+)/gtfs/v1)",
           [this](const httplib::Request& req, httplib::Response& res) {
             json::error_code ec;
             auto body = json::parse(req.body, ec);
             std::string operation = "invalid";
             if (!ec && body.is_object()) {
               const auto& obj = body.get_object();
               if (auto op = obj.find("operationName");
                   op != obj.end() && op->value().is_string())
                 operation = std::string{op->value().get_string()};
               else
                 operation = "anonymous";
             }
             serve(req, res, operation, true, [&]() -> std::optional<json::object> {
               if (ec || !body.is_object()) {
                 // OTP's answer to a body that is not a GraphQL request.
                 send_json(res, 400,
                           json::object{{"errors",
                                         json::array{json::object{
                                           {"message",
                                            "Invalid GraphQL request body"}}}}});
                 return std::nullopt;
               }
               return answer_graphql(body.get_object());
             });
           });

  svr.Get(R"(/geocoding/v1/search)",
          [this](const httplib::Request& req, httplib::Response& res) {
            serve(req, res, "search", false,
                  [&]() -> std::optional<json::object> {
                    search_query query;
                    query.text = req.get_param_value("text");
                    if (query.text.empty()) {
                      // Pelias: a 400 with geocoding.errors.
                      send_json(res, 400,
                                json::object{
                                  {"geocoding",
                                   json::object{{"errors",
                                                 json::array{
                                                   "invalid param 'text': "
                                                   "text length, must be >0"}}}},
                                  {"type", "FeatureCollection"},
                                  {"features", json::array{}}});
                      return std::nullopt;
                    }
                    if (req.has_param("size"))
                      query.size = std::atoi(req.get_param_value("size").c_str());
                    query.size = std::clamp(query.size, 1, 40);
                    if (req.has_param("lang"))
                      query.lang = req.get_param_value("lang");
                    if (req.has_param("layers")) {
                      std::string layers = req.get_param_value("layers");
                      std::size_t pos = 0;
                      while (pos <= layers.size()) {
                        auto comma = layers.find(',', pos);
                        auto item = layers.substr(pos, comma == std::string::npos
                                                         ? std::string::npos
                                                         : comma - pos);
                        if (!item.empty())
                          query.layers.push_back(item);
                        if (comma == std::string::npos)
                          break;
                        pos = comma + 1;
                      }
                    }
                    {
                      std::lock_guard<std::mutex> lock{mutex_};
                      query.confidence_scale = faults_.confidence_scale;
                    }
                    return generate_search(query);
                  });
          });

  svr.Get(R"(/Journey/JourneyResults/([^/]+)/to/([^/]+))",
          [this](const httplib::Request& req, httplib::Response& res) {
            serve(req, res, "JourneyResults", false,
                  [&]() -> std::optional<json::object> {
                    auto answer = generate_journey(
                      httplib::detail::decode_url(req.matches[1], true),
                      httplib::detail::decode_url(req.matches[2], true));
                    if (answer.status == 200)
                      return answer.body;
                    send_json(res, answer.status, answer.body);
                    return std::nullopt;
                  });
          });

  // TfL's StopPoint, Arrivals and Line Status (providers/tfl_network).
  auto now_s = [] {
    return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
  };
  auto send_london = [this](const httplib::Request& req,
                            httplib::Response& res, const char* operation,
                            const std::function<london_answer()>& make) {
    serve(req, res, operation, false, [&]() -> std::optional<json::object> {
      auto answer = make();
      send_json(res, answer.status, answer.body);
      return std::nullopt;
    });
  };
  svr.Get(R"(/StopPoint/([^/]+)/Arrivals)",
          [send_london, now_s](const httplib::Request& req,
                               httplib::Response& res) {
            send_london(req, res, "Arrivals", [&] {
              std::vector<std::string> ids;
              std::string all
                = httplib::detail::decode_url(req.matches[1], true);
              std::size_t pos = 0;
              while (pos <= all.size()) {
                auto comma = all.find(',', pos);
                auto id = all.substr(pos, comma == std::string::npos
                                            ? std::string::npos
                                            : comma - pos);
                if (!id.empty())
                  ids.push_back(id);
                if (comma == std::string::npos)
                  break;
                pos = comma + 1;
              }
              return generate_arrivals(ids, now_s());
            });
          });
  svr.Get(R"(/StopPoint/([^/]+))",
          [send_london](const httplib::Request& req, httplib::Response& res) {
            send_london(req, res, "StopPoint", [&] {
              return generate_stop_point(
                httplib::detail::decode_url(req.matches[1], true));
            });
          });
  svr.Get(R"(/Line/([^/]+)/Route/Sequence/([^/]+))",
          [send_london](const httplib::Request& req, httplib::Response& res) {
            send_london(req, res, "RouteSequence", [&] {
              return generate_route_sequence(
                httplib::detail::decode_url(req.matches[1], true));
            });
          });
  svr.Get(R"(/Line/Mode/([^/]+)/Status)",
          [send_london, now_s](const httplib::Request& req,
                               httplib::Response& res) {
            send_london(req, res, "LineStatus", [&] {
              return generate_line_status(
                httplib::detail::decode_url(req.matches[1], true), now_s());
            });
          });

  svr.Post("/__mock/faults",
           [this](const httplib::Request& req, httplib::Response& res) {
             json::error_code ec;
             auto body = json::parse(req.body, ec);
             fault_settings faults;
             std::string problem = "body must be a JSON object";
             if (ec || !body.is_object()
                 || !parse_fault_settings(body.get_object(), faults, problem)) {
               send_json(res, 400, json::object{{"error", problem}});
               return;
             }
             set_faults(faults);
             send_json(res, 200, json::object{{"ok", true}});
           });
  svr.Get("/__mock/stats",
          [this](const httplib::Request&, httplib::Response& res) {
            auto s = stats();
            json::object by_operation;
            for (const auto& [op, n] : s.by_operation)
              by_operation[op] = n;
            send_json(res, 200,
                      json::object{{"requests", s.requests},
                                   {"maxInFlight", s.max_in_flight},
                                   {"withSubscriptionKey",
                                    s.with_subscription_key},
                                   {"faultsInjected", s.faults_injected},
                                   {"latencyAddedMs", s.latency_added_ms},
                                   {"maxPerSecond", max_per_second(s)},
                                   {"byOperation", std::move(by_operation)}});
          });
  svr.Get("/__mock/last-request",
          [this](const httplib::Request&, httplib::Response& res) {
            auto last = last_request();
            if (!last) {
              send_json(res, 404,
                        json::object{{"error", "no upstream request yet"}});
              return;
            }
            res.set_header("X-Mock-Method", last->method);
            res.set_header("X-Mock-Target", last->target);
            res.set_content(last->body, "application/octet-stream");
          });
  svr.Post("/__mock/reset",
           [this](const httplib::Request&, httplib::Response& res) {
             reset();
             send_json(res, 200, json::object{{"ok", true}});
           });
}

json::object mock_upstream::answer_graphql(const json::object& request) {
  const json::object* vars = nullptr;
  if (auto v = request.find("variables");
      v != request.end() && v->value().is_object())
    vars = &v->value().get_object();
  std::string query_text;
  if (auto q = request.find("query");
      q != request.end() && q->value().is_string())
    query_text = std::string{q->value().get_string()};
  static const json::object no_variables;
  const auto& v = vars != nullptr ? *vars : no_variables;
  auto str = [&](const char* key, std::string fallback) {
    auto it = v.find(key);
    return it != v.end() && it->value().is_string()
             ? std::string{it->value().get_string()}
             : fallback;
  };
  auto num = [&](const char* key, double fallback) {
    auto it = v.find(key);
    return it != v.end() && it->value().is_number()
             ? it->value().to_number<double>()
             : fallback;
  };
  if (query_text.find("query StopPlace") != std::string::npos)
    return generate_stop_place(str("id", ""));
  if (query_text.find("query LineRoutes") != std::string::npos) {
    std::string id;
    if (auto ids = v.find("ids"); ids != v.end() && ids->value().is_array()
        && !ids->value().get_array().empty()
        && ids->value().get_array()[0].is_string())
      id = std::string{ids->value().get_array()[0].get_string()};
    bool at_stop = false;
    if (auto a = v.find("atStop"); a != v.end() && a->value().is_bool())
      at_stop = a->value().get_bool();
    return generate_routes(str("name", ""), id,
                           at_stop ? str("stop", "") : std::string{});
  }
  if (query_text.find("query TripCalls") != std::string::npos)
    return generate_trip(str("id", ""), str("date", ""),
                         str("language", "fi"));
  if (query_text.find("stoptimesWithoutPatterns") != std::string::npos) {
    departures_query query;
    query.stop_id = str("id", "");
    query.language = str("language", "fi");
    auto now = std::chrono::duration_cast<std::chrono::seconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
    query.start_time = static_cast<int64_t>(num("startTime",
                                                static_cast<double>(now)));
    query.time_range = static_cast<int32_t>(num("timeRange", 86400));
    query.number_of_departures
      = static_cast<int32_t>(num("numberOfDepartures", 5));
    return generate_departures(query);
  }
  if (query_text.find("nearest(") != std::string::npos) {
    nearest_query query;
    query.lat = num("lat", 60.17);
    query.lon = num("lon", 24.94);
    query.max_distance = static_cast<int32_t>(num("maxDistance", 2000));
    query.max_results = static_cast<int32_t>(num("maxResults", 20));
    if (auto m = v.find("modes"); m != v.end() && m->value().is_array())
      for (const auto& mode : m->value().get_array())
        if (mode.is_string())
          query.modes.emplace_back(mode.get_string());
    query.language = str("language", "fi");
    return generate_nearest(query);
  }
  if (query_text.find("fragment AlertFields") != std::string::npos) {
    alerts_query query;
    query.kind = query_text.find("stop(id:") != std::string::npos ? "stop"
                 : query_text.find("route(id:") != std::string::npos ? "route"
                 : query_text.find("trip(id:") != std::string::npos  ? "trip"
                                                                     : "feed";
    query.id = str("id", "");
    query.now = std::chrono::duration_cast<std::chrono::seconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
    return generate_alerts(query);
  }
  if (query_text.find("planConnection(") != std::string::npos) {
    plan_query query;
    auto coordinate_of = [&](const char* which, double& lat, double& lon) {
      auto it = v.find(which);
      if (it == v.end() || !it->value().is_object())
        return;
      const auto* c = it->value().get_object().if_contains("location");
      if (c == nullptr || !c->is_object())
        return;
      const auto* xy = c->get_object().if_contains("coordinate");
      if (xy == nullptr || !xy->is_object())
        return;
      const auto& o = xy->get_object();
      if (const auto* la = o.if_contains("latitude"); la && la->is_number())
        lat = la->to_number<double>();
      if (const auto* lo = o.if_contains("longitude"); lo && lo->is_number())
        lon = lo->to_number<double>();
    };
    coordinate_of("origin", query.from_lat, query.from_lon);
    coordinate_of("destination", query.to_lat, query.to_lon);
    query.time = std::chrono::duration_cast<std::chrono::seconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
    if (auto dt = v.find("dateTime");
        dt != v.end() && dt->value().is_object()) {
      const auto& o = dt->value().get_object();
      for (const char* key : {"earliestDeparture", "latestArrival"})
        if (const auto* t = o.if_contains(key); t && t->is_string()) {
          std::istringstream in{std::string{t->get_string()}};
          date::sys_seconds instant;
          in >> date::parse("%FT%T", instant);
          if (!in.fail())
            query.time = instant.time_since_epoch().count();
          query.arrive_by = std::string{key} == "latestArrival";
        }
    }
    query.first = static_cast<int32_t>(num("first", 5));
    query.walk_reluctance = num("walkReluctance", 2.0);
    query.max_transfers = static_cast<int32_t>(num("maximumTransfers", 4));
    if (auto w = v.find("wheelchair"); w != v.end() && w->value().is_bool())
      query.wheelchair = w->value().get_bool();
    {
      std::lock_guard<std::mutex> lock{mutex_};
      query.disruption = faults_.plan_disruption;
    }
    return generate_plan(query);
  }
  return json::object{
    {"errors",
     json::array{json::object{
       {"message", "Validation error: the mock upstream does not serve "
                   "this query"},
       {"extensions", json::object{{"classification", "ValidationError"}}}}}}};
}

void mock_upstream::serve(const httplib::Request& req, httplib::Response& res,
                          const std::string& operation, bool graphql,
                          const std::function<std::optional<json::object>()>&
                            produce) {
  // The added latency and a hang hold the request: no request deadline
  // while they do.
  handler_scope handling;
  in_flight_.fetch_add(1);
  {
    std::lock_guard<std::mutex> guard{mutex_};
    stats_.max_in_flight = std::max(stats_.max_in_flight, in_flight_.load());
  }
  struct leave {
    std::atomic<int64_t>& n;
    ~leave() {
      n.fetch_sub(1);
    }
  } guard{in_flight_};
  record(req, operation,
         req.has_header("digitransit-subscription-key")
           || req.has_header("app_key"));
  fault_settings faults;
  {
    std::lock_guard<std::mutex> lock{mutex_};
    faults = faults_;
  }
  if (faults.latency_ms > 0) {
    if (!wait_or_stop(faults.latency_ms))
      return;
    std::lock_guard<std::mutex> lock{mutex_};
    stats_.latency_added_ms += faults.latency_ms;
  }
  auto fault = faults.match.empty()
                  || req.body.find(faults.match) != std::string::npos
                ? next_fault()
                : std::string{"none"};
  if (fault == "http500" || fault == "http503") {
    res.status = fault == "http500" ? 500 : 503;
    res.set_content("<html><body>Service Unavailable</body></html>",
                    "text/html");
    return;
  }
  if (fault == "http429") {
    res.status = 429;
    res.set_header("Retry-After", std::to_string(faults.retry_after));
    res.set_content("{\"statusCode\":429,\"message\":\"Rate limit is "
                    "exceeded. Try again later.\"}",
                    "application/json");
    return;
  }
  if (fault == "hang") {
    wait_or_stop(faults.hang_ms);
    res.status = 504;
    return;
  }
  if (fault == "malformed") {
    res.set_content("{\"data\": {\"stop\": [unterminated",
                    "application/json");
    return;
  }
  if (fault == "graphql-error") {
    if (graphql) {
      json::object error{
        {"message", "Exception while fetching data (/stop) : upstream "
                    "timetable unavailable"},
        {"locations", json::array{json::object{{"line", 2}, {"column", 3}}}},
        {"extensions",
         json::object{{"classification", "DataFetchingException"}}}};
      send_json(res, 200, json::object{{"errors", json::array{error}},
                                       {"data", nullptr}});
    } else {
      send_json(res, 500,
                json::object{{"geocoding",
                              json::object{{"errors",
                                            json::array{"elasticsearch "
                                                        "unavailable"}}}}});
    }
    return;
  }
  auto produced = produce();
  if (!produced)
    return; // the producer answered itself (a 400)
  auto text = json::serialize(*produced);
  if (fault == "truncated")
    text.resize(text.size() / 2);
  res.set_content(text, "application/json");
}

mock_upstream::~mock_upstream() {
  stop();
}

int mock_upstream::start(const std::string& host, int port,
                         std::size_t threads) {
  server_->new_task_queue = [threads] {
    return new httplib::ThreadPool(threads);
  };
  port_ = port == 0 ? server_->bind_to_any_port(host.c_str())
                    : (server_->bind_to_port(host.c_str(), port) ? port : -1);
  if (port_ < 0)
    throw std::runtime_error("mock upstream cannot listen on " + host + ":"
                             + std::to_string(port));
  thread_ = std::thread{[this] { server_->listen_after_bind(); }};
  while (!server_->is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds{1});
  return port_;
}

void mock_upstream::stop() {
  stopping_ = true;
  if (server_)
    server_->shut_down();
  if (thread_.joinable())
    thread_.join();
}

std::string mock_upstream::base_url() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

std::string mock_upstream::routing_url() const {
  return base_url() + "/routing/v2/hsl/gtfs/v1";
}

std::string mock_upstream::geocoding_url() const {
  return base_url() + "/geocoding/v1";
}

void mock_upstream::set_faults(fault_settings faults) {
  std::lock_guard<std::mutex> guard{mutex_};
  faults_left_ = faults.fault_count;
  faults_ = std::move(faults);
}

int64_t max_per_second(const mock_stats& stats) {
  int64_t most = 0;
  for (const auto& [second, n] : stats.per_second)
    most = std::max(most, n);
  return most;
}

mock_stats mock_upstream::stats() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return stats_;
}

std::optional<recorded_request> mock_upstream::last_request() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return last_request_;
}

void mock_upstream::reset() {
  std::lock_guard<std::mutex> guard{mutex_};
  stats_ = mock_stats{};
  last_request_.reset();
  faults_ = fault_settings{};
  faults_left_ = -1;
  sequence_ = 0;
}

std::string mock_upstream::next_fault() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (faults_.fault == "none" || faults_left_ == 0)
    return "none";
  auto n = sequence_++;
  // Deterministic: request n gets the fault when its hash falls below the
  // rate, so the same run injects the same faults.
  auto draw = static_cast<double>(stable_hash(std::to_string(n)) % 10000)
              / 10000.0;
  if (faults_.error_rate < 1.0 && draw >= faults_.error_rate)
    return "none";
  if (faults_left_ > 0)
    --faults_left_;
  ++stats_.faults_injected;
  return faults_.fault;
}

void mock_upstream::record(const httplib::Request& req,
                           const std::string& operation, bool has_key) {
  recorded_request last{req.method, req.target, req.body};
  std::lock_guard<std::mutex> guard{mutex_};
  last_request_ = std::move(last);
  ++stats_.requests;
  ++stats_.by_operation[operation];
  auto second = std::chrono::duration_cast<std::chrono::seconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
  ++stats_.per_second[second];
  while (stats_.per_second.size() > 3600)
    stats_.per_second.erase(stats_.per_second.begin());
  if (has_key)
    ++stats_.with_subscription_key;
}

bool mock_upstream::wait_or_stop(int milliseconds) {
  auto until = std::chrono::steady_clock::now()
               + std::chrono::milliseconds{milliseconds};
  while (std::chrono::steady_clock::now() < until) {
    if (stopping_)
      return false;
    auto left = until - std::chrono::steady_clock::now();
    std::this_thread::sleep_for(
      std::min<std::chrono::steady_clock::duration>(
        left, std::chrono::milliseconds{10}));
  }
  return !stopping_;
}

} // namespace transitd::mock
