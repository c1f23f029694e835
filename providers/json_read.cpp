#include "transitd/providers/json_read.hpp"

#include <cmath>

#include <boost/json.hpp>

namespace json = boost::json;

namespace transitd::upstream_json {

const json::value* find_path(const json::value& root,
                             std::initializer_list<std::string_view> path) {
  const json::value* current = &root;
  for (auto key : path) {
    const auto* obj = current->if_object();
    if (obj == nullptr)
      return nullptr;
    auto it = obj->find(key);
    if (it == obj->end())
      return nullptr;
    current = &it->value();
  }
  return current;
}

std::optional<std::string>
string_at(const json::value& root,
          std::initializer_list<std::string_view> path) {
  const auto* v = find_path(root, path);
  if (v == nullptr || !v->is_string())
    return std::nullopt;
  return std::string{v->get_string()};
}

std::string text_at(const json::value& root,
                    std::initializer_list<std::string_view> path) {
  return string_at(root, path).value_or(std::string{});
}

std::optional<int64_t>
int_at(const json::value& root,
       std::initializer_list<std::string_view> path) {
  const auto* v = find_path(root, path);
  if (v == nullptr)
    return std::nullopt;
  if (v->is_int64())
    return v->get_int64();
  // Numbers that do not fit (or are not finite) are absent, not undefined
  // behaviour: found by tests/fuzz.
  if (v->is_uint64())
    return v->get_uint64() <= static_cast<uint64_t>(INT64_MAX)
             ? std::optional<int64_t>{static_cast<int64_t>(v->get_uint64())}
             : std::nullopt;
  if (v->is_double()) {
    auto d = v->get_double();
    if (!(d > -9.2e18 && d < 9.2e18)) // false for NaN too
      return std::nullopt;
    return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

std::optional<double>
number_at(const json::value& root,
          std::initializer_list<std::string_view> path) {
  const auto* v = find_path(root, path);
  if (v == nullptr)
    return std::nullopt;
  double d = 0;
  if (v->is_double())
    d = v->get_double();
  else if (v->is_int64())
    d = static_cast<double>(v->get_int64());
  else if (v->is_uint64())
    d = static_cast<double>(v->get_uint64());
  else
    return std::nullopt;
  if (!std::isfinite(d))
    return std::nullopt;
  return d;
}

bool bool_at(const json::value& root,
             std::initializer_list<std::string_view> path) {
  const auto* v = find_path(root, path);
  return v != nullptr && v->is_bool() && v->get_bool();
}

} // namespace transitd::upstream_json
