#include "transitd/messages/error.hpp"

#include <array>

namespace transitd {

namespace {

struct ec_description {
  std::string_view wire;
  std::string_view wire_upper;
  bool retryable;
};

// One row per ec, in enum order.
constexpr std::array<ec_description, ec_count> descriptions{{
  {"none", "NONE", false},
  {"validation-error", "VALIDATION_ERROR", false},
  {"upstream-error", "UPSTREAM_ERROR", true},
  {"upstream-timeout", "UPSTREAM_TIMEOUT", true},
  {"rate-limited", "RATE_LIMIT_EXCEEDED", true},
  {"network-error", "NETWORK_ERROR", true},
  {"unsupported-region", "UNSUPPORTED_REGION", false},
  {"no-itinerary-found", "NO_ITINERARY_FOUND", false},
  {"geocode-no-results", "GEOCODE_NO_RESULTS", false},
  {"disambiguation-required", "DISAMBIGUATION_REQUIRED", false},
  {"station-not-found", "STATION_NOT_FOUND", false},
  {"data-not-available", "DATA_NOT_AVAILABLE", false},
  {"internal-error", "INTERNAL_ERROR", false},
  {"cancelled", "CANCELLED", false},
}};

static_assert(static_cast<std::size_t>(ec::cancelled) + 1 == ec_count,
              "the description table must cover every ec");

const ec_description& describe(ec code) noexcept {
  auto index = static_cast<std::size_t>(code);
  return index < descriptions.size() ? descriptions[index]
                                     : descriptions[static_cast<std::size_t>(
                                       ec::internal_error)];
}

} // namespace

std::string_view to_wire(ec code) noexcept {
  return describe(code).wire;
}

std::string_view to_wire_upper(ec code) noexcept {
  return describe(code).wire_upper;
}

bool is_retryable(ec code) noexcept {
  return describe(code).retryable;
}

} // namespace transitd
