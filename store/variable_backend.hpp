#pragma once
// What VARIABLE_STORE keeps saved variables in: the embedded SQLite database
// (store/sqlite_store.hpp) or PostgreSQL (store/postgres_store.hpp), and
// the rules every backend keeps.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "transitd/messages/error.hpp"
#include "transitd/messages/variables.hpp"

namespace transitd {

/// Whether `path` names a PostgreSQL store.
bool is_postgres_url(const std::string& path);

/// What the store keeps variables in: the embedded SQLite database or
/// PostgreSQL (store/postgres_store.hpp). One instance per connection,
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
  /// Saves like save(), unless the key is new and the principal holds
  /// `cap` variables already: then nothing is written and the answer is
  /// nullopt. The check and the write are one transaction, so concurrent
  /// saves (other connections, other replicas) never pass the cap.
  virtual outcome<std::optional<bool>>
  save_capped(const std::string& principal, const user_variable& variable,
              std::size_t cap) = 0;
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

/// Opens the backend `path` names (SQLite file or PostgreSQL URL); throws
/// std::runtime_error naming the store (never a password) when it cannot.
std::unique_ptr<variable_backend> open_variable_backend(const std::string& path);

/// Checks a variable before it is stored; nullopt when valid. Trims nothing:
/// the key is taken as given (but must not be blank).
std::optional<failure> validate(const user_variable& variable);

} // namespace transitd
