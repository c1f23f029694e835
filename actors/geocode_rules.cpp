#include "transitd/actors/geocode_rules.hpp"

#include <algorithm>
#include <cmath>

#include "transitd/actors/stops_rules.hpp"

namespace transitd {

std::optional<failure> normalise_and_validate(geocode_request& request) {
  request.text = std::string{trim_space(request.text)};
  if (auto bad = check_length("text", request.text, geocode_text))
    return bad;
  if (auto bad = check_range("size", request.size, geocode_size))
    return bad;
  if (auto bad = check_language("language", request.language))
    return bad;
  if (request.focus)
    if (auto bad = validate_coordinate(*request.focus, "focus"))
      return bad;
  if (request.layers.size() > geocode_max_layers)
    return make_failure(ec::validation_error,
                        "layers may name at most 8 layers");
  for (const auto& layer : request.layers)
    if (layer.empty() || layer.size() > 40
        || layer.find_first_not_of("abcdefghijklmnopqrstuvwxyz_")
             != std::string::npos)
      return make_failure(ec::validation_error,
                          "layers must be lower-case Pelias layer names, "
                          "got \"" + layer + "\"");
  return std::nullopt;
}

geocode_query make_query(const geocode_request& request) {
  geocode_query query;
  query.context = request.context;
  query.text = request.text;
  auto size = std::min(request.size, geocode_size_cap);
  query.size = std::min(size + 1, geocode_size_cap);
  query.language = request.language;
  query.focus = request.focus;
  query.layers = request.layers;
  return query;
}

place_type map_layer(std::string_view layer) {
  if (layer == "address" || layer == "street")
    return place_type::address;
  if (layer == "stop" || layer == "station")
    return place_type::stop;
  return place_type::poi;
}

double normalise_confidence(double raw) {
  if (!std::isfinite(raw))
    return 0;
  if (raw > 1)
    raw /= 100;
  return std::clamp(raw, 0.0, 1.0);
}

outcome<geocode_reply> build_geocode_reply(const geocode_request& request,
                                           const geocode_candidates& upstream) {
  if (upstream.candidates.empty()) // rule 3
    return make_failure(ec::geocode_no_results,
                        "No results for '" + request.text + "'",
                        "check the spelling, or try a street address or a "
                        "better-known place name");
  geocode_reply reply;
  reply.query = request.text;
  // None asked: the geocoder's own (Digitransit's English).
  reply.language = request.language.empty()
                     ? std::string{digitransit_language}
                     : request.language;
  reply.correlation_id = request.context.correlation_id;
  std::vector<geocode_result> results;
  for (const auto& c : upstream.candidates) {
    geocode_result r;
    r.name = c.name;
    r.position = c.position;
    r.confidence = normalise_confidence(c.confidence);
    r.type = map_layer(c.layer);
    r.language = reply.language;
    r.label = c.label;
    r.address = c.address;
    r.bbox = c.bbox;
    results.push_back(std::move(r));
  }
  // Rule 2: confidence descending; within a run of confidences no more than
  // 0.01 apart, nearer to the focus first.
  std::stable_sort(results.begin(), results.end(),
                   [](const geocode_result& a, const geocode_result& b) {
                     return a.confidence > b.confidence;
                   });
  if (request.focus) {
    auto run = results.begin();
    while (run != results.end()) {
      auto end = std::find_if(run, results.end(), [&](const auto& r) {
        return run->confidence - r.confidence > geocode_confidence_tie;
      });
      std::stable_sort(run, end, [&](const auto& a, const auto& b) {
        return distance_m(*request.focus, a.position)
               < distance_m(*request.focus, b.position);
      });
      run = end;
    }
  }
  // Rule 1 / D10.
  auto size = static_cast<std::size_t>(
    std::min(request.size, geocode_size_cap));
  bool clamped = request.size > geocode_size_cap;
  if (results.size() > size
      || (clamped && results.size() >= size)) {
    reply.truncated = true;
    reply.warnings.push_back(
      {"truncated-results",
       clamped ? "size is capped at 40; more results may exist"
               : "more results exist; returning the best "
                   + std::to_string(size)});
    if (results.size() > size)
      results.resize(size);
  }
  reply.results = std::move(results);
  return reply;
}

} // namespace transitd
