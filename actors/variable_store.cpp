#include "transitd/actors/variable_store.hpp"

#include <cmath>
#include <stdexcept>

#include <caf/actor_system.hpp>
#include <caf/exit_reason.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "transitd/messages/time.hpp"
#include "transitd/store/postgres_store.hpp"
#include "transitd/store/sqlite_store.hpp"

namespace transitd {

// -- the actor --------------------------------------------------------------------

namespace {

struct variable_store_state {
  static inline const char* name = "variable_store";
  std::shared_ptr<variable_backend> db;
  variable_store_options options;
};

std::optional<failure> check_principal(const call_context& context) {
  if (context.principal.empty())
    return make_failure(ec::internal_error,
                        "variable store call without a principal");
  return std::nullopt;
}

variable_store_actor::behavior_type variable_store(
  variable_store_actor::stateful_pointer<variable_store_state> self,
  std::shared_ptr<variable_backend> db, variable_store_options options) {
  // The database was opened by the spawner, so that a bad path fails at
  // start-up rather than at the first call.
  self->state.db = std::move(db);
  self->state.options = std::move(options);
  return {
    [self](save_variable_request& request)
      -> caf::result<save_variable_reply> {
      if (auto bad = check_principal(request.context))
        return to_error(*bad);
      if (auto bad = validate(request.variable))
        return to_error(*bad);
      auto& db = *self->state.db;
      db.deadline(request.context.deadline_ms);
      const auto& principal = request.context.principal;
      request.variable.updated_ms = now_ms();
      auto max = self->state.options.max_per_principal;
      auto saved = db.save_capped(principal, request.variable, max);
      if (!saved)
        return to_error(saved.error());
      if (!*saved)
        return make_error(ec::validation_error,
                          "too many saved variables (at most "
                            + std::to_string(max) + "); delete some first");
      auto replaced = **saved;
      spdlog::info("[{}] saved variable ({})", request.context.correlation_id,
                   replaced ? "replaced" : "new");
      return save_variable_reply{std::move(request.variable), replaced,
                                 request.context.correlation_id};
    },
    [self](get_variables_request& request)
      -> caf::result<get_variables_reply> {
      if (auto bad = check_principal(request.context))
        return to_error(*bad);
      self->state.db->deadline(request.context.deadline_ms);
      auto found = self->state.db->list(request.context.principal,
                                        request.key);
      if (!found)
        return to_error(found.error());
      return get_variables_reply{std::move(*found),
                                 request.context.correlation_id};
    },
    [self](delete_variable_request& request)
      -> caf::result<delete_variable_reply> {
      if (auto bad = check_principal(request.context))
        return to_error(*bad);
      self->state.db->deadline(request.context.deadline_ms);
      auto deleted = self->state.db->erase(request.context.principal,
                                           request.key);
      if (!deleted)
        return to_error(deleted.error());
      return delete_variable_reply{request.key, *deleted,
                                   request.context.correlation_id};
    },
    [self](resolve_label& request) -> caf::result<user_variable> {
      if (auto bad = check_principal(request.context))
        return to_error(*bad);
      self->state.db->deadline(request.context.deadline_ms);
      auto found = self->state.db->list(request.context.principal,
                                        request.key);
      if (!found)
        return to_error(found.error());
      if (found->empty())
        return make_error(ec::validation_error,
                          "unknown label \"" + request.key
                            + "\": no saved variable has that key",
                          "save it first (the tool that saves a variable)");
      return std::move(found->front());
    },
  };
}

/// Hands each call to the next worker (each owns a connection).
variable_store_actor::behavior_type variable_store_pool(
  variable_store_actor::pointer self,
  std::vector<variable_store_actor> workers) {
  auto next = std::make_shared<std::size_t>(0);
  auto pick = [workers, next]() {
    return workers[(*next)++ % workers.size()];
  };
  self->attach_functor([workers](const caf::error&) {
    for (const auto& w : workers)
      caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
  });
  return {
    [self, pick](save_variable_request& r) {
      return self->delegate(pick(), std::move(r));
    },
    [self, pick](get_variables_request& r) {
      return self->delegate(pick(), std::move(r));
    },
    [self, pick](delete_variable_request& r) {
      return self->delegate(pick(), std::move(r));
    },
    [self, pick](resolve_label& r) {
      return self->delegate(pick(), std::move(r));
    },
  };
}

} // namespace

variable_store_actor spawn_variable_store(caf::actor_system& system,
                                          const variable_store_options& opts) {
  if (!is_postgres_url(opts.path)) {
    std::shared_ptr<variable_backend> db
      = std::make_shared<variable_database>(opts.path);
    return system.spawn<caf::detached>(variable_store, db, opts);
  }
  std::vector<variable_store_actor> workers;
  for (std::size_t i = 0; i < std::max<std::size_t>(1, opts.connections);
       ++i) {
    std::shared_ptr<variable_backend> db = open_postgres_store(opts.path,
                                                               opts.retry_ms);
    workers.push_back(system.spawn<caf::detached>(variable_store, db, opts));
  }
  return system.spawn(variable_store_pool, std::move(workers));
}

} // namespace transitd
