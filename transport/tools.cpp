#include "transport/tools.hpp"

#include "transport/tool_list.hpp"

namespace json = boost::json;

namespace transitd::mcp {

namespace {

/// The common shape of a tool: parse the arguments strictly, ask the engine,
/// render the reply or the failure.
template <class Request, class Reply, class Parse>
tool_function make_runner(gateway& gw, Parse parse) {
  return [&gw, parse](const json::object& arguments, call_context& context,
                      const std::shared_ptr<cancellation>& cancel) {
    outcome<Request> request = parse(arguments);
    if (!request)
      return error_outcome(request.error(), context.correlation_id);
    request->context = context;
    auto reply = gw.call<Request, Reply>(std::move(*request), cancel);
    if (!reply)
      return error_outcome(to_failure(reply.error()), context.correlation_id);
    return success_outcome(to_json(*reply));
  };
}

/// Adds each tool, run through the gateway.
struct gateway_tools {
  tool_catalog& catalog;
  gateway& gw;

  template <class Request, class Reply, class Parse>
  void tool(tool_spec spec, Parse parse) {
    spec.run = make_runner<Request, Reply>(gw, parse);
    catalog.add(std::move(spec));
  }

  template <class Request, class Reply, class Parse>
  void london(tool_spec spec, Parse parse, london_tool which) {
    spec.run = [&gw = gw, parse, which](
                 const json::object& arguments, call_context& context,
                 const std::shared_ptr<cancellation>& cancel) {
      outcome<Request> request = parse(arguments);
      if (!request)
        return london_error(which, request.error(), context.correlation_id);
      request->context = context;
      auto reply = gw.call<Request, Reply>(std::move(*request), cancel);
      if (!reply)
        return london_error(which, to_failure(reply.error()),
                            context.correlation_id);
      return to_outcome(*reply);
    };
    catalog.add(std::move(spec));
  }
};

} // namespace

tool_catalog make_tool_catalog(gateway& gw) {
  tool_catalog catalog;
  gateway_tools adder{catalog, gw};
  visit_tools(adder);
  return catalog;
}

} // namespace transitd::mcp
