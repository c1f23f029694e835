#pragma once
// What VARIABLE_STORE keeps saved variables in: the embedded SQLite database
// (actors/variable_store.hpp) or PostgreSQL (providers/postgres_store.hpp).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "messages/error.hpp"
#include "messages/variables.hpp"

namespace transitd {

/// Whether `path` names a PostgreSQL store.
bool is_postgres_url(const std::string& path);

/// What the store keeps variables in: the embedded SQLite database or
/// PostgreSQL (providers/postgres_store.hpp). One instance per connection,
/// used by one actor at a time.
class variable_backend {
public:
  virtual ~variable_backend() = default;
  /// The deadline (wall-clock ms, 0 = none) of the call about to run:
  /// transient failures are retried until then.
  virtual void deadline(int64_t deadline_ms) {
    static_cast<void>(deadline_ms);
  }
  /// Inserts or replaces; returns whether a variable was replaced.
  virtual outcome<bool> save(const std::string& principal,
                             const user_variable& variable) = 0;
  virtual outcome<std::vector<user_variable>>
  list(const std::string& principal, const std::optional<std::string>& key)
    = 0;
  virtual outcome<bool> erase(const std::string& principal,
                              const std::string& key) = 0;
  virtual outcome<std::size_t> count(const std::string& principal) = 0;
  /// Every principal's variables, by principal and key (migrate-store).
  virtual outcome<std::vector<std::pair<std::string, user_variable>>>
  dump() = 0;
  /// Stores a variable keeping its updated_ms; an existing one that is
  /// newer wins. Returns whether it was written (migrate-store).
  virtual outcome<bool> import(const std::string& principal,
                               const user_variable& variable) = 0;
  /// The schema version the store is at.
  virtual int schema_version() = 0;
};

} // namespace transitd
