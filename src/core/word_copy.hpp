// Copies with the transport interface's promise (transport/transport.hpp) for the side that
// stores into a target's memory: a put of 2, 4 or 8 bytes to an address aligned to its size is
// one atomic store; otherwise each naturally aligned 8-byte word the copy covers whole is one
// atomic store, the ragged ends byte by byte. So a poller of LL packets (flag-in-data) never
// sees half a word, and ThreadSanitizer sees atomic accesses on both sides. load_words reads
// the same way. Threads: any.
// Ordering: each store is a release (a plain store on x86), so a PE that acquires a word a put
// delivered sees what the initiator wrote before it. The transports' fences are standalone
// fences, which ThreadSanitizer does not model: with relaxed stores it reported a put + fence + p
// and its reader's plain load of the data as a race (the *_remote suites under TSan).
// load_words: relaxed; the caller fences.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "symmetra/core/atomic.hpp"

namespace symmetra::detail {

namespace word_copy_detail {
template <class T>
inline bool store_one(std::byte* dst, const std::byte* src, std::size_t bytes) {
  if (bytes != sizeof(T) || reinterpret_cast<std::uintptr_t>(dst) % sizeof(T) != 0) return false;
  T v;
  std::memcpy(&v, src, sizeof(T));
  AtomicRef<T>(*reinterpret_cast<T*>(dst)).store(v, kRelease);
  return true;
}
}  // namespace word_copy_detail

inline void store_words(std::byte* dst, const std::byte* src, std::size_t bytes) {
  using word_copy_detail::store_one;
  if (store_one<std::uint64_t>(dst, src, bytes) || store_one<std::uint32_t>(dst, src, bytes) ||
      store_one<std::uint16_t>(dst, src, bytes))
    return;
  std::size_t i = 0;
  auto byte_store = [&](std::size_t k) {
    AtomicRef<std::uint8_t>(*reinterpret_cast<std::uint8_t*>(dst + k))
        .store(static_cast<std::uint8_t>(src[k]), kRelease);
  };
  for (; i < bytes && reinterpret_cast<std::uintptr_t>(dst + i) % 8 != 0; ++i) byte_store(i);
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, src + i, 8);
    AtomicRef<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(dst + i)).store(w, kRelease);
  }
  for (; i < bytes; ++i) byte_store(i);
}

inline void load_words(std::byte* dst, const std::byte* src, std::size_t bytes) {
  std::size_t i = 0;
  auto byte_load = [&](std::size_t k) {
    dst[k] = static_cast<std::byte>(
        AtomicRef<std::uint8_t>(*reinterpret_cast<std::uint8_t*>(const_cast<std::byte*>(src + k)))
            .load(kRelaxed));
  };
  for (; i < bytes && reinterpret_cast<std::uintptr_t>(src + i) % 8 != 0; ++i) byte_load(i);
  for (; i + 8 <= bytes; i += 8) {
    const std::uint64_t w =
        AtomicRef<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(const_cast<std::byte*>(src + i)))
            .load(kRelaxed);
    std::memcpy(dst + i, &w, 8);
  }
  for (; i < bytes; ++i) byte_load(i);
}

}  // namespace symmetra::detail
