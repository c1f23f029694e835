#include "transitd/store/variable_backend.hpp"

#include "transitd/store/postgres_store.hpp"
#include "transitd/store/sqlite_store.hpp"

namespace transitd {

std::optional<failure> validate(const user_variable& v) {
  auto bad = [](std::string message) {
    return make_failure(ec::validation_error, std::move(message));
  };
  if (v.key.empty()
      || v.key.find_first_not_of(" \t\r\n") == std::string::npos)
    return bad("key must not be empty");
  if (auto too_long = check_length("key", v.key, variable_key_length))
    return too_long;
  for (unsigned char c : v.key)
    if (c < 0x20 || c == 0x7f)
      return bad("key must not contain control characters");
  auto text = [](const char* field, const std::optional<std::string>& value) {
    return value ? check_length(field, *value, variable_text_length)
                 : std::nullopt;
  };
  if (auto too_long = text("value.name", v.name))
    return too_long;
  if (v.type == variable_type::location) {
    if (auto out = check_range("value.lat", v.lat, latitude_range))
      return out;
    if (auto out = check_range("value.lon", v.lon, longitude_range))
      return out;
    return text("value.address", v.address);
  }
  return check_length("value.stopId", v.stop_id, variable_key_length);
}

bool is_postgres_url(const std::string& path) {
  return path.rfind("postgresql://", 0) == 0
         || path.rfind("postgres://", 0) == 0;
}

std::unique_ptr<variable_backend>
open_variable_backend(const std::string& path) {
  if (is_postgres_url(path))
    return open_postgres_store(path);
  return std::make_unique<variable_database>(path);
}

} // namespace transitd
