#pragma once
// Vocabulary shared by every tool: the call context, warnings, transit modes
// and coordinates. Plain structs with CAF 0.17 inspect overloads; no CAF
// headers needed to use them.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "transitd/messages/error.hpp"
#include "transitd/messages/inspect_std.hpp"
#include "transitd/messages/limits.hpp"

namespace transitd {

/// Where a call's progress goes while it runs (an MCP client's SSE stream):
/// the tools and the upstream gates report each step as it happens.
/// Thread-safe and non-blocking. Local to the process: it does not cross a
/// process boundary (`inspect` leaves it out).
class progress_sink {
public:
  virtual ~progress_sink() = default;
  /// One step done or begun ("digitransit-routing: attempt 2 of 3").
  virtual void note(std::string_view message) const = 0;
};

/// Who is calling and how the call is traced. Every tool request carries
/// one, so logs, authorisation and deadlines need no side channel.
struct call_context {
  /// UUID v4 of this call; echoed in the reply and in every log line.
  std::string correlation_id;
  /// The owner of saved variables: the authenticated principal, or the MCP
  /// session id without authentication (D17).
  std::string principal;
  /// Absolute deadline in milliseconds since the Unix epoch; 0 = none.
  int64_t deadline_ms = 0;
  /// Wall-clock time the request was received, ms since the Unix epoch.
  int64_t received_ms = 0;
  /// Progress of this call, for a client that asked for it; null otherwise.
  std::shared_ptr<const progress_sink> progress;
};

/// Reports a step of the call to its progress sink, if it has one.
inline void report_progress(const call_context& context,
                            std::string_view message) {
  if (context.progress)
    context.progress->note(message);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, call_context& x) {
  return f(x.correlation_id, x.principal, x.deadline_ms, x.received_ms);
}

/// A non-fatal remark about a result ("truncated-results", "demo-data").
struct warning {
  std::string code;
  std::string message;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, warning& x) {
  return f(x.code, x.message);
}

inline bool operator==(const warning& a, const warning& b) {
  return a.code == b.code && a.message == b.message;
}

/// Transport modes, spelled as Digitransit/OTP spells them on the wire.
enum class transit_mode : uint8_t {
  bus,
  tram,
  rail,
  subway,
  ferry,
  airplane,
  cable_car,
  gondola,
  funicular,
  monorail,
  trolleybus,
  coach,
  taxi,
  walk,
  bicycle,
  car,
  other,
};

/// All modes in enum order (for schemas and validation).
const std::vector<transit_mode>& all_transit_modes();

/// "BUS", "TRAM", ...
std::string_view to_string(transit_mode mode) noexcept;

/// Parses the upstream/contract spelling (case-sensitive upper case);
/// unknown spellings give nullopt.
std::optional<transit_mode> parse_transit_mode(std::string_view text);

/// WGS84 coordinate.
struct coordinate {
  double lat = 0;
  double lon = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, coordinate& x) {
  return f(x.lat, x.lon);
}

/// A coordinate's range check, shared by the tools; `field` names it in
/// errors ("near" → "near.lat").
std::optional<failure> validate_coordinate(const coordinate& c,
                                           std::string_view field);

/// Great-circle distance in meters.
double distance_m(const coordinate& a, const coordinate& b);

/// A line's colour as GTFS and OTP write it ("EE352E"), when `text` is one:
/// six hexadecimal digits; else empty.
std::string colour_hex(std::string_view text);

/// A provider's service area: a bounding box and how to name it to a user.
struct region {
  double min_lat = 59.9;
  double max_lat = 60.8;
  double min_lon = 23.5;
  double max_lon = 26.0;
  std::string name = "the HSL region (Helsinki)";

  bool contains(const coordinate& p) const;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, region& x) {
  return f(x.min_lat, x.max_lat, x.min_lon, x.max_lon, x.name);
}

} // namespace transitd
