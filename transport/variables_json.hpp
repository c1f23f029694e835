#pragma once
// save_user_variable, get_user_variables, delete_user_variable on the wire.

#include <boost/json.hpp>

#include "transitd/messages/error.hpp"
#include "transitd/messages/variables.hpp"
#include "transitd/transport/tool_catalog.hpp"

namespace transitd::mcp {

tool_spec save_user_variable_spec();
tool_spec get_user_variables_spec();
tool_spec delete_user_variable_spec();

outcome<save_variable_request>
parse_save_user_variable(const boost::json::object& arguments);
outcome<get_variables_request>
parse_get_user_variables(const boost::json::object& arguments);
outcome<delete_variable_request>
parse_delete_user_variable(const boost::json::object& arguments);

boost::json::object to_json(const user_variable& variable);
boost::json::object to_json(const save_variable_reply& reply);
boost::json::object to_json(const get_variables_reply& reply);
boost::json::object to_json(const delete_variable_reply& reply);

} // namespace transitd::mcp
