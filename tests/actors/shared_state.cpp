// State shared by replicas: the Redis commands and their replies (pure),
// RATE_LIMITER and the caches with a stand-in REDIS on the deterministic
// scheduler, and the scripts against a real redis-server on 127.0.0.1.

#include "transitd/actors/shared_state.hpp"

#include <cmath>
#include <map>
#include <memory>
#include <thread>

#include <caf/binary_serializer.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <catch2/catch.hpp>

#include "transitd/actors/provider_cache.hpp"
#include "transitd/actors/rate_limiter.hpp"
#include "support/deterministic.hpp"
#include "support/servers.hpp"

using namespace transitd;
using namespace std::chrono_literals;

namespace {

redis_result array(std::vector<std::string> items) {
  redis_result r;
  r.reachable = true;
  r.kind = redis_result::array;
  r.items = std::move(items);
  return r;
}

redis_result text(std::string value) {
  redis_result r;
  r.reachable = true;
  r.kind = redis_result::string;
  r.text = std::move(value);
  return r;
}

} // namespace

TEST_CASE("shared quota commands: the bucket and the hold-off",
          "[shared]") {
  auto cmd = bucket_command("t:", "upstream:tfl", 8, 8, 2500);
  REQUIRE(cmd.argv.size() == 8);
  CHECK(cmd.argv[7] == "2500"); // how long the caller can wait
  CHECK(cmd.argv[0] == "EVAL");
  CHECK(cmd.argv[2] == "2");
  CHECK(cmd.argv[3] == "t:bucket:upstream:tfl");
  CHECK(cmd.argv[4] == "t:hold:upstream:tfl");
  CHECK(cmd.argv[5] == "8.000000");
  // A burst below one token would never grant: at least 1.
  CHECK(bucket_command("t:", "k", 0.5, 0).argv[6] == "1.000000");
  auto hold = hold_command("t:", "upstream:tfl", 2000);
  CHECK(hold.argv[3] == "t:hold:upstream:tfl");
  CHECK(hold.argv[4] == "2000");
  // The bucket shares its hold key with the hold-off.
  CHECK(hold.argv[3] == cmd.argv[4]);

  CHECK(parse_bucket_reply(array({"1", "0"}))->granted);
  // Granted with a wait: a token reserved ahead.
  auto reserved = parse_bucket_reply(array({"1", "340"}));
  REQUIRE(reserved);
  CHECK(reserved->granted);
  CHECK(reserved->wait_ms == 340);
  auto refused = parse_bucket_reply(array({"0", "125"}));
  REQUIRE(refused);
  CHECK_FALSE(refused->granted);
  CHECK(refused->retry_after_ms == 125);
  CHECK(parse_bucket_reply(array({"0", "0"}))->retry_after_ms == 1);
  CHECK_FALSE(parse_bucket_reply(redis_result{})); // unreachable
  CHECK_FALSE(parse_bucket_reply(array({"1"})));
  CHECK_FALSE(parse_bucket_reply(array({"yes", "0"})));
  redis_result error;
  error.reachable = true;
  error.kind = redis_result::error;
  error.text = "NOSCRIPT";
  CHECK_FALSE(parse_bucket_reply(error));
}

