#pragma once
// CAF 0.17 cannot inspect std::optional out of the box. This overload
// serialises a presence flag and the value (a default value when absent), so
// that messages with optional fields can cross a process boundary.

#include <optional>

namespace std {

template <class Inspector, class T>
typename Inspector::result_type inspect(Inspector& f, optional<T>& x) {
  if constexpr (Inspector::writes_state) {
    bool present = false;
    T value{};
    auto result = f(present, value);
    if (present)
      x = std::move(value);
    else
      x.reset();
    return result;
  } else {
    bool present = x.has_value();
    T value = present ? *x : T{};
    return f(present, value);
  }
}

} // namespace std
