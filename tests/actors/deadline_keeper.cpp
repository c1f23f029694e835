// DEADLINES: the deadline book's arithmetic, and the keeper on the
// deterministic scheduler (see also the departures board's tests, which
// ask their timetable through it).

#include "transitd/actors/deadline_keeper.hpp"

#include <catch2/catch.hpp>

using namespace transitd;
using namespace std::chrono_literals;

namespace {

using time_point = caf::actor_clock::time_point;

time_point at(std::chrono::milliseconds ms) {
  return time_point{} + ms;
}

} // namespace

TEST_CASE("the deadline book returns what is due, earliest first",
          "[deadline_keeper]") {
  deadline_book<int> book;
  book.book(1, at(300ms));
  book.book(2, at(100ms));
  book.book(3, at(200ms));
  book.book(4, at(100ms));
  CHECK(book.size() == 4);
  CHECK(book.take_due(at(99ms)).empty());
  auto due = book.take_due(at(200ms));
  REQUIRE(due.size() == 3);
  CHECK(due[2] == 3);
  CHECK((due[0] == 2 || due[0] == 4));
  CHECK(book.size() == 1);
  // Taken is gone: not due again.
  CHECK(book.take_due(at(250ms)).empty());
  CHECK(book.take_due(at(300ms)) == std::vector<int>{1});
  CHECK(book.size() == 0);
}

TEST_CASE("an answered request leaves the book", "[deadline_keeper]") {
  deadline_book<int> book;
  book.book(1, at(100ms));
  book.book(2, at(200ms));
  book.unbook(1);
  book.unbook(7); // never booked: nothing
  CHECK(book.size() == 1);
  CHECK(book.take_due(at(1000ms)) == std::vector<int>{2});
}

TEST_CASE("one timer stands for every later deadline", "[deadline_keeper]") {
  deadline_book<int> book;
  CHECK_FALSE(book.timer_to_set()); // nothing booked
  book.book(1, at(100ms));
  auto first = book.timer_to_set();
  REQUIRE(first);
  CHECK(*first == at(100ms));
  // Later deadlines need no timer of their own: the one set fires first.
  book.book(2, at(150ms));
  book.book(3, at(400ms));
  CHECK_FALSE(book.timer_to_set());
  // An earlier one does.
  book.book(4, at(50ms));
  auto earlier = book.timer_to_set();
  REQUIRE(earlier);
  CHECK(*earlier == at(50ms));
  // The timer fires: what is due goes, the next timer is for what is left.
  book.fired(at(50ms));
  CHECK(book.take_due(at(50ms)) == std::vector<int>{4});
  auto next = book.timer_to_set();
  REQUIRE(next);
  CHECK(*next == at(100ms));
  // A stray earlier timer firing while a later one is set changes nothing.
  book.fired(at(60ms));
  CHECK_FALSE(book.timer_to_set());
  book.fired(at(100ms));
  CHECK(book.take_due(at(100ms)) == std::vector<int>{1});
  CHECK(book.timer_to_set() == std::optional<time_point>{at(150ms)});
}

TEST_CASE("the shared registry asks for a timer only for a new earliest "
          "deadline, forgets answered requests and hands over what is due",
          "[deadline_keeper]") {
  deadline_registry registry;
  // No actor needed for the arithmetic: the requesters stay null.
  auto first = registry.book({7, 1}, nullptr, at(300ms));
  REQUIRE(first);
  CHECK(*first == at(300ms));
  CHECK_FALSE(registry.book({7, 2}, nullptr, at(400ms)));
  auto earlier = registry.book({8, 1}, nullptr, at(100ms));
  REQUIRE(earlier);
  CHECK(*earlier == at(100ms));
  registry.unbook({7, 1}); // answered in time
  CHECK(registry.size() == 2);
  std::optional<time_point> next;
  auto due = registry.take_due(at(100ms), next);
  REQUIRE(due.size() == 1);
  CHECK(due.front().first == request_key{8, 1});
  // The timer for 300 ms is stale (its request answered); the next one
  // must fire for the request still booked.
  REQUIRE(next);
  CHECK(*next == at(400ms));
  CHECK(registry.take_due(at(399ms), next).empty());
  CHECK(registry.take_due(at(400ms), next).size() == 1);
  CHECK(registry.size() == 0);
  CHECK_FALSE(next);
}
