#pragma once
// The languages a feed answers in (D24): its own (feed_info.txt's
// feed_lang, else agency_lang), those translations.txt gives and those of
// its realtime alerts; and names and headsigns in the language asked,
// where translations.txt has them.

#include <string>
#include <string_view>
#include <vector>

#include "transitd/messages/departures.hpp"
#include "transitd/messages/lines.hpp"
#include "transitd/messages/reach.hpp"
#include "transitd/messages/realtime.hpp"
#include "transitd/messages/stops.hpp"
#include "transitd/messages/trip_info.hpp"
#include "transitd/messages/trips.hpp"
#include "transitd/offline/gtfs_realtime.hpp"
#include "transitd/offline/gtfs_timetable.hpp"

namespace transitd::gtfs {

/// The feed's languages, lower case, sorted, once each.
std::vector<std::string> languages_of(const timetable& tt,
                                      const realtime_layer* rt);

/// The language to answer `asked` in: none asked, the feed's own; one the
/// feed has (case and region aside: "en-US" is "en", "es" is "es-419"),
/// as the feed spells it; a feed naming no language answers any in its
/// only texts; else validation-error naming the feed's languages.
outcome<std::string> answer_language(const timetable& tt,
                                     const realtime_layer* rt,
                                     std::string_view asked);

/// Stop names, line names and headsigns of an answer in `language`.
void translate(const timetable& tt, std::string_view language,
               stop_departures& answer);
void translate(const timetable& tt, std::string_view language,
               nearby_stops& answer);
void translate(const timetable& tt, std::string_view language,
               trip_plans& answer);
void translate(const timetable& tt, std::string_view language,
               trip_details& answer);
void translate(const timetable& tt, std::string_view language,
               route_details& answer);
void translate(const timetable& tt, std::string_view language,
               reach_result& answer);
void translate(const timetable& tt, std::string_view language,
               alert_list& answer);

} // namespace transitd::gtfs
