#pragma once
// The engine's error vocabulary: one code per failure a caller can act on.
// CAF-free so that pure code (parsers, validators) can use it; the CAF glue
// (make_error, error category) lives in messages/caf_glue.hpp.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace transitd {

/// Every failure a tool call can end in. Append only: the numeric values
/// cross process boundaries inside caf::error.
enum class ec : uint8_t {
  /// Not an error (CAF reserves 0 for "no error").
  none = 0,
  /// The arguments break the tool's contract (missing, out of range,
  /// unknown field, wrong type, unknown label).
  validation_error,
  /// The upstream answered with an error payload, a 5xx, or garbage.
  upstream_error,
  /// The upstream did not answer within the deadline.
  upstream_timeout,
  /// A local limiter or the upstream's 429 throttled the call.
  rate_limited,
  /// DNS, connection refused, TLS or another transport failure.
  network_error,
  /// Origin or destination outside the provider's region (plan_trip).
  unsupported_region,
  /// No itinerary, even after the relaxed query (plan_trip).
  no_itinerary_found,
  /// The geocoder had nothing for the text (geocode_address).
  geocode_no_results,
  /// Free text matched several places; the caller must choose (London).
  disambiguation_required,
  /// No station matched the name (stationToilets).
  station_not_found,
  /// Station data missing or unreadable (stationToilets).
  data_not_available,
  /// A bug or an unexpected state inside the engine.
  internal_error,
  /// The caller cancelled the call (MCP notifications/cancelled).
  cancelled,
};

/// Number of codes, for the description table's static_assert.
inline constexpr std::size_t ec_count = 14;

/// The wire spelling of the Helsinki tools ("validation-error").
std::string_view to_wire(ec code) noexcept;

/// The wire spelling of the London tools ("VALIDATION_ERROR").
std::string_view to_wire_upper(ec code) noexcept;

/// Whether the contracts call the failure retryable.
bool is_retryable(ec code) noexcept;

/// A failure with the details a caller needs; converts to and from
/// caf::error (messages/caf_glue.hpp).
struct failure {
  ec code = ec::internal_error;
  std::string message;
  /// What the caller could do about it; empty when nothing useful.
  std::string hint;
  /// Seconds to wait before retrying; 0 when not applicable.
  int32_t retry_after = 0;
};

inline failure make_failure(ec code, std::string message,
                            std::string hint = {}, int32_t retry_after = 0) {
  return failure{code, std::move(message), std::move(hint), retry_after};
}

/// Whether the caller may succeed by retrying: the code says so (an
/// upstream's trouble), or the failure names a time to retry at (a feed
/// still loading).
inline bool is_retryable(const failure& f) noexcept {
  return is_retryable(f.code) || f.retry_after > 0;
}

/// Result of a pure function that can fail: the value or a failure.
template <class T>
class outcome {
public:
  outcome(T value) : v_(std::move(value)) {}
  outcome(failure f) : v_(std::move(f)) {}
  explicit operator bool() const noexcept { return v_.index() == 0; }
  T& operator*() { return std::get<0>(v_); }
  const T& operator*() const { return std::get<0>(v_); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  const failure& error() const { return std::get<1>(v_); }
  failure& error() { return std::get<1>(v_); }

private:
  std::variant<T, failure> v_;
};

} // namespace transitd
