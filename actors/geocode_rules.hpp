#pragma once
// The geocode_address contract as pure functions (D10 and rules 1-5).

#include <optional>

#include "transitd/messages/error.hpp"
#include "transitd/messages/geocoding.hpp"

namespace transitd {

/// Confidences closer than this tie; the focus distance decides (rule 2).
inline constexpr double geocode_confidence_tie = 0.01;

/// Trims and checks; on success `request.text` is the normalised text.
std::optional<failure> normalise_and_validate(geocode_request& request);

/// The provider query: one more than the (clamped) size, so that "the
/// provider had more" can be seen (D10), within the cap.
geocode_query make_query(const geocode_request& request);

/// Rule 5: Pelias layer → address | poi | stop.
place_type map_layer(std::string_view layer);

/// Rule 4: 0..100 → 0..1, clamped.
double normalise_confidence(double raw);

/// Rules 1-5; a `geocode-no-results` failure when nothing came back.
outcome<geocode_reply> build_geocode_reply(const geocode_request& request,
                                           const geocode_candidates& upstream);

} // namespace transitd
