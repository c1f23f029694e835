// The offline engine's speed and memory on real feeds, in one run: load
// time and RSS, then per-query engine time of plan_trip (RAPTOR plus the
// later searches that fill `first`), RAPTOR alone, get_departures and
// find_stops, over random origin/destination/time triples on one service
// day. One thread, like one scheduler thread of the daemon.
//
//   transitd-gtfs-bench [--queries N] [--date YYYY-MM-DD] [--seed S]
//                       [--plan LAT,LON,LAT,LON,EPOCH] [--slowest N]
//                       NAME=SOURCE[,...]
//
// --plan times that one plan_trip query N times instead (for comparing
// with the same call over MCP, bench/gtfs.sh). --snapshot-dir DIR reads
// the timetable from its snapshot there when the sources are unchanged
// (writing it otherwise), as the daemon does: for profiling the router
// without waiting for the CSV; the load row then says so. --router-only
// times plan_trip, one search and reachable (60 min) alone, without the
// other tools in between (for profiles of the router and quick
// comparisons; the full run's figures are the ones reported). --slowest N
// lists the N slowest plan_trip queries, each as --plan takes it.
// --hours 6-21 asks at local times in that span (default 5-23; the MCP
// rows of bench/plan_mcp.sh ask 06-21 h).
//
// Realtime, after the table: a full trip-updates message for up to 10,000
// trips of the day (every call of each given an absolute time, as the
// large agencies publish them) decoded and applied (the realtime layer
// built), and plan_trip on realtime times, idle and while another thread
// applies such a message again and again (as the feed's realtime thread
// does while queries run).
//
// Prints a Markdown table (docs/performance.md).

// Before anything that includes <netdb.h> (NO_DATA is a name of the format).
#include "gtfs_realtime.pb.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>
#include <tuple>
#include <functional>
#include <cstdio>
#include <filesystem>

#include <unistd.h>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <date/date.h>
#include <date/tz.h>

#include "transitd/offline/gtfs_answers.hpp"
#include "transitd/offline/gtfs_network.hpp"
#include "transitd/offline/gtfs_reader.hpp"
#include "transitd/offline/gtfs_realtime.hpp"
#include "transitd/offline/gtfs_snapshot.hpp"
#include "transitd/util/content_hash.hpp"

using namespace transitd;
using clock_type = std::chrono::steady_clock;

namespace {

long rss_kb(const char* field) {
  std::ifstream in{"/proc/self/status"};
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field, 0) == 0)
      return std::stol(line.substr(std::string{field}.size()));
  return -1;
}

struct stats {
  std::vector<double> us;
  void add(clock_type::duration d) {
    us.push_back(std::chrono::duration<double, std::micro>(d).count());
  }
  double at(double q) {
    std::sort(us.begin(), us.end());
    return us.empty() ? 0 : us[static_cast<std::size_t>(q * (us.size() - 1))];
  }
  double mean() const {
    double sum = 0;
    for (auto x : us)
      sum += x;
    return us.empty() ? 0 : sum / static_cast<double>(us.size());
  }
};

std::string ratio(double a, double b) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", b > 0 ? a / b : 0.0);
  return text;
}

std::string ms(double us) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", us / 1000);
  return text;
}

} // namespace

/// One plan's itineraries on a line: each leg's trip (or walk), its ends
/// and its times.
void write_answer(std::ostream& out, int q, const trip_plans& answer) {
  out << q;
  for (const auto& it : answer.itineraries) {
    out << " |";
    for (const auto& l : it.legs)
      out << ' ' << (l.transit ? l.trip_id.value_or("?") : "walk") << ':'
          << l.from.stop_id.value_or("-") << '>' << l.to.stop_id.value_or("-")
          << '@' << l.scheduled_start << '-' << l.scheduled_end;
  }
  out << '\n';
}