TEST_CASE("shared cache commands: keys, lookups, the lock", "[shared]") {
  auto a = shared_cache_key("t:", "timetable", "departures", std::string{"\0a", 2});
  auto b = shared_cache_key("t:", "timetable", "departures", std::string{"\0b", 2});
  CHECK(a.rfind("t:cache:timetable:departures:", 0) == 0);
  CHECK(a.size() == std::string{"t:cache:timetable:departures:"}.size() + 64);
  CHECK(a != b);
  CHECK(a == shared_cache_key("t:", "timetable", "departures",
                              std::string{"\0a", 2}));
  CHECK(a != shared_cache_key("t:", "timetable", "stops",
                              std::string{"\0a", 2}));

  auto hit = parse_cache_get(array({"1", std::string{"v\0x", 3}, "1500"}));
  REQUIRE(hit);
  CHECK(hit->found);
  CHECK(hit->value == std::string{"v\0x", 3});
  CHECK(hit->ttl_ms == 1500);
  auto locked = parse_cache_get(array({"0", "", "1"}));
  REQUIRE(locked);
  CHECK_FALSE(locked->found);
  CHECK(locked->locked);
  CHECK_FALSE(parse_cache_get(array({"0", "", "0"}))->locked);
  CHECK_FALSE(parse_cache_get(redis_result{}));
  CHECK_FALSE(parse_cache_get(array({"1", "v"})));

  auto lock = lock_command("k:lock", "token", 5000);
  CHECK(lock.argv == std::vector<std::string>{"SET", "k:lock", "token", "NX",
                                              "PX", "5000"});
  CHECK(lock_taken(text("OK")));
  redis_result nil;
  nil.reachable = true;
  nil.kind = redis_result::nil;
  CHECK_FALSE(lock_taken(nil));
  CHECK_FALSE(lock_taken(redis_result{}));
  CHECK(cache_put_command("k", "v", 15000).argv
        == std::vector<std::string>{"SET", "k", "v", "PX", "15000"});
}

TEST_CASE("redis URLs: host, port, password, database; bad ones named",
          "[shared]") {
  auto full = parse_redis_url("redis://:secret@10.0.0.5:6380/2");
  REQUIRE(full);
  CHECK(full->host == "10.0.0.5");
  CHECK(full->port == 6380);
  CHECK(full->password == "secret");
  CHECK(full->db == 2);
  auto plain = parse_redis_url("redis://127.0.0.1");
  REQUIRE(plain);
  CHECK(plain->port == 6379);
  CHECK(plain->db == 0);
  CHECK(plain->password.empty());
  for (const char* bad : {"http://127.0.0.1", "rediss://h", "redis://h/99",
                          "redis://h/x", "not a url"}) {
    auto parsed = parse_redis_url(bad);
    CHECK_FALSE(parsed);
    if (!parsed)
      CHECK(parsed.error().message.rfind("--redis: ", 0) == 0);
  }
  auto secret = parse_redis_url("redis://:hunter2@h/77");
  REQUIRE_FALSE(secret);
  CHECK(secret.error().message.find("hunter2") == std::string::npos);
}

TEST_CASE("a replica's share of the shared limits", "[shared]") {
  std::vector<rate_limit> limits{{"upstream:a", 50, 50, true},
                                 {"upstream:b", 8, 0, true},
                                 {"tool:x", 5, 5, false}};
  auto share = replica_share(limits, 3);
  REQUIRE(share.size() == 2); // the per-replica tool limit stays as it is
  // Whole requests a second, rounded down: 3 replicas never pass 50.
  CHECK(share[0].rate == Approx(16));
  CHECK(share[0].burst == 16);
  CHECK(share[1].rate == Approx(2));
  CHECK(share[1].burst == 2); // burst 0 means the rate
  CHECK(replica_share({{"upstream:c", 2, 2, true}}, 5)[0].burst == 1);
  // Fewer requests than replicas: a fraction each.
  CHECK(replica_share({{"upstream:c", 2, 2, true}}, 5)[0].rate == Approx(0.4));
  CHECK(replica_share(limits, 0)[0].rate == 50); // nonsense count: 1
}

// -- actors with a stand-in REDIS ------------------------------------------------

