#pragma once
// A cache with a TTL per entry, bounded by entries and by bytes, evicting the
// least recently used entry first. Pure: the caller passes the time.

#include <cstddef>
#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>

namespace transitd {

struct cache_limits {
  std::size_t max_entries = 10000;
  std::size_t max_bytes = 64 * 1024 * 1024;
};

template <class Value>
class lru_cache {
public:
  explicit lru_cache(cache_limits limits = {}) : limits_(limits) {
  }

  /// The live entry under `key` (now the most recently used), or nullptr.
  /// An expired entry is dropped.
  const Value* get(const std::string& key, int64_t now_ms) {
    auto it = index_.find(key);
    if (it == index_.end())
      return nullptr;
    if (it->second->expires_ms <= now_ms) {
      erase(it);
      return nullptr;
    }
    lru_.splice(lru_.begin(), lru_, it->second);
    return &it->second->value;
  }

  /// Stores `value` until `expires_ms`, replacing any entry under `key`,
  /// then evicts least recently used entries until both bounds hold. A
  /// value larger than the byte bound is not stored.
  void put(const std::string& key, Value value, std::size_t bytes,
           int64_t expires_ms) {
    if (auto it = index_.find(key); it != index_.end())
      erase(it);
    if (bytes > limits_.max_bytes || limits_.max_entries == 0)
      return;
    lru_.push_front(entry{key, std::move(value), bytes, expires_ms});
    index_.emplace(key, lru_.begin());
    bytes_ += bytes;
    while (lru_.size() > limits_.max_entries || bytes_ > limits_.max_bytes) {
      auto last = std::prev(lru_.end());
      erase(index_.find(last->key));
      ++evictions_;
    }
  }

  std::size_t size() const {
    return lru_.size();
  }
  std::size_t bytes() const {
    return bytes_;
  }
  /// Entries dropped to keep the bounds (not counting expiry).
  int64_t evictions() const {
    return evictions_;
  }

private:
  struct entry {
    std::string key;
    Value value;
    std::size_t bytes;
    int64_t expires_ms;
  };
  using iterator = typename std::list<entry>::iterator;

  void erase(typename std::unordered_map<std::string, iterator>::iterator it) {
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    index_.erase(it);
  }

  cache_limits limits_;
  std::list<entry> lru_;
  std::unordered_map<std::string, iterator> index_;
  std::size_t bytes_ = 0;
  int64_t evictions_ = 0;
};

} // namespace transitd