int main(int argc, char** argv) {
  int queries = 1000;
  std::string day = "2026-10-14";
  uint32_t seed = 42;
  std::string snapshot_dir;
  std::string feed_arg;
  std::vector<double> fixed;
  bool router_only = false;
  bool arrive_by = false;
  int slowest = 0;
  int first_hour = 5, last_hour = 23;
  std::string answers_path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--plan" && i + 1 < argc) {
      std::stringstream in{argv[++i]};
      for (std::string v; std::getline(in, v, ',');)
        fixed.push_back(std::stod(v));
    } else if (a == "--queries" && i + 1 < argc)
      queries = std::stoi(argv[++i]);
    else if (a == "--date" && i + 1 < argc)
      day = argv[++i];
    else if (a == "--snapshot-dir" && i + 1 < argc)
      snapshot_dir = argv[++i];
    else if (a == "--router-only")
      router_only = true;
    else if (a == "--slowest" && i + 1 < argc)
      slowest = std::stoi(argv[++i]);
    else if (a == "--arrive-by")
      arrive_by = true;
    else if (a == "--hours" && i + 1 < argc) {
      if (std::sscanf(argv[++i], "%d-%d", &first_hour, &last_hour) != 2
          || first_hour < 0 || first_hour >= last_hour || last_hour > 24) {
        std::cerr << "--hours takes FROM-TO, 0 <= FROM < TO <= 24\n";
        return 2;
      }
    } else if (a == "--answers" && i + 1 < argc)
      answers_path = argv[++i];
    else if (a == "--seed" && i + 1 < argc)
      seed = static_cast<uint32_t>(std::stoul(argv[++i]));
    else
      feed_arg = a;
  }
  auto eq = feed_arg.find('=');
  if (eq == std::string::npos) {
    std::cerr
      << "usage: transitd-gtfs-bench [--queries N] [--date YYYY-MM-DD] "
         "[--seed N] [--snapshot-dir DIR] [--router-only] [--arrive-by] "
         "[--slowest N] [--answers FILE] [--hours H-H] [--plan "
         "FROM_LAT,FROM_LON,TO_LAT,TO_LON,EPOCH] NAME=SOURCE[,SOURCE...]\n";
    return 2;
  }
  auto name = feed_arg.substr(0, eq);
  std::vector<std::string> sources;
  std::stringstream list{feed_arg.substr(eq + 1)};
  for (std::string s; std::getline(list, s, ',');)
    sources.push_back(s);

  auto rss_before = rss_kb("VmRSS:");
  auto t0 = clock_type::now();
  std::shared_ptr<const gtfs::timetable> from_snapshot;
  std::optional<std::pair<std::string, gtfs::source_key>> write_to;
  if (!snapshot_dir.empty()) {
    std::vector<uint64_t> hashes;
    for (const auto& s : sources)
      hashes.push_back(content_hash(s).value_or(0));
    auto key = gtfs::key_of_sources(hashes, gtfs::load_options{});
    auto path = gtfs::snapshot_path(snapshot_dir, name);
    auto read = gtfs::read_snapshot(path, key, 0);
    from_snapshot = read.timetable;
    if (!from_snapshot)
      write_to = std::pair{path, key};
  }
  auto loaded = from_snapshot
                  ? outcome<std::shared_ptr<const gtfs::timetable>>{from_snapshot}
                  : gtfs::load_timetable(name, sources);
  if (loaded && write_to)
    static_cast<void>(
      gtfs::write_snapshot(write_to->first, **loaded, write_to->second));
  auto load_time = clock_type::now() - t0;
  if (!loaded) {
    std::cerr << loaded.error().message << "\n";
    return 1;
  }
  const auto& tt = **loaded;
  auto rss_after = rss_kb("VmRSS:");
  auto rss_peak = rss_kb("VmHWM:");

  std::vector<uint32_t> routable;
  for (uint32_t s = 0; s < tt.stops.size(); ++s)
    if (tt.routable(s))
      routable.push_back(s);
  // In the feed's id order: the same questions whatever the timetable's
  // own numbering of stops.
  std::sort(routable.begin(), routable.end(), [&tt](uint32_t a, uint32_t b) {
    return tt.stops[a].id < tt.stops[b].id;
  });
  std::istringstream day_in{day};
  date::sys_days date_value;
  day_in >> date::parse("%F", date_value);
  const auto* zone = date::locate_zone(tt.zones[0]);
  std::mt19937 rng{seed};
  std::uniform_int_distribution<std::size_t> pick(0, routable.size() - 1);
  std::uniform_int_distribution<int> second(first_hour * 3600,
                                            last_hour * 3600);
  auto local_time = [&] {
    auto local = date::local_days{date::year_month_day{date_value}}
                 + std::chrono::seconds{second(rng)};
    return zone->to_sys(local, date::choose::earliest)
      .time_since_epoch()
      .count();
  };

  gtfs::raptor router{tt};
  if (fixed.size() == 5) {
    trip_plan_query query;
    query.from = {fixed[0], fixed[1]};
    query.to = {fixed[2], fixed[3]};
    query.time = static_cast<int64_t>(fixed[4]);
    query.first = 5;
    stats one;
    std::size_t found = 0;
    for (int q = 0; q < queries; ++q) {
      auto start = clock_type::now();
      found = gtfs::plan_trips(router, tt, query).itineraries.size();
      one.add(clock_type::now() - start);
    }
    std::cout << "| that plan_trip, engine time p50 / p99 (" << found
              << " itineraries) | " << ms(one.at(0.5)) << " / "
              << ms(one.at(0.99)) << " ms |\n";
    return 0;
  }
  // --answers: every plan's itineraries, a line each, to compare the
  // answers of two builds (`cmp` of the files).
  std::ofstream answers;
  if (!answers_path.empty()) {
    answers.open(answers_path);
    if (!answers) {
      std::cerr << "cannot write " << answers_path << "\n";
      return 2;
    }
  }
  stats plan, route, departures, near, trip_answer, reach30, reach60,
    line_answer, status_answer;
  std::size_t found = 0;
  std::size_t reached = 0;
  // (engine microseconds, the query as --plan takes it, itineraries)
  std::vector<std::tuple<double, std::string, std::size_t>> slow;
  for (int q = 0; q < queries; ++q) {
    trip_plan_query query;
    query.from = tt.stops[routable[pick(rng)]].position;
    query.to = tt.stops[routable[pick(rng)]].position;
    query.time = local_time();
    query.first = 5; // what plan_trip's default limit 2 asks for
    query.max_transfers = 4;
    query.max_walking_distance = 1500;
    query.arrive_by = arrive_by;
    auto start = clock_type::now();
    auto answer = gtfs::plan_trips(router, tt, query);
    plan.add(clock_type::now() - start);
    if (answers.is_open())
      write_answer(answers, q, answer);
    found += answer.itineraries.empty() ? 0 : 1;
    if (slowest > 0) {
      char text[96];
      std::snprintf(text, sizeof text, "%.6f,%.6f,%.6f,%.6f,%lld",
                    query.from.lat, query.from.lon, query.to.lat,
                    query.to.lon, static_cast<long long>(query.time));
      slow.emplace_back(plan.us.back(), text, answer.itineraries.size());
    }
    gtfs::journey_request rq;
    rq.from = query.from;
    rq.to = query.to;
    rq.time = query.time;
    rq.max_walk_meters = 1500;
    start = clock_type::now();
    auto journeys = router.route(rq);
    route.add(clock_type::now() - start);

    if (router_only) {
      reach_query r;
      r.from = query.from;
      r.time = query.time;
      r.limit = 50;
      r.max_seconds = 3600;
      start = clock_type::now();
      auto result = gtfs::reach_from(router, tt, r);
      reach60.add(clock_type::now() - start);
      if (result)
        reached += static_cast<std::size_t>(result->total);
      continue;
    }
    auto stop = routable[pick(rng)];
    stop_departures_query d;
    d.stop_id = name + ":" + tt.stops[stop].id;
    d.start_time = local_time();
    d.time_range_seconds = 1800;
    d.max_departures = 100;
    start = clock_type::now();
    auto board = gtfs::departures_at(tt, d);
    departures.add(clock_type::now() - start);

    // get_trip on the board's first departure (its trip and day).
    if (board && !board->stop_times.empty()) {
      trip_query t;
      t.trip_id = board->stop_times.front().trip_id;
      t.time = d.start_time;
      start = clock_type::now();
      auto trip = gtfs::trip_of(tt, nullptr, t);
      trip_answer.add(clock_type::now() - start);
    }

    // get_route of the departure's line; line_status of every line.
    if (board && !board->stop_times.empty()) {
      route_query l;
      l.route = board->stop_times.front().line;
      l.time = d.start_time;
      start = clock_type::now();
      auto line = gtfs::route_of(tt, l);
      line_answer.add(clock_type::now() - start);
    }
    line_status_query ls;
    ls.time = d.start_time;
    start = clock_type::now();
    auto statuses = gtfs::line_status_of(tt, nullptr, ls);
    status_answer.add(clock_type::now() - start);

    // reachable from the plan's origin: 30 and 60 minutes.
    reach_query r;
    r.from = query.from;
    r.time = query.time;
    r.limit = 50;
    for (auto [minutes, into] : {std::pair{30, &reach30},
                                 std::pair{60, &reach60}}) {
      r.max_seconds = minutes * 60;
      start = clock_type::now();
      auto result = gtfs::reach_from(router, tt, r);
      into->add(clock_type::now() - start);
      if (minutes == 60 && result)
        reached += static_cast<std::size_t>(result->total);
    }

    nearby_stops_query n;
    n.center = tt.stops[routable[pick(rng)]].position;
    n.radius = 500;
    n.max_results = 50;
    start = clock_type::now();
    auto stops = gtfs::stops_near(tt, n);
    near.add(clock_type::now() - start);
  }

  std::cout << "| feed `" << name << "` | " << tt.report.stops << " stops, "
            << tt.report.trips << " trips, " << tt.report.stop_times
            << " stop_times |\n|---|---|\n";
  std::cout << (from_snapshot ? "| load (from the snapshot) | " : "| load | ")
            << ms(std::chrono::duration<double, std::micro>(
                                    load_time)
                                    .count())
            << " ms |\n";
  std::cout << "| RSS after load (peak during) | "
            << (rss_after - rss_before) / 1024 << " MB above the process ("
            << rss_after / 1024 << " MB total, peak " << rss_peak / 1024
            << " MB) |\n";
  std::cout << "| plan_trip engine time p50 / p99 (" << queries
            << " queries, " << found << " with itineraries; mean "
            << ms(plan.mean()) << " ms) | " << ms(plan.at(0.5)) << " / "
            << ms(plan.at(0.99)) << " ms |\n";
  std::cout << "| one RAPTOR search p50 / p99 | " << ms(route.at(0.5))
            << " / " << ms(route.at(0.99)) << " ms |\n";
  if (slowest > 0) {
    std::sort(slow.begin(), slow.end(), std::greater<>{});
    slow.resize(std::min(slow.size(), static_cast<std::size_t>(slowest)));
    std::cout << "\nThe slowest plan_trip queries (--plan takes them):\n";
    for (const auto& [us, text, n] : slow)
      std::cout << "    " << ms(us) << " ms  --plan " << text << "  (" << n
                << " itineraries)\n";
    std::cout << "\n";
  }
  if (router_only) {
    std::cout << "| reachable 60 min p50 / p99 (" << reached / std::max(1, queries)
              << " stations reached on average) | " << ms(reach60.at(0.5))
              << " / " << ms(reach60.at(0.99)) << " ms |\n";
    return 0;
  }
  std::cout << "| get_departures p50 / p99 | " << ms(departures.at(0.5))
            << " / " << ms(departures.at(0.99)) << " ms |\n";
  std::cout << "| find_stops p50 / p99 | " << ms(near.at(0.5)) << " / "
            << ms(near.at(0.99)) << " ms |\n";
  std::cout << "| get_trip p50 / p99 | " << ms(trip_answer.at(0.5))
            << " / " << ms(trip_answer.at(0.99)) << " ms |\n";
  std::cout << "| get_route p50 / p99 | " << ms(line_answer.at(0.5))
            << " / " << ms(line_answer.at(0.99)) << " ms |\n";
  std::cout << "| line_status, every line, p50 / p99 | "
            << ms(status_answer.at(0.5)) << " / "
            << ms(status_answer.at(0.99)) << " ms |\n";
  std::cout << "| reachable 30 min p50 / p99 | " << ms(reach30.at(0.5))
            << " / " << ms(reach30.at(0.99)) << " ms |\n";
  std::cout << "| reachable 60 min p50 / p99 (" << reached / std::max(1, queries)
            << " stations reached on average) | " << ms(reach60.at(0.5))
            << " / " << ms(reach60.at(0.99)) << " ms |\n";

  // -- restart from the timetable snapshot --------------------------------
  // What the daemon does at a start with unchanged sources: hash them,
  // read the snapshot (a temporary file here), and answer from it.
  {
    auto dir = std::filesystem::temp_directory_path()
               / ("transitd-bench-snapshot-" + std::to_string(::getpid()));
    auto path = gtfs::snapshot_path(dir.string(), name);
    auto hash_all = [&sources] {
      std::vector<uint64_t> hashes;
      for (const auto& s : sources)
        hashes.push_back(content_hash(s).value_or(0));
      return gtfs::key_of_sources(hashes, gtfs::load_options{});
    };
    auto write_start = clock_type::now();
    auto written = gtfs::write_snapshot(path, tt, hash_all());
    auto write_time = clock_type::now() - write_start;
    if (!written) {
      std::cerr << written.error().message << "\n";
      return 1;
    }
    auto restart_start = clock_type::now();
    auto key = hash_all();
    auto hashed = clock_type::now() - restart_start;
    auto read = gtfs::read_snapshot(path, key, 0);
    auto restart = clock_type::now() - restart_start;
    std::filesystem::remove_all(dir);
    if (read.verdict != gtfs::snapshot_verdict::read) {
      std::cerr << "snapshot not read: " << read.why << "\n";
      return 1;
    }
    // Its answers: the same plans as the built timetable's.
    gtfs::raptor on_read{*read.timetable};
    std::mt19937 again{seed + 1};
    int same = 0, compared = 0;
    for (; compared < std::min(queries, 200); ++compared) {
      trip_plan_query query;
      query.from = tt.stops[routable[pick(again)]].position;
      query.to = tt.stops[routable[pick(again)]].position;
      query.time = local_time();
      query.first = 3;
      auto a = gtfs::plan_trips(router, tt, query);
      auto b = gtfs::plan_trips(on_read, *read.timetable, query);
      bool equal = a.itineraries.size() == b.itineraries.size();
      for (std::size_t i = 0; equal && i < a.itineraries.size(); ++i) {
        const auto& x = a.itineraries[i].legs;
        const auto& y = b.itineraries[i].legs;
        equal = x.size() == y.size()
                && x.back().scheduled_end == y.back().scheduled_end
                && x.front().scheduled_start == y.front().scheduled_start;
      }
      same += equal ? 1 : 0;
    }
    auto as_ms = [](auto d) {
      return ms(std::chrono::duration<double, std::micro>(d).count());
    };
    std::cout << "| restart: hash the sources and read the timetable "
                 "snapshot (hashing) | "
              << as_ms(restart) << " ms (" << as_ms(hashed) << " ms) |\n";
    std::cout << "| snapshot size, write time | " << *written / (1024 * 1024)
              << " MB, " << as_ms(write_time) << " ms |\n";
    std::cout << "| plans equal on the snapshot and the build | " << same
              << " of " << compared << " |\n";
    if (same != compared)
      return 1;
  }

  // -- realtime ---------------------------------------------------------
  auto noon = zone->to_sys(date::local_days{date::year_month_day{date_value}}
                             + std::chrono::hours{12},
                           date::choose::earliest)
                .time_since_epoch()
                .count();
  auto service_day = static_cast<int32_t>(noon / 86400) - tt.first_day;
  auto origin = tt.origin(0, service_day);
  char start_date[9];
  {
    date::year_month_day ymd{date_value};
    std::snprintf(start_date, sizeof start_date, "%04d%02u%02u",
                  static_cast<int>(ymd.year()),
                  static_cast<unsigned>(ymd.month()),
                  static_cast<unsigned>(ymd.day()));
  }
  transitd::gtfs_rt::pb::FeedMessage message;
  message.mutable_header()->set_gtfs_realtime_version("2.0");
  message.mutable_header()->set_timestamp(static_cast<uint64_t>(noon));
  std::uniform_int_distribution<int> delay(-60, 600);
  std::size_t updated = 0;
  for (uint32_t t = 0; t < tt.trips.size() && updated < 10000; ++t) {
    auto p = tt.trip_pattern[t];
    if (p == gtfs::none || !tt.runs_on(tt.patterns[p].service, service_day))
      continue;
    const auto& pat = tt.patterns[p];
    auto* e = message.add_entity();
    e->set_id(tt.trips[t].id);
    auto* tu = e->mutable_trip_update();
    tu->mutable_trip()->set_trip_id(tt.trips[t].id);
    tu->mutable_trip()->set_start_date(start_date);
    auto late = delay(rng);
    for (uint32_t i = 0; i < pat.stop_count; ++i) {
      auto* u = tu->add_stop_time_update();
      u->set_stop_sequence(tt.pattern_stops[pat.stops_begin + i].sequence);
      u->set_stop_id(tt.stops[tt.pattern_stops[pat.stops_begin + i].stop].id);
      const auto& st = tt.time_at(pat, tt.trip_rank[t], i);
      u->mutable_arrival()->set_time(origin + st.arrival + late);
      u->mutable_departure()->set_time(origin + st.departure + late);
    }
    ++updated;
  }
  auto bytes = message.SerializeAsString();
  stats apply, decode_only;
  std::shared_ptr<const gtfs::realtime_layer> layer;
  for (int round = 0; round < 7; ++round) {
    auto start = clock_type::now();
    auto decoded = gtfs_rt::decode(bytes);
    auto decoded_at = clock_type::now();
    layer = gtfs::build_realtime(*loaded, decoded->trip_updates, noon);
    apply.add(clock_type::now() - start);
    decode_only.add(decoded_at - start);
  }
  std::cout << "| realtime: decode and apply a full message of "
            << updated << " trips (" << bytes.size() / 1024
            << " KiB; layer: " << layer->counts.matched << " matched, "
            << layer->patterns.size()
            << " patterns), p50 / max of 7 (decoding alone p50) | "
            << ms(apply.at(0.5)) << " / " << ms(apply.at(1.0)) << " ms ("
            << ms(decode_only.at(0.5)) << " ms) |\n";

  // plan_trip on realtime times: idle, then with the message applied again
  // and again on another thread, each query taking the newest layer.
  std::vector<trip_plan_query> plan_queries;
  std::uniform_int_distribution<int> daytime(6 * 3600, 22 * 3600);
  for (int q = 0; q < queries; ++q) {
    trip_plan_query query;
    query.from = tt.stops[routable[pick(rng)]].position;
    query.to = tt.stops[routable[pick(rng)]].position;
    query.time = origin + daytime(rng);
    query.first = 5;
    plan_queries.push_back(query);
  }
  auto run_plans = [&](std::atomic<bool>* applying) {
    stats s;
    for (const auto& query : plan_queries) {
      auto current = std::atomic_load(&layer);
      auto start = clock_type::now();
      gtfs::plan_trips(router, tt, query, nullptr, current.get());
      s.add(clock_type::now() - start);
    }
    if (applying)
      applying->store(false);
    return s;
  };
  auto idle = run_plans(nullptr);
  std::atomic<bool> applying{true};
  std::atomic<int> applied{0};
  std::thread writer{[&] {
    while (applying.load()) {
      auto decoded = gtfs_rt::decode(bytes);
      std::shared_ptr<const gtfs::realtime_layer> fresh
        = gtfs::build_realtime(*loaded, decoded->trip_updates, noon);
      std::atomic_store(&layer, fresh);
      ++applied;
    }
  }};
  auto busy = run_plans(&applying);
  writer.join();
  std::cout << "| plan_trip on realtime, p50 / p99 idle (" << plan_queries.size()
            << " queries) | " << ms(idle.at(0.5)) << " / " << ms(idle.at(0.99))
            << " ms |\n";
  std::cout << "| plan_trip on realtime, p50 / p99 while the message is "
               "applied again and again ("
            << applied.load() << " times) | " << ms(busy.at(0.5)) << " / "
            << ms(busy.at(0.99)) << " ms (p99 " << ratio(busy.at(0.99), idle.at(0.99))
            << "x idle) |\n";
  return 0;
}
