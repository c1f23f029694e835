// The views (MCP Apps): which tool links which view, and the documents
// compiled in from views/*.html.

#include "transitd/transport/views.hpp"

#include <catch2/catch.hpp>

#include "transitd/transport/tool_catalog.hpp"

using namespace transitd;
using namespace transitd::mcp;

TEST_CASE("each view is a whole document; tools link theirs", "[views]") {
  REQUIRE(views().size() == 3);
  for (const auto& v : views()) {
    INFO(v.uri);
    CHECK(v.uri.rfind("ui://transitd/", 0) == 0);
    CHECK(find_view(v.uri) == &v);
    CHECK(v.html.size() > 1000);
    // Script and style inline, nothing fetched.
    CHECK(v.html.find("<script src") == std::string_view::npos);
    CHECK(v.html.find("<link") == std::string_view::npos);
    CHECK(v.html.find("/*@include") == std::string_view::npos);
    // Text goes in as text: no view writes markup from data.
    CHECK(v.html.find("innerHTML") == std::string_view::npos);
    CHECK(v.html.find("insertAdjacentHTML") == std::string_view::npos);
    CHECK(v.html.find("document.write") == std::string_view::npos);
  }
  CHECK(view_of_tool("get_departures")->uri == "ui://transitd/departures");
  CHECK(view_of_tool("plan_trip")->uri == "ui://transitd/trip");
  CHECK(view_of_tool("get_trip")->uri == "ui://transitd/trip");
  CHECK(view_of_tool("line_status")->uri == "ui://transitd/lines");
  CHECK(view_of_tool("service_alerts")->uri == "ui://transitd/lines");
  CHECK(view_of_tool("find_stops") == nullptr);
  CHECK(find_view("ui://transitd/nope") == nullptr);
  CHECK(embedded_view("nope.html").empty());
}

TEST_CASE("tools/list gives a tool with a view its resourceUri, and others "
          "no _meta",
          "[views]") {
  tool_spec with;
  with.name = "get_departures";
  auto listed = tool_catalog::definition(with);
  CHECK(listed.at("_meta").at("ui").at("resourceUri")
        == "ui://transitd/departures");
  CHECK(listed.at("_meta").at("ui/resourceUri") == "ui://transitd/departures");
  tool_spec without;
  without.name = "find_stops";
  CHECK_FALSE(tool_catalog::definition(without).contains("_meta"));
}
