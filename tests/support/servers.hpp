#pragma once
// Real Redis and PostgreSQL servers for the tests that need them, started
// on 127.0.0.1 in a temporary directory and stopped with the test (as an
// unprivileged user: PostgreSQL refuses root). A missing server binary
// skips the test with a message saying what to install; under CI (CI=true)
// it fails instead, because .ci/run installs them.

#include <string>
#include <sys/types.h>

namespace transitd::test {

/// A TCP port on 127.0.0.1 that was free a moment ago.
int free_port();

/// The path of a server binary (PATH, then PostgreSQL's versioned
/// directories), or "" when it is not installed.
std::string find_server_binary(const std::string& name);

/// Whether a test may run with `binary`; otherwise it says why (WARN) and
/// the caller returns. Under CI, a missing binary fails the test.
bool server_available(const std::string& binary, const char* package);

/// Waits until 127.0.0.1:`port` accepts connections (at most `ms`).
bool wait_for_port(int port, int ms);

class redis_server {
public:
  redis_server();
  ~redis_server();
  redis_server(const redis_server&) = delete;
  redis_server& operator=(const redis_server&) = delete;

  /// Started and answering.
  bool running() const {
    return pid_ > 0;
  }
  std::string url() const;
  int port() const {
    return port_;
  }
  void stop();
  void start();

private:
  std::string dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

class postgres_server {
public:
  postgres_server();
  ~postgres_server();
  postgres_server(const postgres_server&) = delete;
  postgres_server& operator=(const postgres_server&) = delete;

  bool running() const {
    return pid_ > 0;
  }
  /// postgresql://postgres@127.0.0.1:PORT/postgres (trust on loopback).
  std::string url() const;
  /// A fast shutdown (connections cut), as a restart or failover does.
  void stop();
  void start();

private:
  std::string dir_;
  int port_ = 0;
  pid_t pid_ = -1;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
};

} // namespace transitd::test
