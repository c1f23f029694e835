#include "transitd/transport/migrate_store.hpp"

#include <iostream>
#include <stdexcept>

#include "transitd/actors/variable_store.hpp"
#include "transitd/store/postgres_store.hpp"

namespace transitd {

outcome<std::string> store_location(const std::string& argument) {
  if (is_postgres_url(argument))
    return argument;
  std::string path = argument;
  if (path.rfind("sqlite:", 0) == 0)
    path = path.substr(7);
  if (path.empty() || path.find("://") != std::string::npos)
    return make_failure(ec::validation_error,
                        "unknown store \"" + redact_postgres_url(argument)
                          + "\"",
                        "give sqlite:PATH or postgresql://user@host/db");
  return path;
}

outcome<migration_report> migrate_store(const std::string& from,
                                        const std::string& to) {
  std::unique_ptr<variable_backend> source;
  std::unique_ptr<variable_backend> target;
  try {
    source = open_variable_backend(from);
    target = open_variable_backend(to);
  } catch (const std::exception& e) {
    return make_failure(ec::internal_error, e.what());
  }
  auto all = source->dump();
  if (!all)
    return all.error();
  migration_report report;
  for (const auto& [principal, variable] : *all) {
    ++report.read;
    auto written = target->import(principal, variable);
    if (!written)
      return written.error();
    if (*written)
      ++report.written;
    else
      ++report.kept;
  }
  return report;
}

int migrate_store_command(const std::vector<std::string>& args) {
  const char* usage
    = "usage: transitd migrate-store --from sqlite:PATH --to "
      "postgresql://user@host/db\n"
      "Copies every saved variable; where the target has a newer one, it "
      "stays.\n";
  std::string from;
  std::string to;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << usage;
      return 0;
    }
    auto value = [&](std::string& field) {
      if (i + 1 >= args.size())
        return false;
      field = args[++i];
      return true;
    };
    bool ok = (a == "--from" && value(from)) || (a == "--to" && value(to));
    if (!ok) {
      std::cerr << "transitd migrate-store: unexpected \"" << a << "\"\n"
                << usage;
      return 2;
    }
  }
  if (from.empty() || to.empty()) {
    std::cerr << "transitd migrate-store: both --from and --to are needed\n"
              << usage;
    return 2;
  }
  auto source = store_location(from);
  auto target = store_location(to);
  for (const auto* checked : {&source, &target})
    if (!*checked) {
      std::cerr << "transitd migrate-store: " << checked->error().message
                << "; " << checked->error().hint << "\n";
      return 2;
    }
  auto report = migrate_store(*source, *target);
  if (!report) {
    std::cerr << "transitd migrate-store: " << report.error().message << "\n";
    return 1;
  }
  std::cout << "migrate-store: " << report->read << " variables read, "
            << report->written << " written, " << report->kept
            << " kept (the target's were newer)\n";
  return 0;
}

} // namespace transitd
