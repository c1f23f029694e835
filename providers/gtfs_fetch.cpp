#include "transitd/providers/gtfs_fetch.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <zip.h>

#include "transitd/net/http_fetch.hpp"
#include "transitd/net/url.hpp"

namespace transitd::gtfs {

bool is_url(const std::string& source) {
  return source.rfind("http://", 0) == 0 || source.rfind("https://", 0) == 0;
}

std::string feed_copy_path(const std::string& directory,
                           const std::string& name, std::size_t index) {
  return (std::filesystem::path{directory}
          / (name + "-" + std::to_string(index) + ".zip"))
    .string();
}

namespace {

validators read_validators(const std::string& path) {
  validators v;
  std::ifstream in{path + ".validators"};
  std::getline(in, v.etag);
  std::getline(in, v.last_modified);
  return v;
}

failure fetch_failure(const std::string& url, const std::string& what) {
  return make_failure(ec::data_not_available,
                      "downloading GTFS " + redact_url(url) + " failed: "
                        + what,
                      "check the URL and the network; the last good copy "
                      "(if any) is served meanwhile");
}

} // namespace

outcome<conditional_reply>
conditional_get(const std::string& url, const validators& known,
                const fetch_options& options,
                const std::function<bool()>& open,
                const std::function<bool(const char*, std::size_t)>& sink) {
  http_fetch_request request;
  request.url = url;
  if (!known.etag.empty())
    request.headers.emplace_back("If-None-Match", known.etag);
  if (!known.last_modified.empty())
    request.headers.emplace_back("If-Modified-Since", known.last_modified);
  http_fetch_options limits;
  limits.timeout = std::chrono::seconds{options.timeout_s};
  limits.max_bytes = static_cast<std::size_t>(std::max<int64_t>(0, options.max_bytes));
  limits.max_redirects = 5;
  http_body_sink body{[&](const http_fetch_response&) { return open(); },
                      sink};
  http_fetcher fetcher;
  auto result = fetcher.fetch(request, limits, &body);
  auto failed = [](std::string what) {
    return make_failure(ec::data_not_available, std::move(what));
  };
  if (auto* problem = std::get_if<http_fetch_failure>(&result)) {
    if (problem->kind == http_fetch_error::too_large)
      return failed("larger than " + std::to_string(options.max_bytes >> 20)
                    + " MiB");
    return failed(problem->message);
  }
  const auto& answer = std::get<http_fetch_response>(result);
  if (answer.status != 200 && answer.status != 304)
    return failed("HTTP status " + std::to_string(answer.status));
  conditional_reply reply;
  reply.status = answer.status;
  reply.cache_control = answer.header("Cache-Control");
  if (answer.status == 200)
    reply.fresh = {answer.header("ETag"), answer.header("Last-Modified")};
  return reply;
}

outcome<fetch_outcome> fetch_feed(const std::string& url,
                                  const std::string& path,
                                  const fetch_options& options) {
  std::error_code exists_error;
  bool have_copy = std::filesystem::exists(path, exists_error);
  auto known = have_copy ? read_validators(path) : validators{};
  auto partial = path + ".part";
  auto discard = [&] {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
  };
  std::ofstream out;
  auto reply = conditional_get(
    url, known, options,
    [&] {
      out.close();
      out.open(partial, std::ios::binary | std::ios::trunc);
      return static_cast<bool>(out);
    },
    [&](const char* data, std::size_t length) {
      out.write(data, static_cast<std::streamsize>(length));
      return static_cast<bool>(out);
    });
  out.close();
  if (!reply) {
    discard();
    return fetch_failure(url, reply.error().message);
  }
  if (reply->status == 304) {
    if (have_copy)
      return fetch_outcome::unchanged;
    return fetch_failure(url, "HTTP status 304 without a copy held");
  }
  // A download that is not a zip must not replace a good copy.
  {
    int zip_error = 0;
    auto* archive = zip_open(partial.c_str(), ZIP_RDONLY, &zip_error);
    if (archive == nullptr) {
      discard();
      return fetch_failure(url, "the download is not a zip archive");
    }
    zip_discard(archive);
  }
  std::error_code ec;
  std::filesystem::rename(partial, path, ec);
  if (ec) {
    discard();
    return fetch_failure(url, "cannot write " + path + ": " + ec.message());
  }
  std::ofstream meta{path + ".validators", std::ios::trunc};
  meta << reply->fresh.etag << "\n" << reply->fresh.last_modified << "\n";
  return fetch_outcome::downloaded;
}

} // namespace transitd::gtfs
