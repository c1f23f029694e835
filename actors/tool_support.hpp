#pragma once
// What every tool actor shares: its options and the deadline arithmetic.

#include <cstdint>
#include <vector>

#include "messages/common.hpp"

namespace transitd {

struct tool_options {
  /// Upper bound on a provider round trip when the call has no deadline.
  int32_t timeout_ms = 10000;
  /// Attached to every reply (e.g. "demo-data").
  std::vector<warning> standing_warnings;
};

/// Milliseconds left until the call's deadline, else `fallback_ms`; never
/// below 1.
int64_t remaining_ms(const call_context& context, int64_t fallback_ms);

} // namespace transitd
