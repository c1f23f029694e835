#pragma once
// Saved variables in an embedded SQLite database: the store's default.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "transitd/store/variable_backend.hpp"

namespace transitd {

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
  outcome<std::optional<bool>> save_capped(const std::string& principal,
                                           const user_variable& variable,
                                           std::size_t cap) override;
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

} // namespace transitd