namespace {

/// A REDIS that answers what the test says and records the commands.
struct scripted_redis {
  std::vector<redis_command> seen;
  /// Answers in order; when empty, unreachable.
  std::vector<redis_result> answers;
};

redis_actor::behavior_type
scripted(redis_actor::pointer, std::shared_ptr<scripted_redis> script) {
  return {
    [script](const redis_command& c) {
      script->seen.push_back(c);
      if (script->answers.empty())
        return redis_result{};
      auto r = script->answers.front();
      script->answers.erase(script->answers.begin());
      return r;
    },
    [](get_counters) { return counters{}; },
  };
}

/// A REDIS holding strings in memory that understands the cache's commands
/// by their shape (GET+PTTL script with two keys, SET ... PX, SET ... NX
/// PX, the unlock script with one key), or is down.
struct memory_redis {
  std::map<std::string, std::string> values;
  bool down = false;
  int gets = 0;
  int puts = 0;
  int locks = 0;
};

redis_actor::behavior_type
in_memory(redis_actor::pointer, std::shared_ptr<memory_redis> db) {
  return {
    [db](const redis_command& c) {
      if (db->down)
        return redis_result{};
      const auto& a = c.argv;
      if (a[0] == "EVAL" && a[2] == "2") {
        ++db->gets;
        auto it = db->values.find(a[3]);
        if (it != db->values.end())
          return array({"1", it->second, "9000"});
        return array({"0", "", db->values.count(a[4]) ? "1" : "0"});
      }
      if (a[0] == "EVAL" && a[2] == "1") { // unlock
        if (db->values[a[3]] == a[4])
          db->values.erase(a[3]);
        return array({});
      }
      if (a[0] == "SET" && a.size() == 6) { // NX PX
        ++db->locks;
        if (db->values.count(a[1])) {
          redis_result nil;
          nil.reachable = true;
          nil.kind = redis_result::nil;
          return nil;
        }
        db->values[a[1]] = a[2];
        return text("OK");
      }
      if (a[0] == "SET") {
        ++db->puts;
        db->values[a[1]] = a[2];
        return text("OK");
      }
      return redis_result{};
    },
    [](get_counters) { return counters{}; },
  };
}

/// A TIMETABLE that counts queries and answers at once.
timetable_actor::behavior_type counting_timetable(std::shared_ptr<int> calls) {
  return {
    [calls](const stop_departures_query& q) {
      ++*calls;
      stop_departures d;
      d.stop_id = q.stop_id;
      d.fetched_ms = 1000 + *calls;
      return d;
    },
    [calls](const nearby_stops_query&) {
      ++*calls;
      return nearby_stops{};
    },
  };
}

} // namespace

