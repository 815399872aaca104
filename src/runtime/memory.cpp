// Symmetric allocation: the same deterministic allocator on every PE (runtime.hpp).
#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

#include "backend/backend.hpp"
#include "bootstrap/bootstrap.hpp"
#include "core/config.hpp"
#include "core/log.hpp"
#include "heap/allocator.hpp"
#include "heap/symmetric_heap.hpp"
#include "runtime/state.hpp"
#include "symmetra/runtime.hpp"
#include "transport/transport.hpp"

namespace symmetra {

namespace {

// A request as one word for the agreement: log2(alignment) in the top 6 bits, the size below,
// saturated (sizes of 2^58 bytes or more are past every heap, refused alike on every PE).
constexpr int kSizeBits = 58;
constexpr std::uint64_t kSizeMax = (std::uint64_t{1} << kSizeBits) - 1;

std::uint64_t request_word(std::size_t alignment, std::size_t bytes) {
  return static_cast<std::uint64_t>(std::countr_zero(alignment)) << kSizeBits |
         std::min<std::uint64_t>(bytes, kSizeMax);
}

std::string request_text(std::uint64_t word) {
  const std::uint64_t size = word & kSizeMax;
  return (size == kSizeMax ? std::string("2^58 bytes or more") : std::to_string(size) + " bytes") +
         " aligned to " + std::to_string(std::uint64_t{1} << (word >> kSizeBits));
}

}  // namespace

// Collective over the world; the one barrier that the spec puts at the end of an allocation is
// its only sync (issue 51: two all-gathers in front of it made malloc + free cost 5.5 barriers
// at 16 PEs, 11.6 at 256, and minutes over UCX at 256; docs/design.md §4). With checks on, the
// PEs' requests are compared first, in one all-reduce of two words (TeamTable::compare).
void* Runtime::allocate_aligned(std::size_t alignment, std::size_t bytes, const char* op,
                                std::size_t phase) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    fail(std::string(op) + ": alignment " + std::to_string(alignment) + " is not a power of two");
  if (ctx_.flags & device::Context::kCheckArgs) [[unlikely]] {
    // Every PE must ask for the same block, or the offsets would stop matching.
    const auto all = s_->teams.compare(device::kTeamWorld, request_word(alignment, bytes));
    for (std::size_t p = 1; p < all.size(); ++p)
      if (all[p] != all[0])
        fail(std::string(op) + ": the PEs asked for different blocks: PE 0 for " +
             request_text(all[0]) + ", PE " + std::to_string(p) + " for " + request_text(all[p]) +
             " (symmetric allocations are the same on every PE; checked with SYMMETRA_CHECK=1)");
  }
  // From here every PE takes the same path (with checks on, the requests agree).
  if (bytes == 0) return nullptr;  // no action and no barrier (OpenSHMEM 1.5 §9.3.1)
  // A size or alignment past what the heap may ever grow to is refused here, on every PE alike,
  // before the allocator's arithmetic: rounding SIZE_MAX up to 16 bytes wrapped to 0 and handed
  // out a live block's offset.
  if (bytes > s_->heap_limit || alignment > s_->heap_limit)
    throw_on_pe<OutOfMemory>(
        my_pe(), std::string(op) + ": cannot allocate " + std::to_string(bytes) +
                     " bytes aligned to " + std::to_string(alignment) +
                     ": the symmetric heap may grow to " + std::to_string(s_->heap_limit) +
                     " bytes at most (SYMMETRA_MAX_SYMMETRIC_SIZE)");
  auto offset = s_->allocator->allocate(bytes, alignment, phase);
  if (!offset) {
    const std::uint64_t want =
        s_->allocator->end() + s_->allocator->shortfall(bytes, alignment, phase);
    const std::uint64_t limit = s_->heap_limit;
    // The same on every PE: the sizes agree and every PE's allocator made the same calls.
    if (want > limit)
      throw_on_pe<OutOfMemory>(
          my_pe(), std::string(op) + ": cannot allocate " + std::to_string(bytes) +
                       " bytes: the symmetric heap has " +
                       std::to_string(s_->allocator->free_bytes()) + " bytes free of " +
                       std::to_string(data_size()) + " and may grow to " + std::to_string(limit) +
                       "; raise SYMMETRA_MAX_SYMMETRIC_SIZE");
    // Grow geometrically so that many small allocations do not each remap the heap.
    const std::uint64_t target = std::min(limit, std::max<std::uint64_t>(want, data_size() * 2));
    const std::uint64_t before = data_size();
    s_->backend->grow(target).or_throw();
    heap_grew(before, op);
    offset = s_->allocator->allocate(bytes, alignment, phase);
    if (!offset) fail(std::string(op) + ": internal error: no block after growing the heap");
  }
  barrier_all();
  return data_base() + *offset;
}

