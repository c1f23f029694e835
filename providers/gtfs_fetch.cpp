#include "transitd/providers/gtfs_fetch.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <httplib.h>
#include <zip.h>

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
  httplib::Headers headers;
  if (!known.etag.empty())
    headers.emplace("If-None-Match", known.etag);
  if (!known.last_modified.empty())
    headers.emplace("If-Modified-Since", known.last_modified);
  auto failed = [](std::string what) {
    return make_failure(ec::data_not_available, std::move(what));
  };
  std::string current = url;
  for (int hop = 0; hop < 5; ++hop) {
    auto where = split_url(current);
    if (!where)
      return failed(where.error().message);
    httplib::Client client{where->origin};
    client.set_connection_timeout(options.connect_timeout_s, 0);
    client.set_read_timeout(options.read_timeout_s, 0);
    int64_t received = 0;
    bool too_big = false;
    int status = 0;
    auto result = client.Get(
      where->path, headers,
      [&](const httplib::Response& response) {
        status = response.status;
        return status != 200 || open();
      },
      [&](const char* data, std::size_t length) {
        if (status != 200)
          return true;
        received += static_cast<int64_t>(length);
        if (received > options.max_bytes) {
          too_big = true;
          return false;
        }
        return sink(data, length);
      });
    if (too_big)
      return failed("larger than " + std::to_string(options.max_bytes >> 20)
                    + " MiB");
    if (!result)
      return failed(httplib::to_string(result.error()));
    auto code = result->status;
    if ((code == 301 || code == 302 || code == 303 || code == 307
         || code == 308)
        && result->has_header("Location")) {
      auto next = result->get_header_value("Location");
      current = next.rfind('/', 0) == 0 ? where->origin + next : next;
      continue;
    }
    if (code != 200 && code != 304)
      return failed("HTTP status " + std::to_string(code));
    conditional_reply reply;
    reply.status = code;
    reply.cache_control = result->get_header_value("Cache-Control");
    if (code == 200)
      reply.fresh = {result->get_header_value("ETag"),
                     result->get_header_value("Last-Modified")};
    return reply;
  }
  return failed("more than 5 redirects");
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
