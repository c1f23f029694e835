#include "transitd/store/sqlite_store.hpp"

#include <stdexcept>

#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include "transitd/messages/time.hpp"

namespace transitd {

namespace {

/// A prepared statement, finalised on scope exit.
class statement {
public:
  statement(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string{"SQLite prepare failed: "}
                               + sqlite3_errmsg(db));
  }
  ~statement() {
    sqlite3_finalize(stmt_);
  }
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;

  void bind(int index, const std::string& text) {
    sqlite3_bind_text(stmt_, index, text.data(),
                      static_cast<int>(text.size()), SQLITE_TRANSIENT);
  }
  void bind(int index, const std::optional<std::string>& text) {
    if (text)
      bind(index, *text);
    else
      sqlite3_bind_null(stmt_, index);
  }
  void bind(int index, double value) {
    sqlite3_bind_double(stmt_, index, value);
  }
  void bind(int index, int64_t value) {
    sqlite3_bind_int64(stmt_, index, value);
  }
  int step() {
    return sqlite3_step(stmt_);
  }
  std::string text(int column) {
    const auto* p = sqlite3_column_text(stmt_, column);
    return p == nullptr ? std::string{}
                        : std::string{reinterpret_cast<const char*>(p)};
  }
  std::optional<std::string> optional_text(int column) {
    if (sqlite3_column_type(stmt_, column) == SQLITE_NULL)
      return std::nullopt;
    return text(column);
  }
  double real(int column) {
    return sqlite3_column_double(stmt_, column);
  }
  int64_t integer(int column) {
    return sqlite3_column_int64(stmt_, column);
  }

private:
  sqlite3_stmt* stmt_ = nullptr;
};

/// The variable in columns key, type, lat, lon, stop_id, name, address,
/// updated_ms from `first`.
user_variable read_variable(statement& row, int first) {
  user_variable v;
  v.key = row.text(first);
  v.type = parse_variable_type(row.text(first + 1))
             .value_or(variable_type::location);
  v.lat = row.real(first + 2);
  v.lon = row.real(first + 3);
  v.stop_id = row.text(first + 4);
  v.name = row.optional_text(first + 5);
  v.address = row.optional_text(first + 6);
  v.updated_ms = row.integer(first + 7);
  return v;
}

failure storage_failure(sqlite3* db, const char* what) {
  return make_failure(ec::internal_error,
                      std::string{"variable store: "} + what + " failed ("
                        + sqlite3_errmsg(db) + ")");
}

} // namespace

struct variable_database::impl {
  sqlite3* db = nullptr;
};

