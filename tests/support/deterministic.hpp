#pragma once
// A CAF actor system on the deterministic test scheduler: messages run only
// when the test says so, and time advances only when the test says so
// (a 10-minute timeout fires at once).

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <caf/scoped_actor.hpp>

#include "transitd/messages/caf_glue.hpp"

namespace transitd::test {

struct deterministic_fixture {
  static caf::actor_system_config& configure(caf::actor_system_config& cfg) {
    cfg.set("scheduler.policy", caf::atom("testing"));
    cfg.set("logger.inline-output", true);
    add_message_types(cfg);
    return cfg;
  }

  deterministic_fixture()
    : sys(configure(cfg)),
      self(sys, true),
      sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())) {
  }

  ~deterministic_fixture() {
    // CAF 0.17 keeps a request's timeout pending after its reply, and the
    // pending timeout keeps the requester alive: fire them all so that the
    // actor system's destructor does not wait forever.
    sched.run();
    while (sched.trigger_timeouts() > 0)
      sched.run();
  }

  caf::actor_system_config cfg;
  caf::actor_system sys;
  caf::scoped_actor self;
  caf::scheduler::test_coordinator& sched;
};

} // namespace transitd::test