TEST_CASE_METHOD(test::deterministic_fixture,
                 "RATE_LIMITER with a shared quota: Redis decides, and "
                 "while it is unreachable each replica keeps to its share",
                 "[shared][rate_limit][actor]") {
  auto script = std::make_shared<scripted_redis>();
  auto redis = sys.spawn(scripted, script);
  shared_quota quota;
  quota.redis = redis;
  quota.prefix = "t:";
  quota.replicas = 4;
  auto limiter = sys.spawn(shared_rate_limiter,
                           std::vector<rate_limit>{{"upstream:u", 8, 8, true},
                                                   {"tool:t", 1, 1, false}},
                           quota);
  auto ask = [&](const std::string& key) {
    permit out;
    self->send(limiter, acquire_permit{key});
    sched.run();
    self->receive([&](permit& p) { out = p; });
    return out;
  };
  // Redis answers: its verdict is the permit.
  script->answers = {array({"1", "0"}), array({"0", "300"})};
  CHECK(ask("upstream:u").granted);
  auto refused = ask("upstream:u");
  CHECK_FALSE(refused.granted);
  CHECK(refused.retry_after_ms == 300);
  REQUIRE(script->seen.size() == 2);
  CHECK(script->seen[0].argv[3] == "t:bucket:upstream:u");
  CHECK(script->seen[0].argv[5] == "8.000000");
  // A local limit never asks Redis.
  CHECK(ask("tool:t").granted);
  CHECK_FALSE(ask("tool:t").granted);
  CHECK(script->seen.size() == 2);
  // Unreachable: this replica's share, 8 / 4 = 2 per second, burst 2,
  // starting empty (Redis may have given this second's requests already).
  auto first_local = ask("upstream:u");
  CHECK_FALSE(first_local.granted);
  CHECK(first_local.retry_after_ms == 500);
  sched.advance_time(1000ms);
  CHECK(ask("upstream:u").granted);
  CHECK(ask("upstream:u").granted);
  auto share = ask("upstream:u");
  CHECK_FALSE(share.granted);
  CHECK(share.retry_after_ms == 500);
  // An upstream without a rate still asks Redis (its 429 hold-off is the
  // fleet's), and is unlimited when Redis is down.
  script->seen.clear();
  CHECK(ask("upstream:free").granted);
  REQUIRE(script->seen.size() == 1);
  CHECK(script->seen[0].argv[5] == "0.000000");
  // A 429 on this replica holds every replica off.
  self->send(limiter, hold_off{"upstream:u", 2000});
  sched.run();
  REQUIRE(script->seen.size() == 2);
  CHECK(script->seen[1].argv[3] == "t:hold:upstream:u");
  CHECK(script->seen[1].argv[4] == "2000");
  // ... and this replica itself, even with Redis down.
  sched.advance_time(1s);
  auto held = ask("upstream:u");
  CHECK_FALSE(held.granted);
  CHECK(held.retry_after_ms == 1000);
  // Redis back, then gone again: the local share starts empty again.
  sched.advance_time(5s);
  script->answers = {array({"1", "0"})};
  CHECK(ask("upstream:u").granted);
  auto again = ask("upstream:u");
  CHECK_FALSE(again.granted);
  CHECK(again.retry_after_ms == 500);
  counters c;
  self->send(limiter, get_counters{});
  sched.run();
  self->receive([&](counters& got) { c = got; });
  int64_t fallbacks = 0;
  for (const auto& [name, value] : c.values)
    if (name == "upstream:u.fallbacks")
      fallbacks = value;
  CHECK(fallbacks == 6);
}

namespace {

/// A REDIS that keeps the quota's buckets as the bucket script does (a
/// bucket made afresh: empty and quiet for a second), on the actor clock,
/// or is down; `restart` forgets every bucket.
struct bucket_redis {
  struct bucket {
    double tokens = 0;
    int64_t last = 0;
  };
  std::map<std::string, bucket> buckets;
  bool down = false;
};

redis_actor::behavior_type
bucket_server(redis_actor::pointer self, std::shared_ptr<bucket_redis> db) {
  return {
    [self, db](const redis_command& c) {
      if (db->down || c.argv.size() < 7)
        return redis_result{};
      auto now = clock_ms(self);
      auto rate = std::stod(c.argv[5]);
      auto burst = std::stod(c.argv[6]);
      auto [it, fresh] = db->buckets.try_emplace(c.argv[3]);
      auto& b = it->second;
      if (fresh)
        b = {0, now + 1000};
      if (now > b.last) {
        b.tokens = std::min(burst, b.tokens + (now - b.last) * rate / 1000);
        b.last = now;
      }
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return array({"1", "0"});
      }
      auto wait = static_cast<int64_t>(std::ceil((1 - b.tokens) * 1000 / rate));
      if (b.last > now)
        wait += b.last - now;
      return array({"0", std::to_string(std::max<int64_t>(1, wait))});
    },
    [](get_counters) { return counters{}; },
  };
}

