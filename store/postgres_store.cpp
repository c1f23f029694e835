#include "transitd/store/postgres_store.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

#include <pqxx/pqxx>
#include <spdlog/spdlog.h>

#include "transitd/messages/time.hpp"

namespace transitd {

std::string redact_postgres_url(std::string_view url) {
  // postgresql://user:secret@host/db -> postgresql://user@host/db
  auto scheme = url.find("://");
  auto at = url.rfind('@');
  if (scheme == std::string_view::npos || at == std::string_view::npos
      || at < scheme)
    return std::string{url.substr(0, url.find('?'))};
  auto user_start = scheme + 3;
  auto colon = url.find(':', user_start);
  std::string out{url.substr(0, at)};
  if (colon != std::string_view::npos && colon < at)
    out = std::string{url.substr(0, colon)};
  out += url.substr(at, url.find('?', at) - at);
  return out;
}

namespace {

/// Advisory lock key of the schema migration ("transitd" in ASCII).
constexpr int64_t schema_lock = 0x7472616e73697464;

constexpr const char* schema_v1 = R"sql(
  CREATE TABLE IF NOT EXISTS user_variables (
    principal  text NOT NULL,
    key        text NOT NULL,
    type       text NOT NULL CHECK (type IN ('location', 'stop')),
    lat        double precision,
    lon        double precision,
    stop_id    text,
    name       text,
    address    text,
    updated_ms bigint NOT NULL,
    PRIMARY KEY (principal, key)
  )
)sql";

constexpr const char* columns
  = "key, type, lat, lon, stop_id, name, address, updated_ms";

/// Text parameters: a null pointer is SQL NULL (libpqxx 6).
const char* param(const std::optional<std::string>& value) {
  return value ? value->c_str() : nullptr;
}

std::string real(double value) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", value);
  return buf;
}

user_variable read_row(const pqxx::row& row) {
  user_variable v;
  v.key = row[0].as<std::string>();
  v.type = parse_variable_type(row[1].as<std::string>())
             .value_or(variable_type::location);
  v.lat = row[2].is_null() ? 0.0 : row[2].as<double>();
  v.lon = row[3].is_null() ? 0.0 : row[3].as<double>();
  v.stop_id = row[4].is_null() ? std::string{} : row[4].as<std::string>();
  if (!row[5].is_null())
    v.name = row[5].as<std::string>();
  if (!row[6].is_null())
    v.address = row[6].as<std::string>();
  v.updated_ms = row[7].as<int64_t>();
  return v;
}

/// Whether an error may pass if the call is tried again on a new
/// connection: a lost connection, a server shutting down or starting, a
/// serialization failure.
bool transient(const pqxx::sql_error& e) {
  const auto& state = e.sqlstate();
  return state.rfind("08", 0) == 0 || state == "57P01" || state == "57P02"
         || state == "57P03" || state == "40001" || state == "40P01";
}

class postgres_store : public variable_backend {
public:
  postgres_store(std::string url, int32_t retry_ms)
    : url_(std::move(url)), shown_(redact_postgres_url(url_)),
      retry_ms_(retry_ms) {
    deadline_ms_ = now_ms() + retry_ms_;
    auto migrated = attempt("open", [&](pqxx::connection& c) {
      pqxx::work txn{c};
      // Replicas starting together: one migrates, the others wait.
      txn.exec("SELECT pg_advisory_xact_lock(" + std::to_string(schema_lock)
               + ")");
      txn.exec("CREATE TABLE IF NOT EXISTS transitd_schema "
               "(version integer NOT NULL)");
      auto rows = txn.exec("SELECT max(version) FROM transitd_schema");
      int version = rows[0][0].is_null() ? 0 : rows[0][0].as<int>();
      if (version > postgres_schema_version)
        throw std::runtime_error(
          "the store at " + shown_ + " has schema version "
          + std::to_string(version) + ", newer than this transitd knows ("
          + std::to_string(postgres_schema_version)
          + "); run a newer transitd");
      if (version < 1) {
        txn.exec(schema_v1);
        txn.exec("DELETE FROM transitd_schema");
        txn.exec("INSERT INTO transitd_schema VALUES (1)");
      }
      txn.commit();
      return version < 1;
    });
    if (!migrated)
      throw std::runtime_error("cannot open the variable store "
                               + shown_ + ": " + migrated.error().message);
    if (*migrated)
      spdlog::info("variable store {}: schema created (version {})", shown_,
                   postgres_schema_version);
  }

