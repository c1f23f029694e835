#pragma once
// Saved user variables (labels, D16/D17): typed values a principal stores
// under a key and tools resolve through {type:'label'}.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "transitd/messages/common.hpp"

namespace transitd {

enum class variable_type : uint8_t { location, stop };

/// A variable's key, and a stop id.
inline constexpr length_range variable_key_length{1, 100};
/// A variable's name and address.
inline constexpr length_range variable_text_length{0, 200};

/// "location" | "stop".
const char* to_string(variable_type type) noexcept;
std::optional<variable_type> parse_variable_type(std::string_view text);

struct user_variable {
  std::string key;
  variable_type type = variable_type::location;
  /// location: lat/lon required; stop: unused.
  double lat = 0;
  double lon = 0;
  /// stop: required; location: unused.
  std::string stop_id;
  std::optional<std::string> name;
  /// location only.
  std::optional<std::string> address;
  /// Last save, ms since epoch (set by the store).
  int64_t updated_ms = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, user_variable& x) {
  return f(x.key, x.type, x.lat, x.lon, x.stop_id, x.name, x.address,
           x.updated_ms);
}

/// save_user_variable: insert or replace the caller's variable.
struct save_variable_request {
  call_context context;
  user_variable variable;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, save_variable_request& x) {
  return f(x.context, x.variable);
}

struct save_variable_reply {
  user_variable variable;
  /// true when the key existed and was overwritten.
  bool replaced = false;
  std::string correlation_id;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, save_variable_reply& x) {
  return f(x.variable, x.replaced, x.correlation_id);
}

/// get_user_variables: all of the caller's, or one key.
struct get_variables_request {
  call_context context;
  std::optional<std::string> key;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, get_variables_request& x) {
  return f(x.context, x.key);
}

struct get_variables_reply {
  std::vector<user_variable> variables;
  std::string correlation_id;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, get_variables_reply& x) {
  return f(x.variables, x.correlation_id);
}

/// delete_user_variable.
struct delete_variable_request {
  call_context context;
  std::string key;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, delete_variable_request& x) {
  return f(x.context, x.key);
}

struct delete_variable_reply {
  std::string key;
  bool deleted = false;
  std::string correlation_id;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, delete_variable_reply& x) {
  return f(x.key, x.deleted, x.correlation_id);
}

/// Tools resolving {type:'label'}: the principal's variable under `key`.
struct resolve_label {
  call_context context;
  std::string key;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, resolve_label& x) {
  return f(x.context, x.key);
}

} // namespace transitd
