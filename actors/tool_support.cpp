#include "actors/tool_support.hpp"

#include <algorithm>

#include "messages/time.hpp"

namespace transitd {

int64_t remaining_ms(const call_context& context, int64_t fallback_ms) {
  if (context.deadline_ms == 0)
    return fallback_ms;
  return std::max<int64_t>(1, context.deadline_ms - now_ms());
}

} // namespace transitd