/// `replicas` limiters sharing a quota of 5 a second, each asking for a
/// permit every 20 ms (virtual time) for 12 s, Redis leaving at 3.5 s and
/// coming back (afresh, empty) at 7.5 s: the permits granted fleet-wide in
/// each second.
std::vector<int> fleet_seconds(test::deterministic_fixture& f, int replicas) {
  auto db = std::make_shared<bucket_redis>();
  auto redis = f.sys.spawn(bucket_server, db);
  std::vector<rate_limiter_actor> fleet;
  for (int i = 0; i < replicas; ++i) {
    shared_quota quota;
    quota.redis = redis;
    quota.replicas = replicas;
    fleet.push_back(f.sys.spawn(shared_rate_limiter,
                                std::vector<rate_limit>{
                                  {"upstream:u", 5, 1, true}},
                                quota));
  }
  std::vector<int> per_second(12, 0);
  for (int tick = 0; tick < 600; ++tick) {
    auto t = tick * 20;
    if (t == 3500)
      db->down = true;
    if (t == 7500) {
      db->down = false;
      db->buckets.clear(); // a restarted Redis holds nothing
    }
    for (auto& replica : fleet) {
      f.self->send(replica, acquire_permit{"upstream:u"});
      f.sched.run();
      f.self->receive([&](permit& p) {
        if (p.granted)
          ++per_second[static_cast<std::size_t>(t / 1000)];
      });
    }
    f.sched.advance_time(std::chrono::milliseconds{20});
  }
  return per_second;
}

} // namespace

TEST_CASE_METHOD(test::deterministic_fixture,
                 "the quota across replicas: no second sees more than it "
                 "when Redis leaves or comes back, with 3 and with 5 "
                 "replicas",
                 "[shared][rate_limit][actor][quota]") {
  for (int replicas : {3, 5}) {
    auto seconds = fleet_seconds(*this, replicas);
    int total = 0;
    for (std::size_t s = 0; s < seconds.size(); ++s) {
      INFO(replicas << " replicas, second " << s);
      CHECK(seconds[s] <= 5);
      total += seconds[s];
    }
    // ... and the quota is used: Redis's seconds give 5, the outage the
    // replicas' whole shares.
    CHECK(seconds[2] == 5);
    CHECK(seconds[10] == 5);
    CHECK(seconds[5] == (replicas == 3 ? 3 : 5));
    CHECK(total >= 30);
  }
}

