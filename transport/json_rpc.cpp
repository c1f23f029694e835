#include "transitd/transport/json_rpc.hpp"

namespace json = boost::json;

namespace transitd::json_rpc {

message classify(const json::object& object) {
  message result;
  auto invalid = [&](std::string problem) {
    result.kind = message_kind::invalid;
    result.problem = std::move(problem);
    return result;
  };
  if (auto it = object.find("id"); it != object.end())
    result.id = it->value();
  auto version = object.find("jsonrpc");
  if (version == object.end() || !version->value().is_string()
      || version->value().get_string() != "2.0")
    return invalid("\"jsonrpc\" must be \"2.0\"");
  auto method = object.find("method");
  if (method == object.end()) {
    if (object.contains("result") || object.contains("error")) {
      result.kind = message_kind::response;
      return result;
    }
    return invalid("a message needs \"method\" (request or notification) "
                   "or \"result\"/\"error\" (response)");
  }
  if (!method->value().is_string())
    return invalid("\"method\" must be a string");
  result.method = std::string{method->value().get_string()};
  if (auto params = object.find("params"); params != object.end()) {
    if (!params->value().is_object())
      return invalid("\"params\" must be an object");
    result.params = params->value().get_object();
  }
  auto id = object.find("id");
  if (id == object.end()) {
    result.kind = message_kind::notification;
    return result;
  }
  const auto& id_value = id->value();
  if (!id_value.is_string() && !id_value.is_int64() && !id_value.is_uint64())
    return invalid("\"id\" must be a string or an integer");
  result.kind = message_kind::request;
  return result;
}

json::object make_result(const json::value& id, json::value result) {
  json::object out;
  out["jsonrpc"] = "2.0";
  out["id"] = id;
  out["result"] = std::move(result);
  return out;
}

json::object make_error(const json::value& id, int code,
                        std::string_view text,
                        std::optional<json::value> data) {
  json::object error;
  error["code"] = code;
  error["message"] = text;
  if (data)
    error["data"] = std::move(*data);
  json::object out;
  out["jsonrpc"] = "2.0";
  out["id"] = id;
  out["error"] = std::move(error);
  return out;
}

json::object make_notification(std::string_view method, json::object params) {
  json::object out;
  out["jsonrpc"] = "2.0";
  out["method"] = method;
  out["params"] = std::move(params);
  return out;
}

} // namespace transitd::json_rpc
