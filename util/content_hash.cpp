#include "transitd/util/content_hash.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <xxhash.h>

namespace transitd {

namespace {

using hash_state = std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)>;

bool hash_file(const std::filesystem::path& path, XXH3_state_t* state,
               std::string* error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (error)
      *error = "cannot read " + path.string() + ": " + std::strerror(errno);
    return false;
  }
  std::vector<char> buffer(1 << 20);
  uint64_t total = 0;
  for (;;) {
    auto n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      if (error)
        *error = "cannot read " + path.string() + ": " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (n == 0)
      break;
    XXH3_64bits_update(state, buffer.data(), static_cast<std::size_t>(n));
    total += static_cast<uint64_t>(n);
  }
  ::close(fd);
  // The length ends each file: two files' bytes never run together.
  XXH3_64bits_update(state, &total, sizeof(total));
  return true;
}

} // namespace

uint64_t content_hash_of(const void* data, std::size_t size, uint64_t seed) {
  return XXH3_64bits_withSeed(data, size, seed);
}

std::optional<uint64_t> content_hash(const std::string& path,
                                     std::string* error) {
  namespace fs = std::filesystem;
  hash_state state{XXH3_createState(), &XXH3_freeState};
  if (!state || XXH3_64bits_reset(state.get()) != XXH_OK) {
    if (error)
      *error = "cannot hash " + path + ": out of memory";
    return std::nullopt;
  }
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator{path, ec})
      if (entry.is_regular_file(ec))
        files.push_back(entry.path());
    if (ec) {
      if (error)
        *error = "cannot list " + path + ": " + ec.message();
      return std::nullopt;
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      auto name = file.filename().string();
      XXH3_64bits_update(state.get(), name.data(), name.size() + 1);
      if (!hash_file(file, state.get(), error))
        return std::nullopt;
    }
    return XXH3_64bits_digest(state.get());
  }
  if (!hash_file(path, state.get(), error))
    return std::nullopt;
  return XXH3_64bits_digest(state.get());
}

} // namespace transitd