TEST_CASE_METHOD(test::deterministic_fixture,
                 "caches on two replicas: one upstream call for both, "
                 "through the shared level and its lock",
                 "[shared][cache][actor]") {
  auto db = std::make_shared<memory_redis>();
  auto redis = sys.spawn(in_memory, db);
  auto calls = std::make_shared<int>(0);
  auto upstream = sys.spawn(counting_timetable, calls);
  provider_cache_options o;
  o.name = "timetable";
  o.redis = redis;
  o.shared.prefix = "t:";
  o.shared.poll_ms = 20;
  auto a = spawn_timetable_cache(sys, upstream, o);
  auto b = spawn_timetable_cache(sys, upstream, o);
  stop_departures_query q;
  q.stop_id = "HSL:1";
  q.start_time = 1000;
  q.time_range_seconds = 3600;
  q.context.correlation_id = "c1";
  // Replica B holds the lock, as if it were fetching.
  auto lock_key = shared_cache_key("t:", "timetable", "departures",
                                   cache_key(q))
                  + ":lock";
  db->values[lock_key] = "someone";
  self->send(a, q);
  sched.run();
  CHECK(*calls == 0); // A waits for the holder's answer
  CHECK(db->gets == 1);
  sched.advance_time(20ms);
  sched.run();
  CHECK(db->gets == 2); // and looks again
  // The holder stores its answer and lets go.
  stop_departures stored;
  stored.stop_id = "HSL:1";
  stored.fetched_ms = 777;
  auto kept = q;
  kept.context = call_context{};
  kept.time_range_seconds += 15; // widened by the TTL, as a fetch does
  std::pair<stop_departures_query, stop_departures> entry{kept, stored};
  std::vector<char> blob;
  caf::binary_serializer sink{static_cast<caf::execution_unit*>(nullptr), blob};
  REQUIRE_FALSE(sink(entry));
  db->values[shared_cache_key("t:", "timetable", "departures", cache_key(q))]
    = std::string{blob.begin(), blob.end()};
  db->values.erase(lock_key);
  sched.advance_time(20ms);
  sched.run();
  stop_departures got;
  self->receive([&](stop_departures& d) { got = d; });
  CHECK(got.fetched_ms == 777); // the other replica's answer, its age kept
  CHECK(*calls == 0);

  // Nobody holds the lock: B takes it, fetches once, stores and unlocks;
  // A, asking after, finds B's answer.
  auto q2 = q;
  q2.stop_id = "HSL:2";
  self->send(b, q2);
  sched.run();
  self->receive([&](stop_departures& d) { got = d; });
  CHECK(*calls == 1);
  CHECK(db->locks == 1);
  CHECK(db->puts == 1);
  auto key2 = shared_cache_key("t:", "timetable", "departures", cache_key(q2));
  CHECK(db->values.count(key2 + ":lock") == 0);
  self->send(a, q2);
  sched.run();
  self->receive([&](stop_departures& d) { got = d; });
  CHECK(*calls == 1);
  CHECK(got.fetched_ms == 1001);

  // An answer another replica stored for a narrower window does not cover
  // this caller: fetched anew.
  auto q4 = q;
  q4.stop_id = "HSL:4";
  auto narrow = q4;
  narrow.context = call_context{};
  narrow.time_range_seconds = 60;
  std::pair<stop_departures_query, stop_departures> short_entry{narrow, stored};
  std::vector<char> short_blob;
  caf::binary_serializer short_sink{static_cast<caf::execution_unit*>(nullptr),
                                    short_blob};
  REQUIRE_FALSE(short_sink(short_entry));
  db->values[shared_cache_key("t:", "timetable", "departures", cache_key(q4))]
    = std::string{short_blob.begin(), short_blob.end()};
  self->send(a, q4);
  sched.run();
  self->receive([&](stop_departures& d) { got = d; });
  CHECK(*calls == 2);
  CHECK(got.fetched_ms == 1002);

  // Redis down: each replica fetches for itself (fail-open).
  db->down = true;
  auto q3 = q;
  q3.stop_id = "HSL:3";
  self->send(a, q3);
  sched.run();
  self->receive([&](stop_departures&) {});
  self->send(b, q3);
  sched.run();
  self->receive([&](stop_departures&) {});
  CHECK(*calls == 4);
}

// -- the scripts on a real Redis ---------------------------------------------------

