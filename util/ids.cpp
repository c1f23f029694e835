#include "transitd/util/ids.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <stdexcept>

#include <openssl/rand.h>

namespace transitd {

namespace {

template <std::size_t N>
std::array<unsigned char, N> random_bytes() {
  std::array<unsigned char, N> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(N)) != 1)
    throw std::runtime_error("RAND_bytes failed: no secure randomness");
  return bytes;
}

constexpr char hex_digits[] = "0123456789abcdef";

} // namespace

std::string make_uuid_v4() {
  // Drawn from a per-thread pool that RAND_bytes refills 256 ids at a
  // time: one RAND_bytes call per id showed up in profiles (it takes locks
  // and checks for a fork on every call).
  constexpr std::size_t pool_size = 16 * 256;
  thread_local std::array<unsigned char, pool_size> pool{};
  thread_local std::size_t used = pool_size;
  if (used == pool_size) {
    pool = random_bytes<pool_size>();
    used = 0;
  }
  std::array<unsigned char, 16> bytes{};
  std::copy_n(pool.begin() + static_cast<std::ptrdiff_t>(used), bytes.size(),
              bytes.begin());
  used += bytes.size();
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0F) | 0x40); // version
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3F) | 0x80); // variant
  std::string result;
  result.reserve(36);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10)
      result.push_back('-');
    result.push_back(hex_digits[bytes[i] >> 4]);
    result.push_back(hex_digits[bytes[i] & 0x0F]);
  }
  return result;
}

std::string make_secret_token() {
  auto bytes = random_bytes<32>();
  std::string result;
  result.reserve(64);
  for (auto byte : bytes) {
    result.push_back(hex_digits[byte >> 4]);
    result.push_back(hex_digits[byte & 0x0F]);
  }
  return result;
}

} // namespace transitd
