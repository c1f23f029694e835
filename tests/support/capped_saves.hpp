#pragma once
// The 1,000-variable cap under concurrent saves, for every backend: a
// principal `cap - free` variables short of the cap, then `writers`
// threads, each on its own connection, saving a new key at once. Exactly
// `free` saves may land; the rest are refused; nothing fails.

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "transitd/store/variable_backend.hpp"

namespace transitd::test {

inline void check_capped_saves(
  const std::function<std::unique_ptr<variable_backend>()>& open,
  std::size_t cap = 50, std::size_t free = 3, std::size_t writers = 12) {
  auto seed = open();
  auto v = [](std::string key) {
    user_variable out;
    out.key = std::move(key);
    out.type = variable_type::stop;
    out.stop_id = "HSL:1040129";
    out.name = "Kamppi";
    out.updated_ms = 1;
    return out;
  };
  for (std::size_t i = 0; i < cap - free; ++i)
    REQUIRE(seed->save("crowd", v("held-" + std::to_string(i))));
  std::vector<std::unique_ptr<variable_backend>> connections;
  for (std::size_t i = 0; i < writers; ++i)
    connections.push_back(open());
  std::atomic<int> landed{0};
  std::atomic<int> refused{0};
  std::atomic<int> failed{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < writers; ++i)
    threads.emplace_back([&, i] {
      while (!go)
        std::this_thread::yield();
      auto saved = connections[i]->save_capped(
        "crowd", v("new-" + std::to_string(i)), cap);
      if (!saved)
        ++failed;
      else if (*saved)
        ++landed;
      else
        ++refused;
    });
  go = true;
  for (auto& t : threads)
    t.join();
  CHECK(failed == 0);
  CHECK(landed == static_cast<int>(free));
  CHECK(refused == static_cast<int>(writers - free));
  CHECK(*seed->count("crowd") == cap);
  // A key that exists is replaced even at the cap.
  auto replaced = seed->save_capped("crowd", v("held-0"), cap);
  REQUIRE(replaced);
  REQUIRE(*replaced);
  CHECK(**replaced);
}

} // namespace transitd::test
