#include "transitd/transport/json_rpc.hpp"

#include <catch2/catch.hpp>

namespace json = boost::json;
using namespace transitd;

namespace {

json_rpc::message classify(const char* text) {
  return json_rpc::classify(json::parse(text).as_object());
}

} // namespace

TEST_CASE("requests, notifications and responses are told apart",
          "[json_rpc]") {
  auto request = classify(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
  CHECK(request.kind == json_rpc::message_kind::request);
  CHECK(request.method == "ping");
  auto string_id = classify(R"({"jsonrpc":"2.0","id":"a","method":"ping"})");
  CHECK(string_id.kind == json_rpc::message_kind::request);
  auto note = classify(
    R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  CHECK(note.kind == json_rpc::message_kind::notification);
  auto response = classify(R"({"jsonrpc":"2.0","id":1,"result":{}})");
  CHECK(response.kind == json_rpc::message_kind::response);
}

TEST_CASE("invalid envelopes say why", "[json_rpc]") {
  CHECK(classify(R"({"id":1,"method":"ping"})").problem.find("jsonrpc")
        != std::string::npos);
  CHECK(classify(R"({"jsonrpc":"1.0","id":1,"method":"ping"})").kind
        == json_rpc::message_kind::invalid);
  CHECK(classify(R"({"jsonrpc":"2.0","id":1,"method":5})").kind
        == json_rpc::message_kind::invalid);
  CHECK(classify(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})").kind
        == json_rpc::message_kind::invalid);
  CHECK(classify(R"({"jsonrpc":"2.0","id":null,"method":"ping"})").kind
        == json_rpc::message_kind::invalid);
  CHECK(classify(R"({"jsonrpc":"2.0","id":1,"method":"x","params":[1]})")
          .kind
        == json_rpc::message_kind::invalid);
  CHECK(classify(R"({"jsonrpc":"2.0","id":1})").kind
        == json_rpc::message_kind::invalid);
}

TEST_CASE("results and errors echo the id", "[json_rpc]") {
  auto result = json_rpc::make_result(7, json::object{{"ok", true}});
  CHECK(json::serialize(result) == R"({"jsonrpc":"2.0","id":7,"result":{"ok":true}})");
  auto error = json_rpc::make_error("x", json_rpc::method_not_found, "nope");
  CHECK(error.at("id").as_string() == "x");
  CHECK(error.at("error").at("code").as_int64() == -32601);
  CHECK(error.at("error").at("message").as_string() == "nope");
}