  void deadline(int64_t deadline_ms) override {
    deadline_ms_ = deadline_ms > 0 ? deadline_ms : now_ms() + retry_ms_;
  }

  outcome<bool> save(const std::string& principal,
                     const user_variable& v) override {
    return attempt("save", [&](pqxx::connection& c) {
      pqxx::work txn{c};
      auto rows = write(txn, "save", principal, v);
      txn.commit();
      // xmax is 0 for a row this statement inserted.
      return !rows.empty() && !rows[0][0].as<bool>();
    });
  }

  outcome<std::vector<user_variable>>
  list(const std::string& principal,
       const std::optional<std::string>& key) override {
    return attempt("read", [&](pqxx::connection& c) {
      pqxx::read_transaction txn{c};
      auto rows = key ? txn.exec_prepared("get", principal, *key)
                      : txn.exec_prepared("list", principal);
      std::vector<user_variable> out;
      for (const auto& row : rows)
        out.push_back(read_row(row));
      return out;
    });
  }

  outcome<bool> erase(const std::string& principal,
                      const std::string& key) override {
    return attempt("delete", [&](pqxx::connection& c) {
      pqxx::work txn{c};
      auto result = txn.exec_prepared("erase", principal, key);
      txn.commit();
      return result.affected_rows() > 0;
    });
  }

  outcome<std::optional<bool>> save_capped(const std::string& principal,
                                           const user_variable& v,
                                           std::size_t cap) override {
    return attempt("save", [&](pqxx::connection& c) -> std::optional<bool> {
      pqxx::work txn{c};
      // One principal's saves take turns, whichever replica runs them:
      // the count cannot change between the check and the insert.
      txn.exec_prepared("lock_principal", principal);
      auto census = txn.exec_prepared("census", principal, v.key);
      auto held = census[0][0].as<int64_t>();
      auto exists = census[0][1].as<bool>();
      if (!exists && static_cast<std::size_t>(held) >= cap) {
        txn.abort();
        return std::nullopt;
      }
      auto rows = write(txn, "save", principal, v);
      txn.commit();
      return !rows.empty() && !rows[0][0].as<bool>();
    });
  }

  outcome<std::size_t> count(const std::string& principal) override {
    return attempt("count", [&](pqxx::connection& c) {
      pqxx::read_transaction txn{c};
      auto rows = txn.exec_prepared("count", principal);
      return static_cast<std::size_t>(rows[0][0].as<int64_t>());
    });
  }

  outcome<std::vector<std::pair<std::string, user_variable>>>
  dump() override {
    return attempt("read", [&](pqxx::connection& c) {
      pqxx::read_transaction txn{c};
      auto rows = txn.exec(std::string{"SELECT "} + columns
                           + ", principal FROM user_variables "
                             "ORDER BY principal, key");
      std::vector<std::pair<std::string, user_variable>> out;
      for (const auto& row : rows)
        out.emplace_back(row[8].as<std::string>(), read_row(row));
      return out;
    });
  }

  outcome<bool> import(const std::string& principal,
                       const user_variable& v) override {
    return attempt("import", [&](pqxx::connection& c) {
      pqxx::work txn{c};
      auto rows = write(txn, "import", principal, v);
      txn.commit();
      return !rows.empty();
    });
  }

  int schema_version() override {
    auto version = attempt("read", [&](pqxx::connection& c) {
      pqxx::read_transaction txn{c};
      auto rows = txn.exec("SELECT max(version) FROM transitd_schema");
      return rows[0][0].is_null() ? 0 : rows[0][0].as<int>();
    });
    return version ? *version : -1;
  }

private:
  pqxx::result write(pqxx::work& txn, const char* statement,
                     const std::string& principal, const user_variable& v) {
    bool location = v.type == variable_type::location;
    std::optional<std::string> lat, lon, stop_id, address;
    if (location) {
      lat = real(v.lat);
      lon = real(v.lon);
      address = v.address;
    } else {
      stop_id = v.stop_id;
    }
    return txn.exec_prepared(statement, principal, v.key,
                             std::string{to_string(v.type)}, param(lat),
                             param(lon), param(stop_id), param(v.name),
                             param(address), v.updated_ms);
  }

