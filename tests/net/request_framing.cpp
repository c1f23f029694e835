// Where a request ends, and what is refused before a worker sees it.

#include "transitd/net/request_framing.hpp"

#include <string>

#include <catch2/catch.hpp>

using namespace transitd;
using verdict = request_framing::verdict;

namespace {

framing_limits small() {
  framing_limits l;
  l.max_line = 64;
  l.max_head = 256;
  l.max_body = 100;
  l.max_chunked = 150;
  return l;
}

} // namespace

TEST_CASE("framing: a request with a body ends after Content-Length bytes, "
          "a pipelined one stays for later",
          "[http][framing]") {
  std::string first = "POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 5"
                      "\r\n\r\nhello";
  std::string second = "GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n";
  auto f = frame_request(first + second, small());
  REQUIRE(f.what == verdict::complete);
  CHECK(f.size == first.size());
  CHECK(f.head_size == first.size() - 5);
  auto g = frame_request(second, small());
  REQUIRE(g.what == verdict::complete);
  CHECK(g.size == second.size());
  // Every prefix is incomplete, never complete early nor refused.
  for (std::size_t n = 0; n < first.size(); ++n)
    CHECK(frame_request(first.substr(0, n), small()).what
          == verdict::incomplete);
  // Bare LF line ends are read too.
  CHECK(frame_request("GET / HTTP/1.1\nHost: a\n\n", small()).what
        == verdict::complete);
}

TEST_CASE("framing: chunked bodies end after the last chunk and its "
          "trailers; malformed chunks are refused",
          "[http][framing]") {
  std::string head = "POST /mcp HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n";
  std::string body = "5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\n";
  auto f = frame_request(head + body + "GET", small());
  REQUIRE(f.what == verdict::complete);
  CHECK(f.size == head.size() + body.size());
  for (std::size_t n = head.size(); n < head.size() + body.size(); ++n)
    CHECK(frame_request((head + body).substr(0, n), small()).what
          == verdict::incomplete);
  auto bad = frame_request(head + "zz\r\n", small());
  CHECK(bad.what == verdict::refused);
  CHECK(bad.status == 400);
  auto no_crlf = frame_request(head + "5\r\nhelloXX", small());
  CHECK(no_crlf.status == 400);
  // Over the wire budget, even before it has all arrived.
  auto big = frame_request(head + "FF\r\n", small());
  CHECK(big.what == verdict::refused);
  CHECK(big.status == 413);
  std::string many = head;
  for (int i = 0; i < 40; ++i)
    many += "1\r\nx\r\n";
  CHECK(frame_request(many, small()).status == 413);
}

TEST_CASE("framing: two Content-Lengths, or one with Transfer-Encoding, are "
          "refused 400; other codings 501",
          "[http][framing][security]") {
  auto two = frame_request("POST / HTTP/1.1\r\nContent-Length: 5\r\n"
                           "content-length: 5\r\n\r\nhello",
                           small());
  CHECK(two.what == verdict::refused);
  CHECK(two.status == 400);
  CHECK_THAT(two.reason, Catch::Contains("more than one Content-Length"));
  auto both = frame_request("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
                            "Content-Length: 5\r\n\r\n0\r\n\r\n",
                            small());
  CHECK(both.status == 400);
  CHECK_THAT(both.reason, Catch::Contains("Transfer-Encoding"));
  CHECK(frame_request("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked"
                      "\r\n\r\n",
                      small())
          .status
        == 501);
  CHECK(frame_request("POST / HTTP/1.1\r\nContent-Length: +5\r\n\r\n", small())
          .status
        == 400);
  CHECK(frame_request("POST / HTTP/1.1\r\nContent-Length : 5\r\n\r\n", small())
          .status
        == 400);
  CHECK(frame_request("POST / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", small())
          .status
        == 400);
  CHECK(frame_request("\r\n", small()).status == 400);
  // A body over the limit is refused before it is read.
  auto large = frame_request("POST / HTTP/1.1\r\nContent-Length: "
                             "99999999999999999999999\r\n\r\n",
                             small());
  CHECK(large.status == 413);
}

