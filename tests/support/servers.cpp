#include "support/servers.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

namespace fs = std::filesystem;

namespace transitd::test {

namespace {

std::string make_temp_dir(const char* what) {
  std::string pattern = (fs::temp_directory_path() / "transitd-").string()
                        + what + "-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr)
    throw std::runtime_error("cannot create a temporary directory");
  return buf.data();
}

/// Starts `argv` (as `uid`/`gid` when non-zero), output to `log`.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log,
            uid_t uid = 0, gid_t gid = 0) {
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  auto pid = fork();
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    if (gid != 0 && setgid(gid) != 0)
      _exit(126);
    if (uid != 0 && setuid(uid) != 0)
      _exit(126);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

int run(const std::vector<std::string>& argv, const std::string& log,
        uid_t uid = 0, gid_t gid = 0) {
  auto pid = spawn(argv, log, uid, gid);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0)
    return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}


} // namespace

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0
      || getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    if (fd >= 0)
      close(fd);
    throw std::runtime_error("no free port on 127.0.0.1");
  }
  close(fd);
  return ntohs(addr.sin_port);
}

std::string find_server_binary(const std::string& name) {
  std::vector<fs::path> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::string all = path;
    std::size_t start = 0;
    while (start <= all.size()) {
      auto colon = all.find(':', start);
      dirs.emplace_back(all.substr(start, colon - start));
      if (colon == std::string::npos)
        break;
      start = colon + 1;
    }
  }
  dirs.emplace_back("/usr/sbin");
  // Debian keeps PostgreSQL's server programs per major version.
  std::error_code ec;
  std::vector<fs::path> versions;
  for (const auto& entry : fs::directory_iterator{"/usr/lib/postgresql", ec})
    versions.push_back(entry.path() / "bin");
  std::sort(versions.rbegin(), versions.rend());
  dirs.insert(dirs.end(), versions.begin(), versions.end());
  for (const auto& dir : dirs) {
    auto candidate = dir / name;
    if (access(candidate.c_str(), X_OK) == 0)
      return candidate.string();
  }
  return {};
}

bool server_available(const std::string& binary, const char* package) {
  if (!find_server_binary(binary).empty())
    return true;
  const char* ci = std::getenv("CI");
  if (ci != nullptr && std::string{ci} == "true")
    FAIL(binary << " is not installed, and CI must run this test: "
                   "scripts/install-deps.sh installs "
                << package);
  WARN("skipped: " << binary << " is not installed (Debian package "
                   << package << "; bash scripts/install-deps.sh)");
  return false;
}

bool wait_for_port(int port, int ms) {
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds{ms};
  while (std::chrono::steady_clock::now() < until) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    bool up = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr)
              == 0;
    close(fd);
    if (up)
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  return false;
}

server_process::server_process(const char* what)
  : dir_(make_temp_dir(what)) {
}

server_process::~server_process() {
  end(SIGKILL);
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

void server_process::launch(const std::vector<std::string>& argv,
                            const std::string& log, int wait_ms, uid_t uid,
                            gid_t gid) {
  if (pid_ > 0)
    return;
  pid_ = spawn(argv, dir_ + "/" + log, uid, gid);
  if (!wait_for_port(port_, wait_ms)) {
    end(SIGKILL);
    throw std::runtime_error(argv.front() + " did not start; see " + dir_
                             + "/" + log);
  }
}

void server_process::end(int signal) {
  if (pid_ <= 0)
    return;
  kill(pid_, signal);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

// -- Redis ------------------------------------------------------------------------

redis_server::redis_server() : server_process("redis") {
  port_ = free_port();
  start();
}

redis_server::~redis_server() {
  stop();
}

std::string redis_server::url() const {
  return "redis://127.0.0.1:" + std::to_string(port_);
}

void redis_server::start() {
  launch({find_server_binary("redis-server"), "--port", std::to_string(port_),
          "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir",
          dir_},
         "redis.log", 10000);
}

void redis_server::stop() {
  end(SIGTERM);
}

// -- PostgreSQL ---------------------------------------------------------------------

postgres_server::postgres_server() : server_process("postgres") {
  // initdb and postgres refuse root: run them as PostgreSQL's own user
  // (Debian's package makes one), or nobody.
  if (geteuid() == 0) {
    const passwd* user = getpwnam("postgres");
    if (user == nullptr)
      user = getpwnam("nobody");
    if (user == nullptr)
      throw std::runtime_error("no unprivileged user to run PostgreSQL as");
    uid_ = user->pw_uid;
    gid_ = user->pw_gid;
    if (chown(dir_.c_str(), uid_, gid_) != 0)
      throw std::runtime_error("cannot hand " + dir_ + " to PostgreSQL's user");
  }
  auto status = run({find_server_binary("initdb"), "-D", dir_ + "/data", "-A",
                     "trust", "-U", "postgres", "-E", "UTF8", "--locale=C",
                     "--no-sync"},
                    dir_ + "/initdb.log", uid_, gid_);
  if (status != 0)
    throw std::runtime_error("initdb failed; see " + dir_ + "/initdb.log");
  port_ = free_port();
  start();
}

postgres_server::~postgres_server() {
  stop();
}

std::string postgres_server::url() const {
  return "postgresql://postgres@127.0.0.1:" + std::to_string(port_)
         + "/postgres";
}

void postgres_server::start() {
  launch({find_server_binary("postgres"), "-D", dir_ + "/data", "-p",
          std::to_string(port_), "-k", dir_, "-c",
          "listen_addresses=127.0.0.1"},
         "postgres.log", 20000, uid_, gid_);
}

void postgres_server::stop() {
  // SIGINT: PostgreSQL's fast shutdown (every connection cut).
  end(SIGINT);
}

} // namespace transitd::test
