// Saved variables in PostgreSQL, against a real server started on
// 127.0.0.1 for the test (a throwaway cluster): the backend, the store
// actors over it as two replicas, a restart mid-run, the versioned schema,
// and migrate-store from SQLite.

#include "transitd/store/postgres_store.hpp"

#include <filesystem>
#include <thread>

#include <unistd.h>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/exit_reason.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include "transitd/actors/variable_store.hpp"
#include "transitd/store/sqlite_store.hpp"
#include "transitd/messages/caf_glue.hpp"
#include "transitd/messages/time.hpp"
#include "support/capped_saves.hpp"
#include "support/servers.hpp"
#include "transitd/transport/migrate_store.hpp"

using namespace transitd;
using namespace std::chrono_literals;

namespace {

user_variable place(std::string key, std::optional<std::string> address = {}) {
  user_variable v;
  v.key = std::move(key);
  v.type = variable_type::location;
  v.lat = 60.1698557;
  v.lon = 24.9383791;
  v.address = std::move(address);
  return v;
}

user_variable stop(std::string key, std::string id, int64_t updated_ms = 0) {
  user_variable v;
  v.key = std::move(key);
  v.type = variable_type::stop;
  v.stop_id = std::move(id);
  v.name = "Work";
  v.updated_ms = updated_ms;
  return v;
}

call_context context_for(std::string principal) {
  call_context c;
  c.principal = std::move(principal);
  c.correlation_id = "test";
  c.deadline_ms = now_ms() + 8000;
  return c;
}

} // namespace

