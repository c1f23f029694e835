#include "transitd/messages/caf_glue.hpp"

#include <caf/actor_system_config.hpp>
#include <caf/message.hpp>
#include <caf/sec.hpp>

namespace transitd {

caf::error make_error(ec code, std::string message, std::string hint,
                      int32_t retry_after) {
  return caf::make_error(code, std::move(message), std::move(hint),
                         retry_after);
}

caf::error to_error(const failure& f) {
  return make_error(f.code, f.message, f.hint, f.retry_after);
}

failure to_failure(const caf::error& err) {
  if (err.category() == caf::atom("transitd")) {
    failure result;
    result.code = static_cast<ec>(err.code());
    const auto& ctx = err.context();
    if (ctx.match_elements<std::string, std::string, int32_t>()) {
      result.message = ctx.get_as<std::string>(0);
      result.hint = ctx.get_as<std::string>(1);
      result.retry_after = ctx.get_as<int32_t>(2);
    }
    if (result.message.empty())
      result.message = std::string{to_wire(result.code)};
    return result;
  }
  if (err == caf::sec::request_timeout)
    return make_failure(ec::upstream_timeout,
                        "the call did not finish within its deadline");
  if (err == caf::sec::request_receiver_down)
    return make_failure(ec::internal_error,
                        "an engine component stopped while serving the call");
  return make_failure(ec::internal_error,
                      "internal error: " + caf::to_string(err));
}

std::string render_error(uint8_t code, caf::atom_value,
                         const caf::message& context) {
  std::string result{to_wire(static_cast<ec>(code))};
  if (context.match_elements<std::string, std::string, int32_t>()) {
    result += ": ";
    result += context.get_as<std::string>(0);
  }
  return result;
}

void add_message_types(caf::actor_system_config& cfg) {
  cfg.add_error_category(caf::atom("transitd"), render_error);
  cfg.add_message_types<caf::id_block::transitd>();
}

} // namespace transitd
