#include "transitd/offline/gtfs_rt.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "gtfs_realtime.pb.h"
#include "transitd/messages/realtime.hpp"

namespace transitd::gtfs_rt {

namespace {

failure refused(std::string why) {
  return make_failure(ec::upstream_error,
                      "GTFS-realtime message refused: " + std::move(why));
}

/// "SIGNIFICANT_DELAYS" → "significant-delays".

trip_descriptor trip_of(const pb::TripDescriptor& t) {
  trip_descriptor out;
  out.trip_id = t.trip_id();
  out.route_id = t.route_id();
  if (t.has_direction_id())
    out.direction_id = t.direction_id();
  out.start_time = t.start_time();
  out.start_date = t.start_date();
  switch (t.schedule_relationship()) {
    case pb::TripDescriptor::ADDED:
      out.relationship = trip_relationship::added;
      break;
    case pb::TripDescriptor::UNSCHEDULED:
      out.relationship = trip_relationship::unscheduled;
      break;
    case pb::TripDescriptor::CANCELED:
      out.relationship = trip_relationship::canceled;
      break;
    case pb::TripDescriptor::REPLACEMENT:
      out.relationship = trip_relationship::replacement;
      break;
    case pb::TripDescriptor::DUPLICATED:
      out.relationship = trip_relationship::duplicated;
      break;
    case pb::TripDescriptor::DELETED:
      out.relationship = trip_relationship::deleted;
      break;
    case pb::TripDescriptor::NEW:
      out.relationship = trip_relationship::new_trip;
      break;
    default:
      out.relationship = trip_relationship::scheduled;
  }
  return out;
}

vehicle_descriptor vehicle_of(const pb::VehicleDescriptor& v) {
  return vehicle_descriptor{v.id(), v.label()};
}

std::optional<stop_time_event> event_of(bool present,
                                        const pb::TripUpdate::StopTimeEvent& e) {
  if (!present)
    return std::nullopt;
  stop_time_event out;
  if (e.has_delay())
    out.delay_s = e.delay();
  if (e.has_time())
    out.time = e.time();
  if (e.has_uncertainty())
    out.uncertainty_s = e.uncertainty();
  return out;
}

trip_update trip_update_of(const std::string& id, const pb::TripUpdate& u) {
  trip_update out;
  out.entity_id = id;
  out.trip = trip_of(u.trip());
  if (u.has_vehicle())
    out.vehicle = vehicle_of(u.vehicle());
  if (u.has_timestamp())
    out.timestamp = u.timestamp();
  if (u.has_delay())
    out.delay_s = u.delay();
  out.stops.reserve(static_cast<std::size_t>(u.stop_time_update_size()));
  for (const auto& s : u.stop_time_update()) {
    stop_time_update stop;
    if (s.has_stop_sequence())
      stop.stop_sequence = s.stop_sequence();
    stop.stop_id = s.stop_id();
    stop.arrival = event_of(s.has_arrival(), s.arrival());
    stop.departure = event_of(s.has_departure(), s.departure());
    switch (s.schedule_relationship()) {
      case pb::TripUpdate::StopTimeUpdate::SKIPPED:
        stop.relationship = stop_relationship::skipped;
        break;
      case pb::TripUpdate::StopTimeUpdate::NO_DATA:
        stop.relationship = stop_relationship::no_data;
        break;
      case pb::TripUpdate::StopTimeUpdate::UNSCHEDULED:
        stop.relationship = stop_relationship::unscheduled;
        break;
      default:
        stop.relationship = stop_relationship::scheduled;
    }
    out.stops.push_back(std::move(stop));
  }
  return out;
}

/// A finite float as a double; nullopt for NaN and infinities.
std::optional<double> finite(float value) {
  if (!std::isfinite(value))
    return std::nullopt;
  return static_cast<double>(value);
}

vehicle_position vehicle_of(const std::string& id,
                            const pb::VehiclePosition& v) {
  vehicle_position out;
  out.entity_id = id;
  if (v.has_trip())
    out.trip = trip_of(v.trip());
  if (v.has_vehicle())
    out.vehicle = vehicle_of(v.vehicle());
  if (v.has_position()) {
    const auto& p = v.position();
    auto lat = finite(p.latitude());
    auto lon = finite(p.longitude());
    // A position off the globe is no position.
    if (lat && lon && std::abs(*lat) <= 90 && std::abs(*lon) <= 180) {
      out.lat = lat;
      out.lon = lon;
    }
    if (p.has_bearing())
      out.bearing = finite(p.bearing());
    if (p.has_speed())
      out.speed_mps = finite(p.speed());
  }
  if (v.has_current_stop_sequence())
    out.current_stop_sequence = v.current_stop_sequence();
  out.stop_id = v.stop_id();
  switch (v.current_status()) {
    case pb::VehiclePosition::INCOMING_AT:
      out.status = vehicle_status::incoming_at;
      break;
    case pb::VehiclePosition::STOPPED_AT:
      out.status = vehicle_status::stopped_at;
      break;
    default:
      out.status = vehicle_status::in_transit_to;
  }
  if (v.has_timestamp())
    out.timestamp = v.timestamp();
  return out;
}

translated text_of(const pb::TranslatedString& s) {
  translated out;
  for (const auto& t : s.translation())
    out.emplace_back(t.language(), t.text());
  return out;
}

alert alert_of(const std::string& id, const pb::Alert& a) {
  alert out;
  out.entity_id = id;
  for (const auto& p : a.active_period()) {
    time_range range;
    if (p.has_start())
      range.start = p.start();
    if (p.has_end())
      range.end = p.end();
    out.active_periods.push_back(range);
  }
  for (const auto& e : a.informed_entity()) {
    informed_entity entity;
    entity.agency_id = e.agency_id();
    entity.route_id = e.route_id();
    if (e.has_route_type())
      entity.route_type = e.route_type();
    if (e.has_direction_id())
      entity.direction_id = e.direction_id();
    if (e.has_trip())
      entity.trip = trip_of(e.trip());
    entity.stop_id = e.stop_id();
    out.informed.push_back(std::move(entity));
  }
  out.cause = alert_term(pb::Alert::Cause_Name(a.cause()));
  out.effect = alert_term(pb::Alert::Effect_Name(a.effect()));
  out.severity = alert_term(pb::Alert::SeverityLevel_Name(a.severity_level()));
  out.header = text_of(a.header_text());
  out.description = text_of(a.description_text());
  out.url = text_of(a.url());
  return out;
}

} // namespace

void normalise_timestamps(feed& message) {
  std::size_t in_ms = 0;
  std::size_t dropped = 0;
  auto fix = [&](std::optional<uint64_t>& t) {
    if (!t || *t <= milliseconds_above)
      return;
    if (*t / 1000 <= latest_timestamp) {
      *t /= 1000;
      ++in_ms;
    } else {
      t.reset();
      ++dropped;
    }
  };
  auto fix_signed = [&](std::optional<int64_t>& t) {
    if (!t)
      return;
    if (*t < 0) {
      t.reset();
      ++dropped;
      return;
    }
    std::optional<uint64_t> u{static_cast<uint64_t>(*t)};
    fix(u);
    if (u)
      *t = static_cast<int64_t>(*u);
    else
      t.reset();
  };
  fix(message.timestamp);
  for (auto& u : message.trip_updates) {
    fix(u.timestamp);
    for (auto& s : u.stops) {
      if (s.arrival)
        fix_signed(s.arrival->time);
      if (s.departure)
        fix_signed(s.departure->time);
    }
  }
  for (auto& v : message.vehicles)
    fix(v.timestamp);
  for (auto& a : message.alerts)
    for (auto& p : a.active_periods) {
      fix(p.start);
      fix(p.end);
    }
  if (in_ms > 0)
    message.notes.push_back(
      std::to_string(in_ms)
      + " timestamps were in milliseconds (a producer mistake) and were "
        "read as seconds");
  if (dropped > 0)
    message.notes.push_back(std::to_string(dropped)
                            + " timestamps outside 1970..9999 were ignored");
}

outcome<feed> decode(std::string_view bytes, std::size_t max_bytes) {
  if (bytes.size() > max_bytes)
    return refused(std::to_string(bytes.size()) + " bytes, more than "
                   + std::to_string(max_bytes));
  if (bytes.size() > static_cast<std::size_t>(INT32_MAX))
    return refused("larger than 2 GiB");
  pb::FeedMessage message;
  // All or nothing: a parse error, a truncation or a missing required
  // field fails the whole message.
  if (!message.ParsePartialFromArray(bytes.data(),
                                     static_cast<int>(bytes.size())))
    return refused("not a FeedMessage (" + std::to_string(bytes.size())
                   + " bytes, malformed or truncated)");
  if (!message.IsInitialized())
    return refused("required fields missing: "
                   + message.InitializationErrorString());
  if (message.entity_size() > max_entities)
    return refused(std::to_string(message.entity_size())
                   + " entities, more than "
                   + std::to_string(max_entities));
  for (const auto& entity : message.entity())
    if (entity.has_trip_update()
        && entity.trip_update().stop_time_update_size()
             > max_stop_time_updates)
      return refused("trip update \"" + entity.id() + "\" has "
                     + std::to_string(
                       entity.trip_update().stop_time_update_size())
                     + " stop time updates, more than "
                     + std::to_string(max_stop_time_updates));
  feed out;
  out.version = message.header().gtfs_realtime_version();
  out.differential
    = message.header().incrementality() == pb::FeedHeader::DIFFERENTIAL;
  if (message.header().has_timestamp())
    out.timestamp = message.header().timestamp();
  for (const auto& entity : message.entity()) {
    if (entity.is_deleted()) {
      out.deleted.push_back(entity.id());
      continue;
    }
    bool known = false;
    if (entity.has_trip_update()) {
      out.trip_updates.push_back(trip_update_of(entity.id(),
                                                entity.trip_update()));
      known = true;
    }
    if (entity.has_vehicle()) {
      out.vehicles.push_back(vehicle_of(entity.id(), entity.vehicle()));
      known = true;
    }
    if (entity.has_alert()) {
      out.alerts.push_back(alert_of(entity.id(), entity.alert()));
      known = true;
    }
    if (!known)
      ++out.other_entities;
  }
  normalise_timestamps(out);
  return out;
}

std::string_view to_string(trip_relationship r) {
  switch (r) {
    case trip_relationship::scheduled: return "scheduled";
    case trip_relationship::added: return "added";
    case trip_relationship::unscheduled: return "unscheduled";
    case trip_relationship::canceled: return "canceled";
    case trip_relationship::replacement: return "replacement";
    case trip_relationship::duplicated: return "duplicated";
    case trip_relationship::deleted: return "deleted";
    case trip_relationship::new_trip: return "new";
  }
  return "scheduled";
}

std::string_view to_string(stop_relationship r) {
  switch (r) {
    case stop_relationship::scheduled: return "scheduled";
    case stop_relationship::skipped: return "skipped";
    case stop_relationship::no_data: return "no-data";
    case stop_relationship::unscheduled: return "unscheduled";
  }
  return "scheduled";
}

std::string_view to_string(vehicle_status s) {
  switch (s) {
    case vehicle_status::incoming_at: return "incoming-at";
    case vehicle_status::stopped_at: return "stopped-at";
    case vehicle_status::in_transit_to: return "in-transit-to";
  }
  return "in-transit-to";
}

} // namespace transitd::gtfs_rt
