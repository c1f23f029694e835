#include "transitd/actors/tool_support.hpp"

#include <algorithm>

#include "transitd/messages/time.hpp"

namespace transitd {

int64_t remaining_ms(const call_context& context, int64_t fallback_ms) {
  if (context.deadline_ms == 0)
    return fallback_ms;
  return std::max<int64_t>(1, context.deadline_ms - now_ms());
}

int64_t service_now_seconds(const call_context& context,
                            const tool_options& options) {
  auto received = context.received_ms != 0 ? context.received_ms : now_ms();
  return (received + options.clock_offset_ms) / 1000;
}

} // namespace transitd
