#include "transitd/messages/variables.hpp"

namespace transitd {

const char* to_string(variable_type type) noexcept {
  return type == variable_type::stop ? "stop" : "location";
}

std::optional<variable_type> parse_variable_type(std::string_view text) {
  if (text == "location")
    return variable_type::location;
  if (text == "stop")
    return variable_type::stop;
  return std::nullopt;
}

} // namespace transitd
