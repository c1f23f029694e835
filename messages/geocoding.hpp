#pragma once
// geocode_address: the tool request and reply, and the geocoding provider's
// query and candidates.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "transitd/messages/common.hpp"

namespace transitd {

/// Results wanted; above `geocode_size_cap` is capped there (D10).
inline constexpr int_range geocode_size{1, int_range::unbounded, 10};
inline constexpr int32_t geocode_size_cap = 40;
/// The query text, after trimming.
inline constexpr length_range geocode_text{1, 200};
/// Pelias layers at most.
inline constexpr std::size_t geocode_max_layers = 8;

struct geocode_request {
  call_context context;
  /// Trimmed by the tool.
  std::string text;
  int32_t size = geocode_size.fallback;
  std::string language{default_language};
  std::optional<coordinate> focus;
  /// Pelias layers, passed through (at most 8).
  std::vector<std::string> layers;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, geocode_request& x) {
  return f(x.context, x.text, x.size, x.language, x.focus, x.layers);
}

struct bounding_box {
  double min_lon = 0;
  double max_lon = 0;
  double min_lat = 0;
  double max_lat = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, bounding_box& x) {
  return f(x.min_lon, x.max_lon, x.min_lat, x.max_lat);
}

enum class place_type : uint8_t { address, poi, stop };

const char* to_string(place_type type) noexcept;

struct geocode_result {
  std::string name;
  coordinate position;
  /// 0..1.
  double confidence = 0;
  place_type type = place_type::poi;
  std::optional<std::string> language;
  std::optional<std::string> label;
  std::optional<std::string> address;
  std::optional<bounding_box> bbox;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, geocode_result& x) {
  return f(x.name, x.position, x.confidence, x.type, x.language, x.label,
           x.address, x.bbox);
}

struct geocode_reply {
  /// The normalised (trimmed) query text.
  std::string query;
  std::string language;
  std::vector<geocode_result> results;
  bool truncated = false;
  std::string correlation_id;
  std::vector<warning> warnings;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, geocode_reply& x) {
  return f(x.query, x.language, x.results, x.truncated, x.correlation_id,
           x.warnings);
}

/// Provider query (Pelias /search).
struct geocode_query {
  call_context context;
  std::string text;
  int32_t size = 10;
  std::string language = "en";
  std::optional<coordinate> focus;
  std::vector<std::string> layers;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, geocode_query& x) {
  return f(x.context, x.text, x.size, x.language, x.focus, x.layers);
}

/// One Pelias feature, as the provider reports it.
struct geocode_candidate {
  std::string name;
  coordinate position;
  /// As received: 0..1, or 0..100 from some deployments.
  double confidence = 0;
  /// Pelias layer ("address", "venue", "stop", ...).
  std::string layer;
  std::optional<std::string> label;
  std::optional<std::string> address;
  std::optional<bounding_box> bbox;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, geocode_candidate& x) {
  return f(x.name, x.position, x.confidence, x.layer, x.label, x.address,
           x.bbox);
}

struct geocode_candidates {
  std::vector<geocode_candidate> candidates;
  int64_t fetched_ms = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, geocode_candidates& x) {
  return f(x.candidates, x.fetched_ms);
}

} // namespace transitd
