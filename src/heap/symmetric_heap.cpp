#include "heap/symmetric_heap.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace symmetra::detail {
namespace {

std::string pe_prefix(const Bootstrap& bs) {
  return "[pe " + std::to_string(bs.pe()) + "] ";
}

// `bytes` of address space starting at a multiple of `align` (a power of two): reserves
// align more and gives back the ends.
Result<std::byte*> reserve_aligned(std::uint64_t bytes, std::uint64_t align) {
  const std::uint64_t span = bytes + align;
  void* p = mmap(nullptr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return Status::fail("cannot reserve " + std::to_string(span >> 20) +
                        " MiB of address space for the symmetric heaps: " + std::strerror(errno) +
                        " (lower SYMMETRA_MAX_SYMMETRIC_SIZE)");
  auto* raw = static_cast<std::byte*>(p);
  const auto addr = reinterpret_cast<std::uintptr_t>(raw);
  auto* at = reinterpret_cast<std::byte*>((addr + align - 1) & ~(std::uintptr_t{align} - 1));
  if (at > raw) munmap(raw, static_cast<std::size_t>(at - raw));
  std::byte* end = at + bytes;
  if (end < raw + span) munmap(end, static_cast<std::size_t>(raw + span - end));
  return at;
}

}  // namespace

Result<std::unique_ptr<SymmetricHeap>> SymmetricHeap::create(Bootstrap& bs, std::uint64_t stride,
                                                             std::uint64_t initial) {
  const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  if (stride < page || (stride & (stride - 1)) != 0)
    return Status::fail(pe_prefix(bs) + "internal error: heap stride " + std::to_string(stride) +
                        " is not a power of two of at least a page");
  initial = (initial + page - 1) / page * page;
  if (initial > stride) initial = stride;
  std::unique_ptr<SymmetricHeap> heap(new SymmetricHeap(bs, stride));
  heap->index_ = bs.rank();
  heap->reserved_bytes_ = stride * static_cast<std::uint64_t>(bs.size());
  // PE 0 makes the host's memfd; the others get it through the bootstrap (processes) or share it.
  std::string error;
  int fd = -1;
  if (bs.rank() == 0) {
    fd = memfd_create("symmetra-heap", MFD_CLOEXEC);
    if (fd < 0) {
      error = "memfd_create: " + std::string(std::strerror(errno));
    } else if (ftruncate(fd, static_cast<off_t>(heap->reserved_bytes_)) != 0) {
      error = "cannot size the heaps' memfd to " + std::to_string(heap->reserved_bytes_) +
              " bytes: " + std::strerror(errno);
      close(fd);
      fd = -1;
    }
  }
  // Processes map the whole file over their own reservation; threads share PE 0's.
  auto map_all = [&](int from_fd) -> Status {
    auto r = reserve_aligned(heap->reserved_bytes_, stride);
    SYMMETRA_TRY(r);
    heap->reservation_ = r.value();
    heap->owns_mapping_ = true;
    if (mmap(heap->reservation_, heap->reserved_bytes_, PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_FIXED | MAP_NORESERVE, from_fd, 0) == MAP_FAILED)
      return Status::fail("cannot map the heaps: " + std::string(std::strerror(errno)));
    (void)madvise(heap->reservation_, heap->reserved_bytes_, MADV_DONTDUMP);
    return {};
  };
  if (bs.threads()) {
    std::byte* base = nullptr;
    if (bs.rank() == 0 && fd >= 0) {
      auto st = map_all(fd);
      if (st.ok())
        base = heap->reservation_;
      else
        error = st.message();
    }
    std::vector<std::byte*> bases(static_cast<std::size_t>(bs.size()));  // PE 0's is the one
    SYMMETRA_TRY(bs.allgather(&base, bases.data(), sizeof(base)));
    if (bases[0] == nullptr)
      return Status::fail(pe_prefix(bs) + "PE 0 could not make the heaps" +
                          (error.empty() ? "" : ": " + error));
    heap->reservation_ = bases[0];
    heap->fd_ = bs.rank() == 0 ? fd : -1;
  } else {
    // Every PE learns whether PE 0 made the file before it waits for the fd.
    int ok = fd >= 0 ? 1 : 0;
    std::vector<int> oks(static_cast<std::size_t>(bs.size()));
    SYMMETRA_TRY(bs.allgather(&ok, oks.data(), sizeof(ok)));
    if (oks[0] == 0)
      return Status::fail(pe_prefix(bs) + "PE 0 could not make the heaps" +
                          (error.empty() ? "" : ": " + error));
    auto got = bs.broadcast_fd(0, fd);
    SYMMETRA_TRY(got);
    if (bs.rank() == 0) {
      close(got.value());  // our own fd came back as a copy
    } else {
      fd = got.value();
    }
    heap->fd_ = fd;
    SYMMETRA_TRY(map_all(fd));
  }
  heap->size_.store(initial, std::memory_order_relaxed);
  SYMMETRA_TRY(bs.barrier());
  return heap;
}

SymmetricHeap::~SymmetricHeap() {
  if (fd_ >= 0) close(fd_);
  if (owns_mapping_ && reservation_ != nullptr) {
    // PEs as threads share the mapping: it goes when the last of them left.
    auto release = [p = reservation_, n = reserved_bytes_] { munmap(p, n); };
    if (!bs_.defer_release(release)) release();
  }
}

Status SymmetricHeap::grow(std::uint64_t new_size) {
  const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  new_size = (new_size + page - 1) / page * page;
  if (new_size <= size()) return {};
  if (new_size > stride_)
    return Status::fail(pe_prefix(bs_) + "the heap cannot grow past " + std::to_string(stride_) +
                        " bytes");
  size_.store(new_size,
              std::memory_order_relaxed);  // mapped already, on every PE: nothing to exchange
  return {};
}

}  // namespace symmetra::detail