TEST_CASE("the shared bucket and hold-off on a real Redis",
          "[shared][redis]") {
  if (!test::server_available("redis-server", "redis-server"))
    return;
  test::redis_server server;
  auto endpoint = parse_redis_url(server.url());
  REQUIRE(endpoint);
  // The scripts' rules are what is tested, not the link's deadlines: a
  // server just started on a loaded machine (sanitizers, a PostgreSQL
  // test starting beside it) may take longer than the default 250 ms to
  // load the first script.
  redis_link_options generous;
  generous.connect_timeout_ms = 3000;
  generous.command_timeout_ms = 3000;
  redis_link link{*endpoint, generous};
  // A bucket made afresh starts empty and quiet for a second (the
  // replicas' own shares may have spent it).
  auto fresh = parse_bucket_reply(
    link.run(bucket_command("t:", "upstream:u", 5, 5).argv, 0));
  REQUIRE(fresh);
  CHECK_FALSE(fresh->granted);
  CHECK(fresh->retry_after_ms > 1000);
  CHECK(fresh->retry_after_ms <= 1200);
  // Two replicas' worth of takers on one bucket of 5 per second, burst 5,
  // once full: together they get 5 at once, then wait.
  std::this_thread::sleep_for(std::chrono::milliseconds{2300});
  int granted = 0;
  int64_t wait = 0;
  for (int i = 0; i < 10; ++i) {
    auto p = parse_bucket_reply(
      link.run(bucket_command("t:", "upstream:u", 5, 5).argv, 0));
    REQUIRE(p);
    if (p->granted)
      ++granted;
    else
      wait = p->retry_after_ms;
  }
  CHECK(granted == 5);
  CHECK(wait > 0);
  CHECK(wait <= 200);
  // Callers that can wait reserve the next tokens in turn (200 ms apart at
  // 5 a second); one that cannot wait as long is refused at once.
  auto first = parse_bucket_reply(
    link.run(bucket_command("t:", "upstream:u", 5, 5, 1000).argv, 0));
  auto second = parse_bucket_reply(
    link.run(bucket_command("t:", "upstream:u", 5, 5, 1000).argv, 0));
  REQUIRE(first);
  REQUIRE(second);
  CHECK(first->granted);
  CHECK(second->granted);
  CHECK(second->wait_ms - first->wait_ms >= 150);
  auto impatient = parse_bucket_reply(
    link.run(bucket_command("t:", "upstream:u", 5, 5, 100).argv, 0));
  REQUIRE(impatient);
  CHECK_FALSE(impatient->granted);
  CHECK(impatient->retry_after_ms > 300);
  // A hold-off refuses even an unlimited key, for about its length.
  REQUIRE(link.run(hold_command("t:", "upstream:v", 3000).argv, 0).reachable);
  auto held = parse_bucket_reply(
    link.run(bucket_command("t:", "upstream:v", 0, 0).argv, 0));
  REQUIRE(held);
  CHECK_FALSE(held->granted);
  CHECK(held->retry_after_ms > 2000);
  CHECK(held->retry_after_ms <= 3000);
  // A shorter hold never shortens it.
  link.run(hold_command("t:", "upstream:v", 10).argv, 0);
  CHECK(parse_bucket_reply(link.run(
          bucket_command("t:", "upstream:v", 0, 0).argv, 0))->retry_after_ms
        > 2000);
  // The cache's lookup, lock and unlock.
  auto key = shared_cache_key("t:", "c", "k", "q");
  auto miss = parse_cache_get(link.run(cache_get_command(key, key + ":lock").argv, 0));
  REQUIRE(miss);
  CHECK_FALSE(miss->found);
  CHECK_FALSE(miss->locked);
  CHECK(lock_taken(link.run(lock_command(key + ":lock", "me", 5000).argv, 0)));
  CHECK_FALSE(lock_taken(link.run(lock_command(key + ":lock", "you", 5000).argv, 0)));
  CHECK(parse_cache_get(link.run(cache_get_command(key, key + ":lock").argv, 0))->locked);
  link.run(unlock_command(key + ":lock", "you").argv, 0); // not the holder
  CHECK(parse_cache_get(link.run(cache_get_command(key, key + ":lock").argv, 0))->locked);
  link.run(cache_put_command(key, std::string{"a\0b", 3}, 60000).argv, 0);
  link.run(unlock_command(key + ":lock", "me").argv, 0);
  auto hit = parse_cache_get(link.run(cache_get_command(key, key + ":lock").argv, 0));
  REQUIRE(hit);
  CHECK(hit->found);
  CHECK(hit->value == std::string{"a\0b", 3});
  CHECK(hit->ttl_ms > 50000);
  CHECK(hit->ttl_ms <= 60000);
  CHECK(lock_taken(link.run(lock_command(key + ":lock", "next", 5000).argv, 0)));

  // Redis stops: commands fail at once, and the link reconnects when it is
  // back (after its backoff, on the steady clock passed in).
  server.stop();
  CHECK_FALSE(link.run({"PING"}, 1000).reachable);
  CHECK_FALSE(link.connected());
  CHECK_FALSE(link.last_error().empty());
  server.start();
  CHECK_FALSE(link.run({"PING"}, 1001).reachable); // backing off
  auto pong = link.run({"PING"}, 1000 + 5000);
  CHECK(pong.reachable);
  CHECK(pong.text == "PONG");
  CHECK(link.reconnects() == 1);
}
