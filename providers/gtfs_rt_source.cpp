#include "transitd/providers/gtfs_rt_source.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <httplib.h>
#include <spdlog/spdlog.h>

#include "transitd/net/url.hpp"
#include "transitd/providers/gtfs_fetch.hpp"
#include "transitd/util/content_hash.hpp"

namespace transitd::gtfs_rt {

namespace {

constexpr int32_t max_backoff_s = 600;

bool is_url(const std::string& s) {
  return s.rfind("http://", 0) == 0 || s.rfind("https://", 0) == 0;
}

} // namespace

int32_t cache_max_age(std::string_view value) {
  int32_t best = 0;
  bool any = false;
  for (std::string_view name : {"s-maxage=", "max-age="}) {
    for (std::size_t at = 0; (at = value.find(name, at)) != std::string_view::npos;
         at += name.size()) {
      // A directive starts the header or follows a comma and spaces.
      auto before = at;
      while (before > 0 && value[before - 1] == ' ')
        --before;
      if (before > 0 && value[before - 1] != ',')
        continue;
      int64_t n = 0;
      auto i = at + name.size();
      bool digits = false;
      while (i < value.size() && std::isdigit(static_cast<unsigned char>(value[i]))) {
        n = std::min<int64_t>(n * 10 + (value[i] - '0'), 86400);
        ++i;
        digits = true;
      }
      if (digits && !any) {
        best = static_cast<int32_t>(n);
        any = true;
      }
    }
    if (any)
      break; // s-maxage wins over max-age for a shared cache such as us
  }
  if (value.find("no-cache") != std::string_view::npos
      || value.find("no-store") != std::string_view::npos)
    return 0;
  return best;
}

template <class T>
void source::keyed<T>::put(T item) {
  auto id = item.entity_id;
  auto [it, fresh] = index.emplace(id, items.size());
  if (fresh) {
    items.push_back(std::move(item));
    live.push_back(true);
  } else {
    items[it->second] = std::move(item);
    live[it->second] = true;
  }
}

template <class T>
void source::keyed<T>::erase(const std::string& id) {
  auto it = index.find(id);
  if (it != index.end())
    live[it->second] = false;
}

template <class T>
std::vector<T> source::keyed<T>::all() const {
  std::vector<T> out;
  out.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i)
    if (live[i])
      out.push_back(items[i]);
  return out;
}

source::source(std::string location, source_options options)
  : location_(std::move(location)), options_(options),
    is_url_(is_url(location_)) {
  status_.name = is_url_ ? redact_url(location_) : location_;
}

std::vector<trip_update> source::trip_updates() const {
  return trips_.all();
}

std::vector<vehicle_position> source::vehicles() const {
  return vehicles_.all();
}

std::vector<alert> source::alerts() const {
  return alerts_.all();
}

void source::apply(feed message) {
  if (!message.differential) {
    trips_.clear();
    vehicles_.clear();
    alerts_.clear();
  }
  // Entities without an id cannot be replaced later: in a full dataset
  // each stands alone (numbered), in a differential one it is kept too.
  std::size_t n = 0;
  auto id_of = [&](std::string& id) {
    if (id.empty())
      id = "#" + std::to_string(n);
    ++n;
  };
  for (auto& t : message.trip_updates) {
    id_of(t.entity_id);
    trips_.put(std::move(t));
  }
  for (auto& v : message.vehicles) {
    id_of(v.entity_id);
    vehicles_.put(std::move(v));
  }
  for (auto& a : message.alerts) {
    id_of(a.entity_id);
    alerts_.put(std::move(a));
  }
  for (const auto& id : message.deleted) {
    trips_.erase(id);
    vehicles_.erase(id);
    alerts_.erase(id);
  }
  if (message.notes != status_.notes) // logged once, not every poll
    for (const auto& note : message.notes)
      spdlog::warn("realtime {}: {}", status_.name, note);
  status_.notes = std::move(message.notes);
  if (message.timestamp)
    status_.timestamp = static_cast<int64_t>(*message.timestamp);
  status_.trip_updates = trips_.all().size();
  status_.vehicles = vehicles_.all().size();
  status_.alerts = alerts_.all().size();
}

void source::failed(int64_t now_ms, std::string error) {
  ++status_.failures;
  backoff_s_ = std::clamp(backoff_s_ == 0 ? options_.interval_s * 2
                                          : backoff_s_ * 2,
                          1, max_backoff_s);
  next_due_ms_ = now_ms + int64_t{backoff_s_} * 1000;
  spdlog::warn("realtime {}: {}; next attempt in {} s", status_.name, error,
               backoff_s_);
  status_.last_error = std::move(error);
}

bool source::poll(int64_t now_ms) {
  if (now_ms < next_due_ms_)
    return false;
  ++status_.polls;
  std::string body;
  std::string error;
  bool changed = is_url_ ? fetch_url(body, error) : read_file(body, error);
  if (!error.empty()) {
    failed(now_ms, std::move(error));
    return false;
  }
  backoff_s_ = 0;
  next_due_ms_ = now_ms
                 + int64_t{std::max(options_.interval_s, max_age_s_)} * 1000;
  if (!changed) {
    ++status_.unchanged;
    return false;
  }
  auto decoded = decode(body, options_.max_bytes);
  if (!decoded) {
    ++status_.refused;
    failed(now_ms, decoded.error().message);
    next_due_ms_ = now_ms + int64_t{options_.interval_s} * 1000;
    return false;
  }
  apply(std::move(*decoded));
  status_.last_error.clear();
  return true;
}

bool source::read_file(std::string& body, std::string& error) {
  std::error_code ec;
  auto size = std::filesystem::file_size(location_, ec);
  if (ec) {
    error = "cannot read " + location_ + ": " + ec.message();
    return false;
  }
  if (size > options_.max_bytes) {
    error = location_ + " is larger than "
            + std::to_string(options_.max_bytes >> 20) + " MiB";
    return false;
  }
  std::ifstream in{location_, std::ios::binary};
  body.assign(std::istreambuf_iterator<char>{in},
              std::istreambuf_iterator<char>{});
  if (!in && !in.eof()) {
    error = "cannot read " + location_;
    return false;
  }
  // The content decides: a replacement with the same size and
  // modification time is still a change.
  auto signature
    = static_cast<int64_t>(content_hash_of(body.data(), body.size()));
  if (signature == file_signature_)
    return false;
  file_signature_ = signature;
  return true;
}

bool source::fetch_url(std::string& body, std::string& error) {
  gtfs::fetch_options limits;
  limits.timeout_s = options_.timeout_s;
  limits.max_bytes = static_cast<int64_t>(options_.max_bytes);
  auto reply = gtfs::conditional_get(
    location_, {etag_, last_modified_}, limits,
    [&] {
      body.clear();
      return true;
    },
    [&](const char* data, std::size_t length) {
      body.append(data, length);
      return true;
    });
  if (!reply) {
    error = reply.error().message;
    return false;
  }
  max_age_s_ = cache_max_age(reply->cache_control);
  if (reply->status == 304)
    return false;
  etag_ = reply->fresh.etag;
  last_modified_ = reply->fresh.last_modified;
  return true;
}

} // namespace transitd::gtfs_rt
