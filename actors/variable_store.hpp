#pragma once
// VARIABLE_STORE: saved user variables in an embedded SQLite database.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include <caf/fwd.hpp>

#include "messages/interfaces.hpp"
#include "messages/error.hpp"
#include "messages/variables.hpp"

namespace transitd {

struct variable_store_options {
  /// SQLite file path, or ":memory:" (tests).
  std::string path = ":memory:";
  /// Variables one principal may keep.
  std::size_t max_per_principal = 1000;
};

/// Checks a variable before it is stored; nullopt when valid. Trims nothing:
/// the key is taken as given (but must not be blank).
std::optional<failure> validate(const user_variable& variable);

/// The SQLite database behind the store (one connection, not thread-safe:
/// owned by the store actor). Exposed for tests and tools.
class variable_database {
public:
  /// Opens (creating) the database; throws std::runtime_error naming the
  /// path when it cannot.
  explicit variable_database(const std::string& path);
  ~variable_database();

  variable_database(const variable_database&) = delete;
  variable_database& operator=(const variable_database&) = delete;

  /// Inserts or replaces; returns whether a variable was replaced.
  outcome<bool> save(const std::string& principal,
                     const user_variable& variable);
  outcome<std::vector<user_variable>>
  list(const std::string& principal,
       const std::optional<std::string>& key);
  outcome<bool> erase(const std::string& principal, const std::string& key);
  outcome<std::size_t> count(const std::string& principal);
  /// The schema version (PRAGMA user_version) the store is at: 1.
  int schema_version();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// Spawns the store detached (SQLite I/O blocks); fails (throws) when the
/// database cannot be opened.
variable_store_actor spawn_variable_store(caf::actor_system& system,
                                          const variable_store_options& opts);

} // namespace transitd