TEST_CASE("framing: a header line or head over its limit is 431 (marked when "
          "it is Authorization), a request line 414, as soon as it shows",
          "[http][framing][security]") {
  std::string long_value(80, 'x');
  auto line = frame_request("GET / HTTP/1.1\r\nX-Long: " + long_value
                              + "\r\n\r\n",
                            small());
  CHECK(line.status == 431);
  CHECK_FALSE(line.authorization);
  auto auth = frame_request("GET / HTTP/1.1\r\nAuthorization: Bearer "
                              + long_value + "\r\n\r\n",
                            small());
  CHECK(auth.status == 431);
  CHECK(auth.authorization);
  // Still arriving, already too long: refused without waiting for the end.
  auto partial = frame_request("GET / HTTP/1.1\r\nauthorization: Bearer "
                                 + long_value,
                               small());
  CHECK(partial.status == 431);
  CHECK(partial.authorization);
  std::string head = "GET / HTTP/1.1\r\n";
  while (head.size() < 300)
    head += "X-A: b\r\n";
  CHECK(frame_request(head, small()).status == 431);
  CHECK(frame_request("GET /" + long_value + " HTTP/1.1\r\n", small()).status
        == 414);
  auto expect = frame_request("POST / HTTP/1.1\r\nExpect: 100-continue\r\n"
                              "Content-Length: 4\r\n\r\n",
                              small());
  CHECK(expect.what == verdict::incomplete);
  CHECK(expect.expects_continue);
  CHECK(expect.head_size > 0);
}

TEST_CASE("the direct route reads a request's line and headers",
          "[request_framing]") {
  auto head = parse_request_head("POST /mcp HTTP/1.1\r\nHost: a:1\r\n"
                                 "Content-Type:  application/json \r\n"
                                 "MCP-Protocol-Version: 2025-11-25\r\n\r\n");
  REQUIRE(head);
  CHECK(head->method == "POST");
  CHECK(head->target == "/mcp");
  CHECK(head->version == "HTTP/1.1");
  REQUIRE(head->headers.size() == 3);
  CHECK(head->headers[0] == std::pair<std::string, std::string>{"host", "a:1"});
  // Names in lower case, values without the blanks around them.
  CHECK(head->headers[1].first == "content-type");
  CHECK(head->headers[1].second == "application/json");
  CHECK(head->headers[2].first == "mcp-protocol-version");
  // Bare LF line ends, as frame_request takes them.
  auto bare = parse_request_head("GET /healthz HTTP/1.0\nA: b\n\n");
  REQUIRE(bare);
  CHECK(bare->version == "HTTP/1.0");
}

TEST_CASE("the direct route leaves anything unusual to httplib",
          "[request_framing]") {
  CHECK_FALSE(parse_request_head("POST /mcp\r\n\r\n"));          // no version
  CHECK_FALSE(parse_request_head("POST /mcp HTTP/2\r\n\r\n"));   // not 1.x
  CHECK_FALSE(parse_request_head("POST  HTTP/1.1\r\n\r\n"));     // no target
  CHECK_FALSE(parse_request_head("POST /a b HTTP/1.1\r\n\r\n")); // blank in it
  CHECK_FALSE(parse_request_head("POST /mcp HTTP/1.1\r\nNoColon\r\n\r\n"));
  CHECK_FALSE(parse_request_head("POST /mcp HTTP/1.1\r\nA b: c\r\n\r\n"));
  CHECK_FALSE(
    parse_request_head("POST /mcp HTTP/1.1\r\nA: b\r\n c\r\n\r\n"));
  CHECK_FALSE(parse_request_head("POST /mcp HTTP/1.1\r\nA: b\r\n")); // cut
}
