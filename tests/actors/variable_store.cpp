// VARIABLE_STORE: validation, SQLite persistence, principal isolation.

#include "transitd/actors/variable_store.hpp"
#include "transitd/store/sqlite_store.hpp"

#include <filesystem>

#include <unistd.h>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/exit_reason.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <catch2/catch.hpp>
#include <sqlite3.h>

#include "support/capped_saves.hpp"

using namespace transitd;
using namespace std::chrono_literals;

namespace {

user_variable location(std::string key, double lat = 60.17,
                       double lon = 24.94) {
  user_variable v;
  v.key = std::move(key);
  v.type = variable_type::location;
  v.lat = lat;
  v.lon = lon;
  v.name = "Home";
  return v;
}

user_variable stop(std::string key, std::string id = "HSL:1040129") {
  user_variable v;
  v.key = std::move(key);
  v.type = variable_type::stop;
  v.stop_id = std::move(id);
  return v;
}

/// A fresh temporary directory, removed afterwards.
struct temp_dir {
  std::filesystem::path path;
  temp_dir() {
    path = std::filesystem::temp_directory_path()
           / ("transitd-test-" + std::to_string(::getpid()) + "-"
              + std::to_string(reinterpret_cast<uintptr_t>(this)));
    std::filesystem::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

template <class Reply, class Request>
void expect_failure(caf::scoped_actor& self, const variable_store_actor& store,
                    Request request, ec code, const std::string& text) {
  bool failed = false;
  self->request(store, 5s, std::move(request))
    .receive([&](Reply&) {},
             [&](caf::error& err) {
               failed = true;
               auto f = to_failure(err);
               CHECK(f.code == code);
               CHECK_THAT(f.message, Catch::Contains(text));
             });
  CHECK(failed);
}

} // namespace

TEST_CASE("variable validation", "[variable_store][validation]") {
  CHECK_FALSE(validate(location("home")));
  CHECK_FALSE(validate(stop("work")));
  CHECK(validate(location("")));
  CHECK(validate(location("   ")));
  CHECK(validate(location(std::string(101, 'k'))));
  CHECK(validate(location("a\nb")));
  CHECK(validate(location("home", 91, 0)));
  CHECK(validate(location("home", 0, -181)));
  CHECK(validate(stop("work", "")));
  auto long_name = location("home");
  long_name.name = std::string(201, 'x');
  CHECK(validate(long_name));
  CHECK_THAT(validate(location("home", 100, 0))->message,
             Catch::Contains("lat"));
}

TEST_CASE("the database saves, replaces, lists and deletes",
          "[variable_store][sqlite]") {
  variable_database db{":memory:"};
  CHECK(*db.save("alice", location("home")) == false);
  CHECK(*db.save("alice", stop("work")) == false);
  auto moved = location("home", 60.2, 25.0);
  moved.address = "Mannerheimintie 1";
  CHECK(*db.save("alice", moved) == true); // replaced
  auto all = db.list("alice", std::nullopt);
  REQUIRE(all);
  REQUIRE(all->size() == 2);
  CHECK(all->at(0).key == "home"); // sorted by key
  CHECK(all->at(0).lat == Approx(60.2));
  CHECK(all->at(0).address == std::optional<std::string>{"Mannerheimintie 1"});
  CHECK(all->at(1).stop_id == "HSL:1040129");
  CHECK(*db.count("alice") == 2);
  CHECK(*db.erase("alice", "work") == true);
  CHECK(*db.erase("alice", "work") == false);
  CHECK(db.list("alice", std::string{"work"})->empty());
}

TEST_CASE("one principal never sees another's variables (D17)",
          "[variable_store][sqlite][isolation]") {
  variable_database db{":memory:"};
  db.save("alice", location("home"));
  db.save("bob", stop("home", "HSL:9"));
  CHECK(db.list("bob", std::string{"home"})->at(0).stop_id == "HSL:9");
  CHECK(db.list("alice", std::nullopt)->size() == 1);
  CHECK(*db.erase("bob", "home") == true);
  // Alice's "home" is untouched by Bob's delete.
  CHECK(db.list("alice", std::string{"home"})->size() == 1);
  CHECK(db.list("mallory", std::nullopt)->empty());
}

TEST_CASE("variables survive a restart", "[variable_store][sqlite]") {
  temp_dir dir;
  auto path = (dir.path / "variables.sqlite3").string();
  {
    variable_database db{path};
    db.save("alice", stop("work"));
  }
  variable_database reopened{path};
  auto found = reopened.list("alice", std::string{"work"});
  REQUIRE(found);
  REQUIRE(found->size() == 1);
  CHECK(found->at(0).stop_id == "HSL:1040129");
}

TEST_CASE("a store of session-owned variables migrates to `local` (D17 "
          "revised)",
          "[variable_store][sqlite][migration]") {
  temp_dir dir;
  auto path = (dir.path / "variables.sqlite3").string();
  {
    // A store as version 0 left it: variables of two MCP sessions (both
    // saved "home"; B's later) and of an authenticated principal.
    sqlite3* raw = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &raw) == SQLITE_OK);
    const char* v0 = R"sql(
      CREATE TABLE user_variables (
        principal TEXT NOT NULL, key TEXT NOT NULL,
        type TEXT NOT NULL CHECK (type IN ('location', 'stop')),
        lat REAL, lon REAL, stop_id TEXT, name TEXT, address TEXT,
        updated_ms INTEGER NOT NULL, PRIMARY KEY (principal, key)
      ) WITHOUT ROWID;
      INSERT INTO user_variables VALUES
        ('session:A', 'home', 'stop', NULL, NULL, 'HSL:A', NULL, NULL, 100),
        ('session:B', 'home', 'stop', NULL, NULL, 'HSL:B', NULL, NULL, 200),
        ('session:A', 'work', 'location', 60.1, 24.9, NULL, 'Office', NULL,
         150),
        ('user:alice', 'home', 'stop', NULL, NULL, 'HSL:alice', NULL, NULL,
         50);
    )sql";
    REQUIRE(sqlite3_exec(raw, v0, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(raw);
  }
  {
    variable_database db{path};
    CHECK(db.schema_version() == 1);
    auto local = db.list("local", std::nullopt);
    REQUIRE(local);
    REQUIRE(local->size() == 2);
    auto home = db.list("local", std::string{"home"});
    REQUIRE(home->size() == 1);
    CHECK(home->at(0).stop_id == "HSL:B"); // the most recent save wins
    auto work = db.list("local", std::string{"work"});
    REQUIRE(work->size() == 1);
    CHECK(work->at(0).name == "Office");
    CHECK(db.list("session:A", std::nullopt)->empty());
    CHECK(db.list("session:B", std::nullopt)->empty());
    // An authenticated principal's variables are untouched.
    CHECK(db.list("user:alice", std::string{"home"})->at(0).stop_id
          == "HSL:alice");
    // Written after the migration: the next start must not move it.
    db.save("session:late", stop("late"));
  }
  variable_database reopened{path};
  CHECK(reopened.schema_version() == 1);
  CHECK(reopened.list("session:late", std::nullopt)->size() == 1);
  CHECK(reopened.list("local", std::nullopt)->size() == 2);
}

TEST_CASE("an unusable path fails loudly", "[variable_store][sqlite]") {
  CHECK_THROWS_WITH(variable_database{"/nonexistent-dir/x/variables.db"},
                    Catch::Contains("/nonexistent-dir/x/variables.db"));
}

TEST_CASE("the cap holds under concurrent saves on SQLite connections",
          "[variable_store][sqlite][cap]") {
  temp_dir dir;
  auto file = (dir.path / "vars.db").string();
  test::check_capped_saves(
    [&] { return std::make_unique<variable_database>(file); });
}

TEST_CASE("the store actor: save, list, resolve, delete, limits",
          "[variable_store][actor]") {
  caf::actor_system_config cfg;
  add_message_types(cfg);
  caf::actor_system sys{cfg};
  variable_store_options options;
  options.max_per_principal = 2;
  auto store = spawn_variable_store(sys, options);
  {
    caf::scoped_actor self{sys};
    call_context alice{"cid-1", "alice", 0, 0, nullptr};
    call_context bob{"cid-2", "bob", 0, 0, nullptr};
    auto expect_ok = [&](auto request, auto check) {
      self->request(store, 5s, request)
        .receive(check, [&](caf::error& err) { FAIL(caf::to_string(err)); });
    };
    expect_ok(save_variable_request{alice, stop("work")},
              [](save_variable_reply& r) {
                CHECK_FALSE(r.replaced);
                CHECK(r.correlation_id == "cid-1");
                CHECK(r.variable.updated_ms > 0);
              });
    expect_ok(save_variable_request{alice, stop("work", "HSL:2")},
              [](save_variable_reply& r) { CHECK(r.replaced); });
    expect_ok(save_variable_request{alice, location("home")},
              [](save_variable_reply&) {});
    // A third key exceeds the limit of 2; replacing stays allowed.
    expect_failure<save_variable_reply>(self, store,
                                        save_variable_request{alice,
                                                              location("gym")},
                 ec::validation_error, "too many");
    expect_ok(save_variable_request{alice, location("home", 1, 1)},
              [](save_variable_reply& r) { CHECK(r.replaced); });
    expect_failure<save_variable_reply>(
      self, store, save_variable_request{alice, location("", 0, 0)},
                 ec::validation_error, "key");
    expect_ok(resolve_label{alice, "work"}, [](user_variable& v) {
      CHECK(v.type == variable_type::stop);
      CHECK(v.stop_id == "HSL:2");
    });
    expect_failure<user_variable>(self, store, resolve_label{bob, "work"},
                                  ec::validation_error, "work");
    expect_ok(get_variables_request{bob, std::nullopt},
              [](get_variables_reply& r) { CHECK(r.variables.empty()); });
    expect_ok(delete_variable_request{bob, "work"},
              [](delete_variable_reply& r) { CHECK_FALSE(r.deleted); });
    expect_ok(get_variables_request{alice, std::nullopt},
              [](get_variables_reply& r) { CHECK(r.variables.size() == 2); });
    expect_ok(delete_variable_request{alice, "work"},
              [](delete_variable_reply& r) { CHECK(r.deleted); });
    expect_failure<get_variables_reply>(
      self, store, get_variables_request{call_context{}, std::nullopt},
      ec::internal_error, "principal");
  }
  caf::anon_send_exit(store, caf::exit_reason::user_shutdown);
}
