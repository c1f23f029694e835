#include "transitd/messages/departures.hpp"

namespace transitd {

const char* to_string(departure_status status) noexcept {
  switch (status) {
    case departure_status::on_time:
      return "on_time";
    case departure_status::delayed:
      return "delayed";
    case departure_status::cancelled:
      return "cancelled";
    case departure_status::scheduled_only:
      return "scheduled_only";
  }
  return "scheduled_only";
}

} // namespace transitd