variable_database::variable_database(const std::string& path)
  : impl_(std::make_unique<impl>()) {
  auto flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
               | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &impl_->db, flags, nullptr) != SQLITE_OK) {
    std::string reason = impl_->db ? sqlite3_errmsg(impl_->db) : "no memory";
    sqlite3_close(impl_->db);
    throw std::runtime_error("cannot open the variable store \"" + path
                             + "\": " + reason);
  }
  // WAL keeps readers off the writer's back; synchronous=FULL makes each
  // committed write durable before the reply (survives a crash).
  const char* setup = R"sql(
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = FULL;
    PRAGMA busy_timeout = 5000;
    CREATE TABLE IF NOT EXISTS user_variables (
      principal  TEXT NOT NULL,
      key        TEXT NOT NULL,
      type       TEXT NOT NULL CHECK (type IN ('location', 'stop')),
      lat        REAL,
      lon        REAL,
      stop_id    TEXT,
      name       TEXT,
      address    TEXT,
      updated_ms INTEGER NOT NULL,
      PRIMARY KEY (principal, key)
    ) WITHOUT ROWID;
  )sql";
  char* error = nullptr;
  auto run = [&](const char* sql, const char* what) {
    if (sqlite3_exec(impl_->db, sql, nullptr, nullptr, &error) == SQLITE_OK)
      return;
    std::string reason = error ? error : "unknown";
    sqlite3_free(error);
    sqlite3_close(impl_->db);
    impl_->db = nullptr;
    throw std::runtime_error(std::string{"cannot "} + what
                             + " the variable store \"" + path + "\": "
                             + reason);
  };
  run(setup, "initialise");
  // Versioned schema (PRAGMA user_version). Version 1 (D17 revised):
  // without authentication every call's principal is `local`, so the
  // variables of former MCP sessions ("session:ID") become `local`'s; where
  // two sessions saved one key, the most recent wins. One transaction: a
  // crash leaves the store at version 0, migrated again at the next start.
  run(R"sql(
    BEGIN IMMEDIATE;
    CREATE TEMP TABLE IF NOT EXISTS migrate_v1 AS
      SELECT * FROM user_variables WHERE 0;
    INSERT INTO migrate_v1
      SELECT * FROM user_variables
      WHERE (SELECT user_version FROM pragma_user_version) < 1
        AND principal LIKE 'session:%';
    DELETE FROM user_variables
      WHERE (SELECT user_version FROM pragma_user_version) < 1
        AND principal LIKE 'session:%';
    INSERT INTO user_variables
      SELECT 'local', key, type, lat, lon, stop_id, name, address, updated_ms
      FROM migrate_v1 AS m
      WHERE updated_ms = (SELECT max(updated_ms) FROM migrate_v1
                          WHERE key = m.key)
      GROUP BY key
    ON CONFLICT (principal, key) DO UPDATE SET
      type = excluded.type, lat = excluded.lat, lon = excluded.lon,
      stop_id = excluded.stop_id, name = excluded.name,
      address = excluded.address, updated_ms = excluded.updated_ms
      WHERE excluded.updated_ms > user_variables.updated_ms;
    DROP TABLE migrate_v1;
    PRAGMA user_version = 1;
    COMMIT;
  )sql", "migrate");
}

int variable_database::schema_version() {
  sqlite3_stmt* statement = nullptr;
  int version = -1;
  if (sqlite3_prepare_v2(impl_->db, "PRAGMA user_version", -1, &statement,
                         nullptr)
        == SQLITE_OK
      && sqlite3_step(statement) == SQLITE_ROW)
    version = sqlite3_column_int(statement, 0);
  sqlite3_finalize(statement);
  return version;
}

variable_database::~variable_database() {
  // Closing the last connection checkpoints the WAL into the database file.
  if (impl_ && impl_->db && sqlite3_close(impl_->db) == SQLITE_OK)
    spdlog::info("variable store closed");
}

outcome<bool> variable_database::save(const std::string& principal,
                                      const user_variable& v) {
  bool existed = false;
  {
    statement find{impl_->db, "SELECT 1 FROM user_variables "
                              "WHERE principal = ?1 AND key = ?2"};
    find.bind(1, principal);
    find.bind(2, v.key);
    existed = find.step() == SQLITE_ROW;
  }
  statement upsert{impl_->db,
                   "INSERT OR REPLACE INTO user_variables "
                   "(principal, key, type, lat, lon, stop_id, name, address, "
                   "updated_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"};
  upsert.bind(1, principal);
  upsert.bind(2, v.key);
  upsert.bind(3, std::string{to_string(v.type)});
  auto is_location = v.type == variable_type::location;
  if (is_location) {
    upsert.bind(4, v.lat);
    upsert.bind(5, v.lon);
  }
  upsert.bind(6, is_location ? std::optional<std::string>{}
                             : std::optional<std::string>{v.stop_id});
  upsert.bind(7, v.name);
  upsert.bind(8, is_location ? v.address : std::nullopt);
  upsert.bind(9, v.updated_ms);
  if (upsert.step() != SQLITE_DONE)
    return storage_failure(impl_->db, "save");
  return existed;
}

