#pragma once
// Saved variables in PostgreSQL through libpqxx (--store postgresql://...):
// one connection per instance, prepared statements, the schema created and
// migrated at start (versioned, under an advisory lock so that replicas
// starting together do it once), every write committed before it returns,
// and a lost connection (a restarted server, a failover) retried until the
// call's deadline.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "transitd/store/variable_backend.hpp"

namespace transitd {

/// The schema version this build writes and reads.
inline constexpr int postgres_schema_version = 1;

/// Opens a connection and brings the schema to the current version; throws
/// std::runtime_error naming the server (never the password) when it
/// cannot, or when the schema is newer than this build knows.
std::unique_ptr<variable_backend> open_postgres_store(const std::string& url,
                                                      int32_t retry_ms = 5000);

/// The URL as logs and errors may show it: without the password.
std::string redact_postgres_url(std::string_view url);

} // namespace transitd
