#pragma once
// VARIABLE_STORE: saved user variables in an embedded SQLite database.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <caf/fwd.hpp>

#include "messages/interfaces.hpp"
#include "messages/error.hpp"
#include "messages/variables.hpp"
#include "providers/variable_backend.hpp"

namespace transitd {

struct variable_store_options {
  /// SQLite file path, ":memory:" (tests), or a PostgreSQL URL
  /// ("postgresql://..." or "postgres://...").
  std::string path = ":memory:";
  /// Variables one principal may keep.
  std::size_t max_per_principal = 1000;
  /// PostgreSQL: connections, one detached actor each.
  std::size_t connections = 4;
  /// PostgreSQL: how long a call retries a lost connection when it comes
  /// without a deadline.
  int32_t retry_ms = 5000;
};

/// Opens the backend `path` names (SQLite file or PostgreSQL URL); throws
/// std::runtime_error naming the store (never a password) when it cannot.
std::unique_ptr<variable_backend> open_variable_backend(const std::string& path);

/// Checks a variable before it is stored; nullopt when valid. Trims nothing:
/// the key is taken as given (but must not be blank).
std::optional<failure> validate(const user_variable& variable);

/// The SQLite database behind the store (one connection, not thread-safe:
/// owned by the store actor). Exposed for tests and tools.
class variable_database : public variable_backend {
public:
  /// Opens (creating) the database; throws std::runtime_error naming the
  /// path when it cannot.
  explicit variable_database(const std::string& path);
  ~variable_database() override;

  variable_database(const variable_database&) = delete;
  variable_database& operator=(const variable_database&) = delete;

  outcome<bool> save(const std::string& principal,
                     const user_variable& variable) override;
  outcome<std::vector<user_variable>>
  list(const std::string& principal,
       const std::optional<std::string>& key) override;
  outcome<bool> erase(const std::string& principal,
                      const std::string& key) override;
  outcome<std::size_t> count(const std::string& principal) override;
  outcome<std::vector<std::pair<std::string, user_variable>>>
  dump() override;
  outcome<bool> import(const std::string& principal,
                       const user_variable& variable) override;
  /// The schema version (PRAGMA user_version) the store is at: 1.
  int schema_version() override;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// Spawns the store detached (database I/O blocks): one actor on SQLite, or
/// `connections` actors on PostgreSQL behind one that hands calls round
/// robin. Fails (throws) when the database cannot be opened.
variable_store_actor spawn_variable_store(caf::actor_system& system,
                                          const variable_store_options& opts);

} // namespace transitd