void Runtime::heap_grew(std::uint64_t before, const char* op) {
  // The new bytes reach the transport's peers once registered with it (collective, as this is).
  if (s_->transport)
    s_->transport
        ->register_memory(data_base() + before, (gpu_ ? device::kDeviceHeapOffset : 0) + before,
                          data_size() - before, s_->backend->heap_access())
        .or_throw();
  s_->allocator->grow(data_size());
  SYMMETRA_LOG(kInfo, my_pe(), "%s: the symmetric heap grew from %llu to %llu bytes (limit %llu)",
               op, static_cast<unsigned long long>(before),
               static_cast<unsigned long long>(data_size()),
               static_cast<unsigned long long>(s_->heap_limit));
  refresh_context();
}

// The malloc-like forms on the CPU backend: a block of 256 bytes or more starts 16 bytes past a
// cache line, where glibc's large malloc chunks start (and Open MPI's OSHMEM heap blocks), so
// that a copy between such a private buffer and the block keeps source and destination at one
// offset in their lines; at different offsets every load of the copy splits two lines, 5-10%
// of an L2-bound put or get (docs/perf_cpu.md#copies). Smaller blocks, align() and the GPU backend
// (partners from cudaMalloc) keep plain alignment.
void* Runtime::allocate_malloc_like(std::size_t bytes, const char* op) {
  if (!gpu_ && bytes >= 256) return allocate_aligned(64, bytes, op, 16);
  return allocate_aligned(16, bytes, op, 0);
}

void* Runtime::allocate(std::size_t bytes) {
  return allocate_malloc_like(bytes, "allocate");
}

void* Runtime::align(std::size_t alignment, std::size_t bytes) {
  return allocate_aligned(alignment, bytes, "align", 0);
}

void* Runtime::calloc(std::size_t count, std::size_t size) {
  if (size != 0 && count > SIZE_MAX / size)
    throw_on_pe<OutOfMemory>(my_pe(), "calloc: " + std::to_string(count) + " * " +
                                          std::to_string(size) + " bytes overflows");
  void* p = allocate_malloc_like(count * size, "calloc");
  if (p != nullptr) {
    s_->backend->memset(p, 0, count * size).or_throw();
  }
  barrier_all();  // nobody writes into a peer's block before the peer zeroed it
  return p;
}

void* Runtime::reallocate(void* p, std::size_t bytes) {
  if (p == nullptr) return allocate_malloc_like(bytes, "reallocate");
  if (!is_symmetric(p)) fail("reallocate: address is not in the symmetric heap");
  const std::uint64_t old_offset = static_cast<std::byte*>(p) - data_base();
  const std::uint64_t old_size = s_->allocator->block_size(old_offset);
  if (old_size == 0) fail("reallocate: address is not the start of a symmetric allocation");
  void* q = allocate_malloc_like(bytes, "reallocate");
  if (q != nullptr) {
    const std::size_t keep = std::min<std::uint64_t>(old_size, bytes);
    s_->backend->copy(q, data_base() + old_offset, keep).or_throw();
  }
  s_->allocator->free(old_offset);
  barrier_all();
  return q;
}

void Runtime::free(void* p) {
  // Collective, with a barrier first: no PE may still be writing into the block. With checks on,
  // the PEs first compare the block's offset (TeamTable::compare), and PEs that free different
  // blocks fail alike before any heap changes (issue 51: the heaps diverged and a later put
  // overwrote a live block).
  if (ctx_.flags & device::Context::kCheckArgs) [[unlikely]] {
    const std::uint64_t mine =
        p == nullptr ? ~std::uint64_t{0}
                     : static_cast<std::uint64_t>(static_cast<std::byte*>(p) - data_base());
    const auto all = s_->teams.compare(device::kTeamWorld, mine);
    const auto what = [](std::uint64_t v) {
      return v == ~std::uint64_t{0} ? std::string("a null pointer")
                                    : "the block at heap offset " + std::to_string(v);
    };
    for (std::size_t pe = 1; pe < all.size(); ++pe)
      if (all[pe] != all[0])
        fail("free: the PEs freed different blocks: PE 0 freed " + what(all[0]) + ", PE " +
             std::to_string(pe) + " " + what(all[pe]) +
             " (a symmetric free names the same block on every PE; checked with "
             "SYMMETRA_CHECK=1)");
  }
  barrier_all();
  if (p == nullptr) return;
  if (is_symmetric(p) &&
      s_->user_maps.count(static_cast<std::uint64_t>(static_cast<std::byte*>(p) - data_base())))
    fail("free: the block at " + std::to_string(reinterpret_cast<std::uintptr_t>(p)) +
         " is a registered buffer: unregister it (nvshmemx_buffer_unregister_symmetric) instead");
  if (!is_symmetric(p) ||
      !s_->allocator->free(static_cast<std::uint64_t>(static_cast<std::byte*>(p) - data_base())))
    fail("free: address is not the start of a symmetric allocation");
}

