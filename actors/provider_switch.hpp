#pragma once
// PROVIDER_SWITCH: chooses the provider of each query. A stop id goes to
// the provider whose prefix it carries ("nyc:101N" → feed nyc; ids no
// prefix claims go to the provider without one, Digitransit's "HSL:..."),
// a point to the first provider in order whose service area holds it (for
// a journey: both ends), a geocoding text to the provider holding the
// focus, else to every provider, their candidates merged best first.
// Outside every area: unsupported-region.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "transitd/messages/interfaces.hpp"

namespace transitd {

struct provider_entry {
  /// For messages: "feed nyc", "Digitransit".
  std::string name;
  /// Stop ids of this provider start with it ("nyc:"); empty: the ids
  /// `claims` accepts (without `claims`: every id no other entry takes).
  std::string stop_prefix;
  /// The service area now; nullopt while the provider has none yet (a
  /// feed still loading).
  std::function<std::optional<region>()> area;
  /// Why the provider cannot answer yet (a feed still loading, or whose
  /// first load failed); null or nullopt: it can.
  std::function<std::optional<failure>()> unavailable;
  timetable_actor timetable;
  journey_planner_actor journey_planner;
  geocoding_actor geocoding;
  /// Vehicles and alerts; null: the provider has none.
  realtime_info_actor realtime;
  /// Trips, lines, reach, coverage; null: the provider answers none.
  network_info_actor network;
  /// For an entry without a prefix: the stop ids it serves, by their form
  /// (TfL's NaPTAN and hub ids, Digitransit's FEED:ID).
  std::function<bool(const std::string&)> claims;
  /// How its ids look, for messages ("HSL:1040129 (Digitransit)"); empty:
  /// the prefix followed by "...".
  std::string id_forms;
  /// What a `feed` argument calls it besides its prefix ("tfl").
  std::string feed_name;
  /// Which NETWORK_INFO questions it answers (`network_question` bits):
  /// a question no other names goes to the only entry answering it.
  unsigned questions = ~0u;
};

/// NETWORK_INFO's questions, as provider_entry::questions bits.
enum network_question : unsigned {
  ask_trips = 1,
  ask_reach = 2,
  ask_routes = 4,
  ask_status = 8,
};

struct provider_switch_state {
  static inline const char* name = "provider_switch";
  std::vector<provider_entry> entries;
};

/// `entries` in the order of preference.
provider_switch_actor::behavior_type provider_switch(
  provider_switch_actor::stateful_pointer<provider_switch_state> self,
  std::vector<provider_entry> entries);

/// Which entry answers a realtime query: the feed named, the one an id's
/// prefix ("nyc:") names (with `ids_of_fallback`, an id without a known
/// prefix goes to the entry of unprefixed ids), the area holding
/// `center`, else the only entry with realtime; a failure saying what to
/// give instead.
outcome<std::size_t>
entry_for_realtime(const std::vector<provider_entry>& entries,
                   const std::string& id, const std::string& feed,
                   const std::optional<coordinate>& center,
                   bool ids_of_fallback);

/// Which entry serves a stop id; nullopt when none.
std::optional<std::size_t>
entry_for_stop(const std::vector<provider_entry>& entries,
               const std::string& stop_id);

/// Whether the entry's area (now) holds every point.
bool entry_holds(const provider_entry& entry,
                 std::initializer_list<coordinate> points);

/// The entry answering network questions (NETWORK_INFO) whose prefix
/// `id` carries ("nyc:..."); nullopt when none.
std::optional<std::size_t>
entry_for_prefixed(const std::vector<provider_entry>& entries,
                   const std::string& id);

/// "WHAT X belongs to no provider here", with `hint` and the id forms of
/// the entries answering network questions.
failure unknown_id(const std::vector<provider_entry>& entries,
                   const std::string& what, const std::string& id,
                   const std::string& hint);

/// "stop X belongs to no provider here", naming the id forms served.
failure unknown_stop(const std::vector<provider_entry>& entries,
                     const std::string& stop_id);

/// The first entry (in order) whose area holds every point and that
/// `serves` (when given: it has the actor the question needs).
std::optional<std::size_t>
entry_for_points(const std::vector<provider_entry>& entries,
                 std::initializer_list<coordinate> points,
                 bool (*serves)(const provider_entry&) = nullptr);

/// The entry a `feed` argument names: by its prefix ("nyc" for "nyc:") or
/// its feed_name ("tfl"); nullopt when none.
std::optional<std::size_t>
entry_named(const std::vector<provider_entry>& entries,
            const std::string& feed);

/// The entry answering a network question (NETWORK_INFO, `question`): the
/// one `feed` names, else the one the first non-empty of `ids` belongs to,
/// else the one whose area holds `near`, else the only feed answering it
/// (without feeds, the only entry); a failure naming what to give
/// otherwise (`what`: "line").
outcome<std::size_t>
entry_for_network(const std::vector<provider_entry>& entries,
                  network_question question, const std::string& feed,
                  std::initializer_list<const std::string*> ids,
                  const std::optional<coordinate>& near,
                  const std::string& what, const std::string& hint);

/// "origin lies outside every area served here (...)".
failure outside_every_area(const std::vector<provider_entry>& entries,
                           const std::string& what);

} // namespace transitd
