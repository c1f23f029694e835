// The one outbound HTTP path over real sockets on 127.0.0.1: one deadline
// for the whole request (a server trickling its head or body is cut at
// it), the size bound, redirects followed here, conditional requests, the
// body into a sink, and an abort from another thread.

#include "transitd/net/http_fetch.hpp"

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>


#include <catch2/catch.hpp>
#include <httplib.h>

#include "support/local_http_server.hpp"

using namespace transitd;
using namespace std::chrono_literals;

namespace {

using local_server = test::local_http_server;

using trickling_server = test::trickling_server;

http_fetch_failure failed(const http_fetch_result& r) {
  REQUIRE(std::holds_alternative<http_fetch_failure>(r));
  return std::get<http_fetch_failure>(r);
}

http_fetch_response answered(const http_fetch_result& r) {
  if (auto* f = std::get_if<http_fetch_failure>(&r))
    FAIL(f->message);
  return std::get<http_fetch_response>(r);
}

} // namespace

TEST_CASE("http_fetch: one deadline bounds the whole request, however the "
          "bytes trickle",
          "[net][http_fetch]") {
  // A head of ~60 bytes at 20 ms a byte takes over a second; every read
  // is answered within 20 ms. The deadline is 200 ms.
  std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
                     "X-Padding: 0123456789\r\n\r\nok";
  trickling_server slow{head, 20ms};
  http_fetcher fetcher;
  http_fetch_request request;
  request.url = "http://127.0.0.1:" + std::to_string(slow.port) + "/";
  http_fetch_options options;
  options.timeout = 200ms;
  auto f = failed(fetcher.fetch(request, options));
  CHECK(f.kind == http_fetch_error::timeout);
  CHECK_THAT(f.message, Catch::Contains("200 ms"));
}

TEST_CASE("http_fetch: bodies are bounded, redirected, conditional and "
          "streamed",
          "[net][http_fetch]") {
  local_server s;
  s.server.Get("/big", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(2000, 'x'), "text/plain");
  });
  s.server.Get("/a", [](const httplib::Request&, httplib::Response& res) {
    res.set_redirect("/b");
  });
  s.server.Get("/b", [](const httplib::Request& req, httplib::Response& res) {
    if (req.get_header_value("If-None-Match") == "\"v1\"") {
      res.status = 304;
      return;
    }
    res.set_header("ETag", "\"v1\"");
    res.set_content("fresh", "text/plain");
  });
  s.server.Get("/loop", [](const httplib::Request&, httplib::Response& res) {
    res.set_redirect("/loop");
  });
  s.start();
  http_fetcher fetcher;
  http_fetch_options options;
  http_fetch_request request;

  request.url = s.url("/big");
  options.max_bytes = 1000;
  CHECK(failed(fetcher.fetch(request, options)).kind
        == http_fetch_error::too_large);
  options.max_bytes = 4000;
  CHECK(answered(fetcher.fetch(request, options)).body.size() == 2000);

  // A redirect is answered as it came unless followed.
  request.url = s.url("/a");
  CHECK(answered(fetcher.fetch(request, options)).status == 302);
  options.max_redirects = 5;
  auto moved = answered(fetcher.fetch(request, options));
  CHECK(moved.status == 200);
  CHECK(moved.body == "fresh");
  CHECK(moved.url == s.url("/b"));
  CHECK(moved.header("etag") == "\"v1\"");
  request.url = s.url("/loop");
  CHECK(failed(fetcher.fetch(request, options)).kind
        == http_fetch_error::too_many_redirects);

  // Conditional: the validator held gets a 304, never taken for a
  // redirect, and the sink is not opened for it.
  request.url = s.url("/a");
  request.headers = {{"If-None-Match", "\"v1\""}};
  int opened = 0;
  std::string streamed;
  http_body_sink sink{[&](const http_fetch_response&) {
                        ++opened;
                        return true;
                      },
                      [&](const char* data, std::size_t n) {
                        streamed.append(data, n);
                        return true;
                      }};
  CHECK(answered(fetcher.fetch(request, options, &sink)).status == 304);
  CHECK(opened == 0);
  request.headers.clear();
  auto full = answered(fetcher.fetch(request, options, &sink));
  CHECK(full.status == 200);
  CHECK(opened == 1);
  CHECK(streamed == "fresh");
  CHECK(full.body.empty()); // it went to the sink

  request.url = "ftp://127.0.0.1/x";
  CHECK(failed(fetcher.fetch(request, options)).kind
        == http_fetch_error::bad_url);
}

TEST_CASE("http_fetch: an abort from another thread ends the request in "
          "flight",
          "[net][http_fetch]") {
  local_server s;
  std::promise<void> arrived;
  std::atomic<bool> release{false};
  s.server.Get("/hang", [&](const httplib::Request&, httplib::Response& res) {
    arrived.set_value();
    while (!release)
      std::this_thread::sleep_for(5ms);
    res.set_content("late", "text/plain");
  });
  s.start();
  http_fetcher fetcher;
  http_fetch_request request;
  request.url = s.url("/hang");
  http_fetch_options options;
  options.timeout = 60s;
  auto done = std::async(std::launch::async,
                         [&] { return fetcher.fetch(request, options); });
  arrived.get_future().wait();
  // The request is in flight (the handler has it): abort until it lands.
  while (!fetcher.abort_handle()->abort())
    std::this_thread::yield();
  auto f = failed(done.get());
  release = true;
  CHECK(f.kind == http_fetch_error::cancelled);
  CHECK(fetcher.abort_handle()->aborted() == 1);
}
