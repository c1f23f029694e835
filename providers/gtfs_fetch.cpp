#include "providers/gtfs_fetch.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <httplib.h>
#include <zip.h>

#include "net/url.hpp"

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

struct validators {
  std::string etag;
  std::string last_modified;
};

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

outcome<fetch_outcome> fetch_feed(const std::string& url,
                                  const std::string& path,
                                  const fetch_options& options) {
  std::error_code exists_error;
  bool have_copy = std::filesystem::exists(path, exists_error);
  auto known = have_copy ? read_validators(path) : validators{};
  httplib::Headers headers;
  if (!known.etag.empty())
    headers.emplace("If-None-Match", known.etag);
  if (!known.last_modified.empty())
    headers.emplace("If-Modified-Since", known.last_modified);
  auto partial = path + ".part";
  auto discard = [&] {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
  };
  // Redirects are followed here, not by cpp-httplib, which would take a
  // 304 for one.
  std::string current = url;
  for (int hop = 0; hop < 5; ++hop) {
    auto where = split_url(current);
    if (!where)
      return fetch_failure(url, where.error().message);
    httplib::Client client{where->origin};
    client.set_connection_timeout(options.connect_timeout_s, 0);
    client.set_read_timeout(options.read_timeout_s, 0);
    std::ofstream out;
    int64_t received = 0;
    bool too_big = false;
    int status = 0;
    auto result = client.Get(
      where->path, headers,
      [&](const httplib::Response& response) {
        status = response.status;
        if (status == 200) {
          out.open(partial, std::ios::binary | std::ios::trunc);
          return static_cast<bool>(out);
        }
        return true;
      },
      [&](const char* data, std::size_t length) {
        if (status != 200)
          return true;
        received += static_cast<int64_t>(length);
        if (received > options.max_bytes) {
          too_big = true;
          return false;
        }
        out.write(data, static_cast<std::streamsize>(length));
        return static_cast<bool>(out);
      });
    out.close();
    if (too_big) {
      discard();
      return fetch_failure(url, "larger than "
                                  + std::to_string(options.max_bytes >> 20)
                                  + " MiB");
    }
    if (!result) {
      discard();
      return fetch_failure(url, httplib::to_string(result.error()));
    }
    auto code = result->status;
    if ((code == 301 || code == 302 || code == 303 || code == 307
         || code == 308)
        && result->has_header("Location")) {
      auto next = result->get_header_value("Location");
      current = next.rfind('/', 0) == 0 ? where->origin + next : next;
      continue;
    }
    if (code == 304 && have_copy)
      return fetch_outcome::unchanged;
    if (code != 200) {
      discard();
      return fetch_failure(url, "HTTP status " + std::to_string(code));
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
    meta << result->get_header_value("ETag") << "\n"
         << result->get_header_value("Last-Modified") << "\n";
    return fetch_outcome::downloaded;
  }
  return fetch_failure(url, "more than 5 redirects");
}

} // namespace transitd::gtfs
