#pragma once
// Stand-ins that implement the real typed interfaces in a few lines, and
// the recorded fixtures' location, shared by the tests.

#include <fstream>
#include <sstream>
#include <string>

#include <caf/typed_event_based_actor.hpp>
#include <catch2/catch.hpp>

#include "transitd/messages/interfaces.hpp"

namespace transitd::test {

/// The text of a file under tests/fixtures/upstream/.
inline std::string fixture(const std::string& relative) {
  std::ifstream in{std::string{TRANSITD_FIXTURES_DIR} + "/" + relative};
  REQUIRE(in.good());
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// A VARIABLE_STORE whose labels are fixed: "work" is the stop HSL:2222,
/// "home" a location (60.2055, 24.6559, "Home", "Kotikatu 1"); any other
/// label is unknown. Writes are not scripted.
inline variable_store_actor::behavior_type label_store() {
  auto nothing = [] { return make_error(ec::internal_error, "not scripted"); };
  return {
    [nothing](const save_variable_request&)
      -> caf::result<save_variable_reply> { return nothing(); },
    [nothing](const get_variables_request&)
      -> caf::result<get_variables_reply> { return nothing(); },
    [nothing](const delete_variable_request&)
      -> caf::result<delete_variable_reply> { return nothing(); },
    [](const resolve_label& r) -> caf::result<user_variable> {
      user_variable v;
      v.key = r.key;
      if (r.key == "work") {
        v.type = variable_type::stop;
        v.stop_id = "HSL:2222";
        return v;
      }
      if (r.key == "home") {
        v.type = variable_type::location;
        v.lat = 60.2055;
        v.lon = 24.6559;
        v.name = "Home";
        v.address = "Kotikatu 1";
        return v;
      }
      return make_error(ec::validation_error,
                        "unknown label \"" + r.key + "\"");
    },
  };
}

} // namespace transitd::test