TEST_CASE("PostgreSQL store: the same rules as SQLite, shared by replicas, "
          "through a server restart",
          "[variable_store][postgres]") {
  if (!test::server_available("postgres", "postgresql"))
    return;
  test::postgres_server server;
  auto db = open_postgres_store(server.url(), 10000);
  CHECK(db->schema_version() == 1);
  // Insert, replace, null columns, per principal.
  user_variable home = place("home", std::string{"Mannerheimintie 1"});
  home.updated_ms = 1000;
  auto saved = db->save("alice", home);
  REQUIRE(saved);
  CHECK_FALSE(*saved); // new
  home.updated_ms = 2000;
  CHECK(*db->save("alice", home)); // replaced
  REQUIRE(db->save("alice", stop("work", "HSL:1040129", 3000)));
  REQUIRE(db->save("bob", stop("work", "HSL:2222", 3000)));
  auto all = db->list("alice", std::nullopt);
  REQUIRE(all);
  REQUIRE(all->size() == 2);
  CHECK(all->at(0).key == "home");
  CHECK(all->at(0).lat == Approx(60.1698557).epsilon(1e-9));
  CHECK(all->at(0).address == std::optional<std::string>{"Mannerheimintie 1"});
  CHECK_FALSE(all->at(0).name);
  CHECK(all->at(0).updated_ms == 2000);
  CHECK(all->at(1).stop_id == "HSL:1040129");
  CHECK(all->at(1).name == std::optional<std::string>{"Work"});
  CHECK_FALSE(all->at(1).address);
  CHECK(db->list("bob", std::string{"work"})->at(0).stop_id == "HSL:2222");
  CHECK(db->list("carol", std::nullopt)->empty());
  CHECK(*db->count("alice") == 2);
  CHECK(*db->erase("alice", "work"));
  CHECK_FALSE(*db->erase("alice", "work"));
  // import: the newer version wins, whichever side has it.
  CHECK_FALSE(*db->import("bob", stop("work", "HSL:OLD", 1000)));
  CHECK(*db->import("bob", stop("work", "HSL:NEW", 9000)));
  CHECK(*db->import("dave", stop("gym", "HSL:3", 1)));
  CHECK(db->list("bob", std::string{"work"})->at(0).stop_id == "HSL:NEW");
  auto dumped = db->dump();
  REQUIRE(dumped);
  CHECK(dumped->size() == 3);

  // Two replicas' stores (pools of connections) on the one database: a
  // variable saved through one is read through the other.
  caf::actor_system_config cfg;
  add_message_types(cfg);
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  variable_store_options options;
  options.path = server.url();
  options.connections = 2;
  auto first = spawn_variable_store(sys, options);
  auto second = spawn_variable_store(sys, options);
  auto save_through = [&](const variable_store_actor& store,
                          user_variable v) {
    bool ok = false;
    std::string error;
    self->request(store, 15s, save_variable_request{context_for("local"), v})
      .receive([&](save_variable_reply&) { ok = true; },
               [&](caf::error& err) { error = to_failure(err).message; });
    INFO(error);
    return ok;
  };
  auto read_through = [&](const variable_store_actor& store,
                          const std::string& key) {
    std::optional<user_variable> found;
    self
      ->request(store, 15s, get_variables_request{context_for("local"), key})
      .receive(
        [&](get_variables_reply& r) {
          if (!r.variables.empty())
            found = r.variables.front();
        },
        [](caf::error&) {});
    return found;
  };
  REQUIRE(save_through(first, stop("office", "HSL:1")));
  auto seen = read_through(second, "office");
  REQUIRE(seen);
  CHECK(seen->stop_id == "HSL:1");
  CHECK(seen->updated_ms > 0);

  // The server goes away and comes back (a restart, a failover): a save
  // waiting on it lands within its deadline, on a new connection.
  server.stop();
  std::thread restart{[&] {
    std::this_thread::sleep_for(1s);
    server.start();
  }};
  CHECK(save_through(second, stop("after-restart", "HSL:9")));
  restart.join();
  auto after = read_through(first, "after-restart");
  REQUIRE(after);
  CHECK(after->stop_id == "HSL:9");

  // Down past the deadline: the call fails, naming the store, and says
  // what to do; the store answers again once the server is back.
  server.stop();
  bool failed = false;
  call_context soon = context_for("local");
  soon.deadline_ms = now_ms() + 700;
  self->request(first, 15s, save_variable_request{soon, stop("lost", "HSL:0")})
    .receive([](save_variable_reply&) {},
             [&](caf::error& err) {
               failed = true;
               auto f = to_failure(err);
               CHECK(f.code == ec::internal_error);
               CHECK_THAT(f.message,
                          Catch::Contains("variable store unreachable"));
               CHECK_THAT(f.hint, Catch::Contains("retry"));
             });
  CHECK(failed);
  server.start();
  CHECK(save_through(first, stop("back", "HSL:8")));
  CHECK(read_through(second, "back"));
  caf::anon_send_exit(first, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(second, caf::exit_reason::user_shutdown);
}

TEST_CASE("PostgreSQL store: the cap holds under concurrent saves from "
          "several connections (replicas)",
          "[variable_store][postgres][cap]") {
  if (!test::server_available("postgres", "postgresql"))
    return;
  test::postgres_server server;
  test::check_capped_saves(
    [&] { return open_postgres_store(server.url(), 10000); });
}

TEST_CASE("PostgreSQL store: a newer schema is refused; migrate-store "
          "copies a SQLite store, newer variables winning",
          "[variable_store][postgres][migration]") {
  if (!test::server_available("postgres", "postgresql"))
    return;
  test::postgres_server server;
  // migrate-store from SQLite: two principals; the target already has one
  // variable newer and one older than the source's.
  auto dir = std::filesystem::temp_directory_path()
             / ("transitd-migrate-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto sqlite_path = (dir / "variables.sqlite3").string();
  {
    variable_database sqlite{sqlite_path};
    REQUIRE(sqlite.save("local", stop("work", "HSL:SQLITE", 5000)));
    REQUIRE(sqlite.save("local", stop("gym", "HSL:SQLITE", 5000)));
    REQUIRE(sqlite.save("user:ann", place("home")));
  }
  {
    auto target = open_postgres_store(server.url());
    REQUIRE(target->import("local", stop("work", "HSL:NEWER", 9000)));
    REQUIRE(target->import("local", stop("gym", "HSL:OLDER", 10)));
  }
  auto report = migrate_store(sqlite_path, server.url());
  REQUIRE(report);
  CHECK(report->read == 3);
  CHECK(report->written == 2);
  CHECK(report->kept == 1);
  auto target = open_postgres_store(server.url());
  CHECK(target->list("local", std::string{"work"})->at(0).stop_id
        == "HSL:NEWER");
  CHECK(target->list("local", std::string{"gym"})->at(0).stop_id
        == "HSL:SQLITE");
  CHECK(target->list("user:ann", std::string{"home"})->size() == 1);
  // Run again: nothing more to write.
  auto again = migrate_store(sqlite_path, server.url());
  REQUIRE(again);
  CHECK(again->written == 0);
  CHECK(again->kept == 3);
  // The command line: sqlite: prefix, unknown stores named.
  CHECK(*store_location("sqlite:/x/v.sqlite3") == "/x/v.sqlite3");
  CHECK(*store_location(server.url()) == server.url());
  auto bad = store_location("mysql://root:pw@h/db");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("pw") == std::string::npos);
  CHECK(migrate_store_command({"--from", "sqlite:" + sqlite_path}) == 2);
  CHECK(migrate_store_command({"--from", "sqlite:" + sqlite_path, "--to",
                               server.url()})
        == 0);
  std::filesystem::remove_all(dir);

  // A schema newer than this build: refused at start, naming the version.
  {
    pqxx::connection c{server.url()};
    pqxx::work txn{c};
    txn.exec("UPDATE transitd_schema SET version = 2");
    txn.commit();
  }
  try {
    open_postgres_store(server.url(), 1000);
    FAIL("a newer schema was accepted");
  } catch (const std::runtime_error& e) {
    CHECK_THAT(e.what(), Catch::Contains("schema version 2"));
    CHECK_THAT(e.what(), Catch::Contains("newer"));
  }
  CHECK(redact_postgres_url("postgresql://u:secret@h:5432/db?sslmode=x")
        == "postgresql://u@h:5432/db");
}
