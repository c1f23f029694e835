// Waiting for the stop signal, with the reminder (--insecure's hourly
// warning) while it waits.

#include "transitd/transport/signals.hpp"

#include <chrono>

#include <pthread.h>

#include <catch2/catch.hpp>

using namespace transitd;

namespace {

/// Blocks SIGUSR1 in this thread for the scope's lifetime; the signal is
/// sent to this thread only (pthread_kill), never to the process.
struct blocked_usr1 {
  sigset_t set{};
  sigset_t previous{};
  blocked_usr1() {
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &set, &previous);
  }
  ~blocked_usr1() {
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  }
};

} // namespace

TEST_CASE("the reminder repeats every interval until the signal comes",
          "[signals][security]") {
  blocked_usr1 usr1;
  int reminders = 0;
  auto received = wait_for_signal(usr1.set, std::chrono::milliseconds{1}, [&] {
    // The third reminder raises the signal the wait returns on.
    if (++reminders == 3)
      pthread_kill(pthread_self(), SIGUSR1);
  });
  CHECK(received == SIGUSR1);
  CHECK(reminders == 3);
}

TEST_CASE("without a reminder the wait just returns the signal",
          "[signals]") {
  blocked_usr1 usr1;
  pthread_kill(pthread_self(), SIGUSR1);
  CHECK(wait_for_signal(usr1.set, std::chrono::hours{1}, {}) == SIGUSR1);
}