outcome<std::vector<user_variable>>
variable_database::list(const std::string& principal,
                        const std::optional<std::string>& key) {
  statement select{impl_->db,
                   key ? "SELECT key, type, lat, lon, stop_id, name, address, "
                         "updated_ms FROM user_variables WHERE principal = ?1 "
                         "AND key = ?2"
                       : "SELECT key, type, lat, lon, stop_id, name, address, "
                         "updated_ms FROM user_variables WHERE principal = ?1 "
                         "ORDER BY key"};
  select.bind(1, principal);
  if (key)
    select.bind(2, *key);
  std::vector<user_variable> result;
  int rc;
  while ((rc = select.step()) == SQLITE_ROW)
    result.push_back(read_variable(select, 0));
  if (rc != SQLITE_DONE)
    return storage_failure(impl_->db, "read");
  return result;
}

outcome<std::vector<std::pair<std::string, user_variable>>>
variable_database::dump() {
  statement select{impl_->db,
                   "SELECT key, type, lat, lon, stop_id, name, address, "
                   "updated_ms, principal FROM user_variables "
                   "ORDER BY principal, key"};
  std::vector<std::pair<std::string, user_variable>> result;
  int rc;
  while ((rc = select.step()) == SQLITE_ROW)
    result.emplace_back(select.text(8), read_variable(select, 0));
  if (rc != SQLITE_DONE)
    return storage_failure(impl_->db, "read");
  return result;
}

outcome<bool> variable_database::import(const std::string& principal,
                                        const user_variable& v) {
  auto found = list(principal, v.key);
  if (!found)
    return found.error();
  if (!found->empty() && found->front().updated_ms >= v.updated_ms)
    return false;
  auto saved = save(principal, v);
  if (!saved)
    return saved.error();
  return true;
}

outcome<bool> variable_database::erase(const std::string& principal,
                                       const std::string& key) {
  statement del{impl_->db, "DELETE FROM user_variables "
                           "WHERE principal = ?1 AND key = ?2"};
  del.bind(1, principal);
  del.bind(2, key);
  if (del.step() != SQLITE_DONE)
    return storage_failure(impl_->db, "delete");
  return sqlite3_changes(impl_->db) > 0;
}

outcome<std::optional<bool>>
variable_database::save_capped(const std::string& principal,
                               const user_variable& v, std::size_t cap) {
  // BEGIN IMMEDIATE takes the write lock first: another connection's save
  // waits (busy timeout) until this one has counted and written.
  char* error = nullptr;
  if (sqlite3_exec(impl_->db, "BEGIN IMMEDIATE", nullptr, nullptr, &error)
      != SQLITE_OK) {
    sqlite3_free(error);
    return storage_failure(impl_->db, "save");
  }
  auto finish = [&](const char* sql) {
    sqlite3_exec(impl_->db, sql, nullptr, nullptr, nullptr);
  };
  auto existing = list(principal, v.key);
  if (!existing) {
    finish("ROLLBACK");
    return existing.error();
  }
  if (existing->empty()) {
    auto n = count(principal);
    if (!n) {
      finish("ROLLBACK");
      return n.error();
    }
    if (*n >= cap) {
      finish("ROLLBACK");
      return std::optional<bool>{};
    }
  }
  auto saved = save(principal, v);
  if (!saved) {
    finish("ROLLBACK");
    return saved.error();
  }
  if (sqlite3_exec(impl_->db, "COMMIT", nullptr, nullptr, nullptr)
      != SQLITE_OK) {
    finish("ROLLBACK");
    return storage_failure(impl_->db, "save");
  }
  return std::optional<bool>{*saved};
}

outcome<std::size_t> variable_database::count(const std::string& principal) {
  statement select{impl_->db, "SELECT COUNT(*) FROM user_variables "
                              "WHERE principal = ?1"};
  select.bind(1, principal);
  if (select.step() != SQLITE_ROW)
    return storage_failure(impl_->db, "count");
  return static_cast<std::size_t>(select.integer(0));
}

} // namespace transitd