  /// The connection, made (and its statements prepared) when needed.
  pqxx::connection& connection() {
    if (!conn_) {
      auto c = std::make_unique<pqxx::connection>(url_);
      std::string upsert
        = std::string{"INSERT INTO user_variables (principal, "} + columns
          + ") VALUES ($1, $2, $3, $4::double precision, "
            "$5::double precision, $6, $7, $8, $9) "
            "ON CONFLICT (principal, key) DO UPDATE SET type = excluded.type, "
            "lat = excluded.lat, lon = excluded.lon, "
            "stop_id = excluded.stop_id, name = excluded.name, "
            "address = excluded.address, updated_ms = excluded.updated_ms";
      c->prepare("save", upsert + " RETURNING (xmax = 0)");
      c->prepare("import", upsert
                             + " WHERE excluded.updated_ms > "
                               "user_variables.updated_ms RETURNING 1");
      c->prepare("get", std::string{"SELECT "} + columns
                          + " FROM user_variables WHERE principal = $1 "
                            "AND key = $2");
      c->prepare("list", std::string{"SELECT "} + columns
                           + " FROM user_variables WHERE principal = $1 "
                             "ORDER BY key");
      c->prepare("erase", "DELETE FROM user_variables WHERE principal = $1 "
                          "AND key = $2");
      c->prepare("count", "SELECT count(*) FROM user_variables "
                          "WHERE principal = $1");
      c->prepare("lock_principal",
                 "SELECT pg_advisory_xact_lock(hashtextextended($1, 7001))");
      c->prepare("census", "SELECT count(*), coalesce(bool_or(key = $2), "
                           "false) FROM user_variables WHERE principal = $1");
      conn_ = std::move(c);
    }
    return *conn_;
  }

  /// Runs `work` on the connection; a transient failure drops the
  /// connection and tries again (100 ms, doubling to 1 s apart) until the
  /// deadline. The thread is the store actor's own (detached).
  template <class Work>
  auto attempt(const char* what, Work work)
    -> outcome<decltype(work(std::declval<pqxx::connection&>()))> {
    int32_t pause_ms = 100;
    for (int tries = 1;; ++tries) {
      std::string why;
      try {
        return work(connection());
      } catch (const pqxx::broken_connection& e) {
        why = e.what();
      } catch (const pqxx::in_doubt_error& e) {
        // The commit's fate is unknown: every write here is idempotent
        // (an upsert of the same values, a delete), so it is sent again.
        why = e.what();
      } catch (const pqxx::sql_error& e) {
        if (!transient(e))
          return make_failure(ec::internal_error,
                              std::string{"variable store: "} + what
                                + " failed (" + e.sqlstate() + ")");
        why = e.what();
      } catch (const std::runtime_error& e) {
        // Our own refusals (a newer schema) end here too.
        if (dynamic_cast<const pqxx::failure*>(&e) == nullptr)
          return make_failure(ec::internal_error, e.what());
        why = e.what();
      } catch (const std::exception& e) {
        return make_failure(ec::internal_error,
                            std::string{"variable store: "} + what
                              + " failed (" + e.what() + ")");
      }
      conn_.reset();
      // libpq's messages span lines: one line for logs and callers.
      for (auto& c : why)
        if (c == '\n' || c == '\t')
          c = ' ';
      while (!why.empty() && why.back() == ' ')
        why.pop_back();
      auto left = deadline_ms_ - now_ms();
      if (left < pause_ms) {
        spdlog::warn("variable store {}: {} failed after {} tries: {}",
                     shown_, what, tries, why);
        return make_failure(ec::internal_error,
                            std::string{"variable store unreachable: "} + what
                              + " failed (" + why + ")",
                            "retry in a few seconds");
      }
      if (tries == 1)
        spdlog::warn("variable store {}: {} lost its connection ({}); "
                     "retrying",
                     shown_, what, why);
      std::this_thread::sleep_for(std::chrono::milliseconds{pause_ms});
      pause_ms = std::min(1000, pause_ms * 2);
    }
  }

  std::string url_;
  std::string shown_;
  int32_t retry_ms_;
  int64_t deadline_ms_ = 0;
  std::unique_ptr<pqxx::connection> conn_;
};

} // namespace

std::unique_ptr<variable_backend> open_postgres_store(const std::string& url,
                                                      int32_t retry_ms) {
  return std::make_unique<postgres_store>(url, retry_ms);
}

} // namespace transitd
