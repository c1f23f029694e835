#pragma once
// `transitd migrate-store --from sqlite:PATH --to postgresql://...`: copies
// every saved variable of every principal from one store to another,
// keeping each variable's updated_ms; where the target already has a
// variable under the same principal and key, the newer one wins, so the
// copy can run again (or while replicas write) without losing anything.

#include <cstddef>
#include <string>
#include <vector>

#include "transitd/messages/error.hpp"

namespace transitd {

struct migration_report {
  std::size_t read = 0;
  std::size_t written = 0;
  /// Variables the target already had in a newer version.
  std::size_t kept = 0;
};

/// A store named on the command line: "sqlite:PATH" (or a bare path) or a
/// postgresql:// URL, as open_variable_backend takes it.
outcome<std::string> store_location(const std::string& argument);

/// Copies `from` into `to`; a failure names the store and what failed.
outcome<migration_report> migrate_store(const std::string& from,
                                        const std::string& to);

/// The subcommand: parses its arguments, runs, prints the report (or the
/// problem) and returns the exit status.
int migrate_store_command(const std::vector<std::string>& args);

} // namespace transitd
