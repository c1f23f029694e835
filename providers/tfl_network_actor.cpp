#include "transitd/providers/tfl_network_actor.hpp"

#include <algorithm>
#include <cctype>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "transitd/messages/time.hpp"
#include "transitd/messages/limits.hpp"

namespace transitd {

namespace {

using self_pointer
  = tfl_network_actor::stateful_pointer<tfl_network_state>;

/// D18: without a key TfL refuses every call; say so at once.
std::optional<failure> unusable(const tfl_network_state& st) {
  if (st.upstream.key.empty() && st.key_required)
    return make_failure(ec::upstream_error,
                        "the TfL API key is missing: set TFL_API_KEY",
                        "the operator must configure TFL_API_KEY");
  if (auto err = st.upstream.unusable())
    return to_failure(*err);
  return std::nullopt;
}

failure not_served(const std::string& what) {
  return make_failure(ec::data_not_available,
                      "TfL does not answer " + what + " here",
                      "use planJourney for London journeys; " + what
                        + " works on the GTFS feeds served here");
}

/// The predictions of `stop` within the query's window.
void fetch_arrivals(self_pointer self, const stop_departures_query& q,
                    const tfl::stop_point& stop,
                    caf::typed_response_promise<stop_departures> rp) {
  stop_departures answer;
  answer.stop_id = q.stop_id;
  if (!stop.name.empty())
    answer.stop_name = stop.name;
  answer.timezone = std::string{tfl::london_zone};
  if (self->state.demo)
    answer.warnings.push_back(
      {"demo-data", "London departures from the built-in demo upstream, "
                    "not TfL's; configure TFL_API_KEY for real ones"});
  if (stop.arrival_ids.empty()) {
    // A hub with nothing that has arrivals below it (a pier, a car park).
    answer.fetched_ms = now_ms();
    rp.deliver(std::move(answer));
    return;
  }
  const auto& up = self->state.upstream;
  auto call = up.make_call(q.context, "GET",
                           tfl::make_arrivals_target(up.path,
                                                     stop.arrival_ids));
  int64_t from = q.start_time;
  int64_t until = q.start_time + q.time_range_seconds;
  auto max = static_cast<std::size_t>(std::max(1, q.max_departures));
  auto newest = std::make_shared<int64_t>(0);
  call_upstream_then<std::vector<stop_time>>(
    self, up.gate, std::move(call), up.name,
    [newest](const http_response& r) {
      return tfl::parse_arrivals(r, *newest);
    },
    [rp, answer, from, until, max,
     newest](outcome<std::vector<stop_time>> times) mutable {
      if (!times) {
        rp.deliver(to_error(times.error()));
        return;
      }
      for (auto& t : *times)
        if (t.realtime_departure >= from && t.realtime_departure <= until)
          answer.stop_times.push_back(std::move(t));
      std::stable_sort(answer.stop_times.begin(), answer.stop_times.end(),
                       [](const stop_time& a, const stop_time& b) {
                         return a.realtime_departure < b.realtime_departure;
                       });
      if (answer.stop_times.size() > max)
        answer.stop_times.resize(max);
      answer.fetched_ms = now_ms();
      answer.last_realtime_update_ms = *newest;
      rp.deliver(std::move(answer));
    });
}

/// The StopPoint of `id` (cached), then `then(stop)`; a failure goes to
/// `fail`.
template <class Then, class Fail>
void with_stop(self_pointer self, const call_context& context,
               const std::string& id, Then then, Fail fail) {
  auto& stops = self->state.stops;
  if (auto it = stops.find(id); it != stops.end()) {
    then(it->second);
    return;
  }
  const auto& up = self->state.upstream;
  auto call = up.make_call(context, "GET",
                           tfl::make_stop_point_target(up.path, id));
  call_upstream_then<tfl::stop_point>(
    self, up.gate, std::move(call), up.name,
    [id](const http_response& r) { return tfl::parse_stop_point(r, id); },
    [self, id, then, fail](outcome<tfl::stop_point> stop) mutable {
      if (!stop) {
        fail(stop.error());
        return;
      }
      auto& stops = self->state.stops;
      if (stops.size() >= tfl_network_state::max_stops)
        stops.clear();
      stops[id] = *stop;
      then(*stop);
    });
}

} // namespace

tfl_network_actor::behavior_type
tfl_network(tfl_network_actor::stateful_pointer<tfl_network_state> self,
            tfl_journey_options options, upstream_gate_actor gate,
            bool demo) {
  self->state.demo = demo;
  self->state.upstream = upstream_client{"TfL", options.url, std::move(gate),
                                        options.timeout_ms, "app_key",
                                        options.api_key};
  self->state.key_required = options.key_required;
  return {
    [self](stop_departures_query& q) -> caf::result<stop_departures> {
      if (auto bad = unusable(self->state))
        return to_error(*bad);
      // TfL's texts are English (D24).
      if (!q.language.empty()
          && lower_ascii(q.language.substr(0, q.language.find('-'))) != "en")
        return to_error(make_failure(
          ec::validation_error,
          "TfL has no texts in \"" + q.language + "\"",
          "London answers in en (or without language)"));
      if (!tfl::is_stop_id(q.stop_id))
        return to_error(make_failure(
          ec::validation_error,
          "\"" + q.stop_id + "\" is not a TfL stop id",
          "TfL stop ids look like " + std::string{tfl::stop_id_forms}));
      auto rp = self->make_response_promise<stop_departures>();
      with_stop(
        self, q.context, q.stop_id,
        [self, q, rp](const tfl::stop_point& stop) {
          fetch_arrivals(self, q, stop, rp);
        },
        [rp](const failure& f) mutable { rp.deliver(to_error(f)); });
      return rp;
    },
    [](nearby_stops_query&) -> caf::result<nearby_stops> {
      return to_error(not_served("find_stops"));
    },
    [](trip_query&) -> caf::result<trip_details> {
      return to_error(not_served("get_trip"));
    },
    [](reach_query&) -> caf::result<reach_result> {
      return to_error(not_served("reachable"));
    },
    [self](route_query& q) -> caf::result<route_details> {
      if (auto bad = unusable(self->state))
        return to_error(*bad);
      auto rp = self->make_response_promise<route_details>();
      route_details answer;
      answer.timezone = std::string{tfl::london_zone};
      answer.service_date = format_in_zone(q.time, tfl::london_zone)
                              .substr(0, 10);
      if (!q.route.empty()) {
        const auto& up = self->state.upstream;
        auto id = tfl::line_id_of(q.route);
        auto call = up.make_call(q.context, "GET",
                                 tfl::make_route_sequence_target(up.path, id));
        call_upstream_then<line_info>(
          self, up.gate, std::move(call), up.name,
          [id](const http_response& r) {
            return tfl::parse_route_sequence(r, id);
          },
          [rp, answer](outcome<line_info> line) mutable {
            if (!line) {
              rp.deliver(to_error(line.error()));
              return;
            }
            answer.lines.push_back(std::move(*line));
            answer.fetched_ms = now_ms();
            rp.deliver(std::move(answer));
          });
        return rp;
      }
      if (q.stop.empty() || !tfl::is_stop_id(q.stop))
        return to_error(make_failure(
          ec::validation_error, "TfL needs a line or a stop",
          "give route (\"Victoria\", \"12\") or stop (\"HUBOXC\")"));
      with_stop(
        self, q.context, q.stop,
        [rp, answer](const tfl::stop_point& stop) mutable {
          answer.complex.push_back({stop.id, stop.name, stop.position});
          for (auto line : stop.lines) {
            line.at_stop = stop.id;
            answer.lines.push_back(std::move(line));
          }
          answer.fetched_ms = now_ms();
          rp.deliver(std::move(answer));
        },
        [rp](const failure& f) mutable { rp.deliver(to_error(f)); });
      return rp;
    },
    [self](line_status_query& q) -> caf::result<line_status_list> {
      if (auto bad = unusable(self->state))
        return to_error(*bad);
      const auto& up = self->state.upstream;
      auto call = up.make_call(q.context, "GET",
                               tfl::make_line_status_target(up.path));
      auto rp = self->make_response_promise<line_status_list>();
      auto wanted = lower_ascii(q.route);
      bool demo = self->state.demo;
      call_upstream_then<std::vector<line_state>>(
        self, up.gate, std::move(call), up.name,
        [](const http_response& r) { return tfl::parse_line_status(r); },
        [rp, wanted, demo](outcome<std::vector<line_state>> lines) mutable {
          if (!lines) {
            rp.deliver(to_error(lines.error()));
            return;
          }
          line_status_list answer;
          answer.realtime = true;
          answer.fetched_ms = now_ms();
          if (demo)
            answer.warnings.push_back(
              {"demo-data", "London line status from the built-in demo "
                            "upstream, not TfL's; configure TFL_API_KEY"});
          for (auto& l : *lines)
            if (wanted.empty() || lower_ascii(l.route_id) == wanted
                || lower_ascii(l.line) == wanted
                || lower_ascii(l.line) == wanted + " line")
              answer.lines.push_back(std::move(l));
          if (!wanted.empty() && answer.lines.empty()) {
            std::string known;
            for (const auto& l : *lines)
              known += (known.empty() ? "" : ", ") + l.line;
            rp.deliver(to_error(make_failure(
              ec::validation_error, "TfL has no line \"" + wanted + "\"",
              "TfL's lines: " + known)));
            return;
          }
          rp.deliver(std::move(answer));
        });
      return rp;
    },
  };
}

} // namespace transitd
