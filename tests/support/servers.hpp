#pragma once
// Real Redis and PostgreSQL servers for the tests that need them, started
// on 127.0.0.1 in a temporary directory and stopped with the test (as an
// unprivileged user: PostgreSQL refuses root). A missing server binary
// skips the test with a message saying what to install; under CI (CI=true)
// it fails instead, because .ci/run installs them.

#include <string>
#include <vector>
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

/// A server process of a test: its temporary directory (removed at the
/// end), its port on 127.0.0.1 (kept across restarts) and its pid.
class server_process {
public:
  explicit server_process(const char* what);
  ~server_process();
  server_process(const server_process&) = delete;
  server_process& operator=(const server_process&) = delete;

  /// Started and listening.
  bool running() const {
    return pid_ > 0;
  }
  int port() const {
    return port_;
  }

protected:
  /// Starts `argv` (as `uid`/`gid` when non-zero), output to DIR/LOG, and
  /// waits until the port listens; throws naming the log when it does not.
  void launch(const std::vector<std::string>& argv, const std::string& log,
              int wait_ms, uid_t uid = 0, gid_t gid = 0);
  /// Sends `signal` and waits for the process to end.
  void end(int signal);

  std::string dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

class redis_server : public server_process {
public:
  redis_server();
  ~redis_server();
  std::string url() const;
  void stop();
  void start();
};

class postgres_server : public server_process {
public:
  postgres_server();
  ~postgres_server();
  /// postgresql://postgres@127.0.0.1:PORT/postgres (trust on loopback).
  std::string url() const;
  /// A fast shutdown (connections cut), as a restart or failover does.
  void stop();
  void start();

private:
  uid_t uid_ = 0;
  gid_t gid_ = 0;
};

} // namespace transitd::test
