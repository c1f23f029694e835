#include "transitd/transport/tools.hpp"

#include <type_traits>
#include <utility>

#include "transitd/actors/engine.hpp"
#include "transitd/transport/tool_list.hpp"

namespace json = boost::json;

namespace transitd::mcp {

namespace {

/// Whether a reply renders straight to JSON text (to_json_text).
template <class Reply, class = void>
struct renders_text : std::false_type {};
template <class Reply>
struct renders_text<
  Reply, std::void_t<decltype(to_json_text(std::declval<const Reply&>()))>>
  : std::true_type {};

template <class Reply>
tool_outcome reply_outcome(const Reply& reply) {
  if constexpr (renders_text<Reply>::value)
    return text_outcome(to_json_text(reply));
  else
    return success_outcome(to_json(reply));
}

/// The common shape of a tool: parse the arguments strictly, ask the engine,
/// render the reply or the failure.
template <class Request, class Reply, class Parse>
tool_function make_runner(gateway& gw, Parse parse) {
  return [&gw, parse](const json::object& arguments, call_context& context,
                      const std::shared_ptr<cancellation>& cancel,
                      tool_done done) {
    outcome<Request> request = parse(arguments);
    if (!request)
      return done(error_outcome(request.error(), context.correlation_id));
    request->context = context;
    gw.call<Request, Reply>(
      std::move(*request), cancel,
      [done = std::move(done),
       cid = context.correlation_id](caf::expected<Reply> reply) {
        if (!reply)
          return done(error_outcome(to_failure(reply.error()), cid));
        done(reply_outcome(*reply));
      });
  };
}

/// Adds each tool, run through the gateway.
struct gateway_tools {
  tool_catalog& catalog;
  gateway& gw;
  const std::string& regions;
  capabilities offer;

  template <class Request, class Reply, class Parse>
  void tool(tool_spec spec, Parse parse) {
    for (const auto& capability : spec.requires)
      if (!offer.has(capability))
        return;
    if (spec.regional && !regions.empty())
      spec.description += " " + regions;
    spec.run = make_runner<Request, Reply>(gw, parse);
    catalog.add(std::move(spec));
  }

  template <class Request, class Reply, class Parse>
  void london(tool_spec spec, Parse parse, london_tool which) {
    spec.run = [&gw = gw, parse, which](
                 const json::object& arguments, call_context& context,
                 const std::shared_ptr<cancellation>& cancel,
                 tool_done done) {
      outcome<Request> request = parse(arguments);
      if (!request)
        return done(
          london_error(which, request.error(), context.correlation_id));
      request->context = context;
      gw.call<Request, Reply>(
        std::move(*request), cancel,
        [done = std::move(done), which,
         cid = context.correlation_id](caf::expected<Reply> reply) {
          if (!reply)
            return done(london_error(which, to_failure(reply.error()), cid));
          done(to_outcome(*reply));
        });
    };
    catalog.add(std::move(spec));
  }
};

/// Calls `f(spec, tool_of<Request>())` for each tool.
template <class F>
struct each_tool {
  F f;
  template <class Request, class Reply, class Parse>
  void tool(const tool_spec& spec, Parse) {
    f(spec, tool_of<Request>());
  }
  template <class Request, class Reply, class Parse>
  void london(const tool_spec& spec, Parse, london_tool) {
    f(spec, tool_of<Request>());
  }
};

template <class F>
void for_each_tool(F f) {
  each_tool<F> visitor{std::move(f)};
  visit_tools(visitor);
}

} // namespace

const std::vector<std::string>& tool_names() {
  static const auto names = [] {
    std::vector<std::string> out;
    for_each_tool(
      [&out](const tool_spec& spec, std::type_index) {
        out.push_back(spec.name);
      });
    return out;
  }();
  return names;
}

tool_settings_map tool_settings_by_name(
  const std::map<std::string, double>& tps,
  const std::map<std::string, int32_t>& timeouts_ms) {
  tool_settings_map out;
  for_each_tool([&](const tool_spec& spec, std::type_index tool) {
    auto& settings = out[tool];
    settings.label = spec.name;
    if (auto it = tps.find(spec.name); it != tps.end())
      settings.tps = it->second;
    if (auto it = timeouts_ms.find(spec.name); it != timeouts_ms.end())
      settings.timeout_ms = it->second;
  });
  return out;
}

std::map<std::string, int32_t> default_tool_timeouts() {
  std::map<std::string, int32_t> out;
  auto defaults = default_tool_settings();
  for_each_tool([&](const tool_spec& spec, std::type_index tool) {
    if (auto it = defaults.find(tool);
        it != defaults.end() && it->second.timeout_ms > 0)
      out[spec.name] = it->second.timeout_ms;
  });
  return out;
}

std::map<std::string, double> default_tool_tps() {
  std::map<std::string, double> out;
  auto defaults = default_tool_settings();
  for_each_tool([&](const tool_spec& spec, std::type_index tool) {
    if (auto it = defaults.find(tool);
        it != defaults.end() && it->second.tps > 0)
      out[spec.name] = it->second.tps;
  });
  return out;
}

tool_catalog make_tool_catalog(gateway& gw, const std::string& regions,
                               capabilities offer) {
  tool_catalog catalog;
  gateway_tools adder{catalog, gw, regions, offer};
  visit_tools(adder);
  return catalog;
}

} // namespace transitd::mcp
