#include "transitd/transport/departures_json.hpp"

#include <catch2/catch.hpp>

#include "transitd/transport/json_text.hpp"
#include "transitd/transport/mcp_protocol.hpp"

namespace json = boost::json;
using namespace transitd;

namespace {

outcome<get_departures_request> parse(const char* text) {
  return mcp::parse_get_departures(json::parse(text).as_object());
}

} // namespace

TEST_CASE("get_departures arguments map to the request",
          "[get_departures][json]") {
  auto r = parse(R"({"stop":{"type":"id","value":"HSL:1234"},
                     "windowMinutes":20,"limit":5,"language":"fi"})");
  REQUIRE(r);
  CHECK(r->stop.type == stop_ref::kind::id);
  CHECK(r->stop.value == "HSL:1234");
  CHECK(r->window_minutes == 20);
  CHECK(r->limit == 5);
  CHECK(r->language == "fi");
}

TEST_CASE("get_departures defaults follow the contract",
          "[get_departures][json]") {
  auto r = parse(R"({"stop":{"type":"label","value":"home"}})");
  REQUIRE(r);
  CHECK(r->stop.type == stop_ref::kind::label);
  CHECK(r->window_minutes == 30);
  CHECK(r->limit == 10);
  CHECK(r->language.empty()); // the provider's own (D24)
}

TEST_CASE("get_departures rejects malformed arguments by name",
          "[get_departures][json][validation]") {
  struct bad_case {
    const char* arguments;
    const char* names;
  };
  for (auto [arguments, names] : {
         bad_case{R"({})", "\"stop\""},
         bad_case{R"({"stop":"HSL:1"})", "\"stop\""},
         bad_case{R"({"stop":{"value":"HSL:1"}})", "\"stop.type\""},
         bad_case{R"({"stop":{"type":"name","value":"x"}})", "stop.type"},
         bad_case{R"({"stop":{"type":"id","value":"x","extra":1}})",
                  "\"stop.extra\""},
         bad_case{R"({"stop":{"type":"id","value":"x"},"limit":"5"})",
                  "\"limit\""},
         bad_case{R"({"stop":{"type":"id","value":"x"},"limit":2.5})",
                  "\"limit\""},
         bad_case{R"({"stop":{"type":"id","value":"x"},"window":5})",
                  "\"window\""},
       }) {
    auto r = parse(arguments);
    INFO(arguments);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ec::validation_error);
    CHECK_THAT(r.error().message, Catch::Contains(names));
  }
}

TEST_CASE("get_departures replies render the contract's fields",
          "[get_departures][json]") {
  get_departures_reply reply;
  reply.stop_id = "HSL:1";
  reply.realtime_used = true;
  reply.data_freshness = "2025-09-15T10:00:30Z";
  reply.correlation_id = "cid";
  departure d;
  d.line = "7";
  d.mode = transit_mode::tram;
  d.destination = "Pasila";
  d.scheduled_time = "2025-09-15T10:05:00Z";
  d.realtime_time = "2025-09-15T10:06:00Z";
  d.delay_seconds = 60;
  d.status = departure_status::on_time;
  reply.departures.push_back(d);
  auto out = mcp::to_json(reply);
  CHECK(out.at("stopId").as_string() == "HSL:1");
  CHECK_FALSE(out.contains("stopName"));
  CHECK_FALSE(out.contains("warnings"));
  const auto& first = out.at("departures").at(0).as_object();
  CHECK(first.at("mode").as_string() == "TRAM");
  CHECK(first.at("status").as_string() == "on_time");
  CHECK(first.at("delaySeconds").as_int64() == 60);
  CHECK_FALSE(first.contains("platform"));
}

TEST_CASE("the output schema requires what the reply always has",
          "[get_departures][json]") {
  auto spec = mcp::get_departures_spec();
  const auto& required = spec.output_schema.at("required").as_array();
  get_departures_reply reply;
  auto out = mcp::to_json(reply);
  for (const auto& name : required)
    CHECK(out.contains(name.as_string()));
  // Every field the renderer can emit is declared.
  reply.stop_name = "x";
  reply.warnings.push_back({"a", "b"});
  out = mcp::to_json(reply);
  const auto& props = spec.output_schema.at("properties").as_object();
  for (const auto& field : out)
    CHECK(props.contains(field.key()));
  CHECK(spec.input.schema().at("required").as_array().size() == 1);
}

TEST_CASE("get_departures replies are written straight to JSON text",
          "[get_departures][json]") {
  get_departures_reply reply;
  reply.stop_id = "HSL:1";
  reply.stop_name = "Kamppi \"A\"";
  reply.realtime_used = true;
  reply.data_freshness = "2025-09-15T10:00:30Z";
  reply.correlation_id = "cid";
  departure full;
  full.line = "7";
  full.mode = transit_mode::tram;
  full.destination = "Pasila\n\x01";
  full.scheduled_time = "2025-09-15T10:05:00Z";
  full.realtime_time = "2025-09-15T10:06:00Z";
  full.delay_seconds = -60;
  full.status = departure_status::delayed;
  full.platform = "2";
  full.trip_id = "t1";
  full.service_date = "2025-09-15";
  full.color = "00985F";
  full.text_color = "FFFFFF";
  departure bare;
  bare.line = "550";
  bare.destination = "It\xC3\xA4keskus";
  bare.scheduled_time = "2025-09-15T10:07:00Z";
  reply.departures = {full, bare};
  reply.warnings.push_back({"demo-data", "demo"});
  // Members in the contract's order, optional ones only when present,
  // strings escaped, integers plain.
  CHECK(mcp::to_json_text(reply)
        == R"({"stopId":"HSL:1","stopName":"Kamppi \"A\"","realtimeUsed":true,)"
           R"("dataFreshness":"2025-09-15T10:00:30Z","departures":[)"
           R"({"line":"7","mode":"TRAM","destination":"Pasila\n\u0001",)"
           R"("scheduledTime":"2025-09-15T10:05:00Z",)"
           R"("realtimeTime":"2025-09-15T10:06:00Z","delaySeconds":-60,)"
           R"("status":"delayed","platform":"2","tripId":"t1",)"
           R"("serviceDate":"2025-09-15","color":"00985F",)"
           R"("textColor":"FFFFFF"},)"
           R"({"line":"550","mode":"BUS","destination":"Itäkeskus",)"
           R"("scheduledTime":"2025-09-15T10:07:00Z",)"
           R"("status":"scheduled_only"}],"correlationId":"cid",)"
           R"("warnings":[{"code":"demo-data","message":"demo"}]})");
  // The object is the text, parsed; the text of the object is the text.
  CHECK(mcp::json_text(mcp::to_json(reply)) == mcp::to_json_text(reply));
  // A tool result carries it the same way either way.
  CHECK(mcp::call_response_text(1, mcp::text_outcome(mcp::to_json_text(reply)),
                                {})
        == mcp::call_response_text(
          1, mcp::success_outcome(mcp::to_json(reply)), {}));
}

TEST_CASE("a name that is not UTF-8 is kept byte for byte",
          "[get_departures][json]") {
  get_departures_reply reply;
  departure d;
  d.destination = "Pasila \xFF";
  reply.departures.push_back(d);
  auto text = mcp::to_json_text(reply);
  CHECK(text.find("Pasila \xFF") != std::string::npos);
  CHECK(std::string{mcp::to_json(reply)
                      .at("departures")
                      .at(0)
                      .at("destination")
                      .as_string()}
        == "Pasila \xFF");
}
