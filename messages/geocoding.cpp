#include "transitd/messages/geocoding.hpp"

namespace transitd {

const char* to_string(place_type type) noexcept {
  switch (type) {
    case place_type::address:
      return "address";
    case place_type::stop:
      return "stop";
    default:
      return "poi";
  }
}

} // namespace transitd
