#pragma once
// VARIABLE_STORE: saved user variables, in SQLite or PostgreSQL (store/).

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <caf/fwd.hpp>

#include "transitd/messages/interfaces.hpp"
#include "transitd/messages/error.hpp"
#include "transitd/messages/variables.hpp"
#include "transitd/store/variable_backend.hpp"

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

/// Spawns the store detached (database I/O blocks): one actor on SQLite, or
/// `connections` actors on PostgreSQL behind one that hands calls round
/// robin. Fails (throws) when the database cannot be opened.
variable_store_actor spawn_variable_store(caf::actor_system& system,
                                          const variable_store_options& opts);

} // namespace transitd