// Collective over the world, like allocate: with checks on, the sizes are compared first; the
// backend then agrees on every PE's buffer before it maps anything, so that all PEs fail alike.
// The buffer goes at the heap's end, which the allocator then hands out as one block.
void* Runtime::register_symmetric(void* buffer, std::size_t bytes) {
  const char* op = "register_symmetric";
  if (ctx_.flags & device::Context::kCheckArgs) [[unlikely]] {
    const auto all = s_->teams.compare(device::kTeamWorld, bytes);
    for (std::size_t p = 1; p < all.size(); ++p)
      if (all[p] != all[0])
        fail(std::string(op) + ": the PEs registered different sizes: PE 0 " +
             std::to_string(all[0]) + " bytes, PE " + std::to_string(p) + " " +
             std::to_string(all[p]) + " (checked with SYMMETRA_CHECK=1)");
  }
  const std::uint64_t gran = s_->backend->map_granularity();
  if (gran == 0)
    fail(std::string(op) + ": needs the GPU backend (a user's buffer is mapped into the GPU " +
         "heap with CUDA's virtual memory management; the CPU backend's heap is one shared " +
         "mapping)");
  if (bytes == 0 || bytes % gran != 0)
    fail(std::string(op) + ": size " + std::to_string(bytes) +
         " is not a positive multiple of the allocation granularity, " + std::to_string(gran) +
         " bytes");
  const std::uint64_t before = data_size();
  if (bytes > s_->heap_limit - before)  // not before + bytes: a size near 2^64 would wrap
    throw_on_pe<OutOfMemory>(my_pe(), std::string(op) + ": " + std::to_string(bytes) +
                                          " bytes do not fit: the heap holds " +
                                          std::to_string(before) + " of at most " +
                                          std::to_string(s_->heap_limit) +
                                          " bytes (raise SYMMETRA_MAX_SYMMETRIC_SIZE)");
  const std::uint64_t offset = s_->backend->map_user(buffer, bytes).value_or_throw();
  heap_grew(before, op);
  if (!s_->allocator->reserve(offset, bytes))
    fail(std::string(op) + ": internal error: the heap's end is not free");
  s_->user_maps[offset] = bytes;
  barrier_all();
  return data_base() + offset;
}

void Runtime::unregister_symmetric(void* symmetric, std::size_t bytes) {
  const char* op = "unregister_symmetric";
  const std::uint64_t offset =
      is_symmetric(symmetric)
          ? static_cast<std::uint64_t>(static_cast<std::byte*>(symmetric) - data_base())
          : ~std::uint64_t{0};
  if (ctx_.flags & device::Context::kCheckArgs) [[unlikely]] {
    const auto all = s_->teams.compare(device::kTeamWorld, offset);
    for (std::size_t p = 1; p < all.size(); ++p)
      if (all[p] != all[0])
        fail(std::string(op) + ": the PEs named different buffers (heap offsets " +
             std::to_string(all[0]) + " on PE 0, " + std::to_string(all[p]) + " on PE " +
             std::to_string(p) + "; checked with SYMMETRA_CHECK=1)");
  }
  const auto it = s_->user_maps.find(offset);
  if (it == s_->user_maps.end() || it->second != bytes)
    fail(std::string(op) + ": address " +
         std::to_string(reinterpret_cast<std::uintptr_t>(symmetric)) + " with " +
         std::to_string(bytes) + " bytes is not a buffer registered with register_symmetric" +
         (it != s_->user_maps.end() ? " (it has " + std::to_string(it->second) + " bytes)" : ""));
  s_->backend->unmap_user(offset, bytes).or_throw();
  s_->user_maps.erase(it);
}

}  // namespace symmetra
