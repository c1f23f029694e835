#include "transitd/messages/lines.hpp"

#include <algorithm>

namespace transitd {

std::size_t status_rank(std::string_view status) noexcept {
  auto it = std::find(line_statuses.begin(), line_statuses.end(), status);
  return static_cast<std::size_t>(it - line_statuses.begin());
}

std::string alert_status(std::string_view effect, std::string_view cause,
                         std::string_view severity, bool partial) {
  bool planned = cause == "maintenance" || cause == "construction";
  if (effect == "no-service")
    return partial ? "part-suspended" : "suspended";
  if (effect == "significant-delays")
    return "severe-delays";
  if (planned)
    return "planned-works";
  if (effect == "reduced-service" || effect == "detour"
      || effect == "modified-service" || effect == "stop-moved"
      || effect == "accessibility-issue")
    return "minor-delays";
  // No effect on running (information, extra service): by its severity,
  // else none.
  return severity == "severe"    ? "severe-delays"
         : severity == "warning" ? "minor-delays"
                                 : "good-service";
}

void order_lines(std::vector<line_state>& lines) {
  for (auto& line : lines) {
    std::stable_sort(line.reasons.begin(), line.reasons.end(),
                     [](const status_reason& a, const status_reason& b) {
                       return status_rank(a.status) < status_rank(b.status);
                     });
    line.status = "good-service";
    if (!line.reasons.empty()
        && status_rank(line.reasons.front().status)
             < status_rank(line.status))
      line.status = line.reasons.front().status;
  }
  std::stable_sort(lines.begin(), lines.end(),
                   [](const line_state& a, const line_state& b) {
                     auto ra = status_rank(a.status);
                     auto rb = status_rank(b.status);
                     return ra != rb ? ra < rb : a.line < b.line;
                   });
}

} // namespace transitd
