#include "symmetric_heap.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace symmetra::detail {
namespace {

std::string pe_prefix(const Bootstrap& bs) { return "[pe " + std::to_string(bs.rank()) + "] "; }

Result<std::byte*> reserve(std::uint64_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return Status::fail("cannot reserve " + std::to_string(bytes >> 20) +
                        " MiB of address space for the symmetric heaps: " + std::strerror(errno) +
                        " (lower SYMMETRA_MAX_SYMMETRIC_SIZE)");
  return static_cast<std::byte*>(p);
}

}  // namespace

Result<std::unique_ptr<SymmetricHeap>> SymmetricHeap::create(Bootstrap& bs, std::uint64_t stride,
                                                             std::uint64_t initial) {
  const long page = sysconf(_SC_PAGESIZE);
  stride = (stride + page - 1) / page * page;
  initial = (initial + page - 1) / page * page;
  std::unique_ptr<SymmetricHeap> heap(new SymmetricHeap(bs, stride));
  heap->index_ = bs.rank();
  heap->reserved_bytes_ = stride * static_cast<std::uint64_t>(bs.size());
  if (bs.threads()) {
    // One reservation for the process, made by PE 0 and announced to the others.
    std::byte* base = nullptr;
    if (bs.rank() == 0) {
      auto r = reserve(heap->reserved_bytes_);
      if (r.ok()) base = r.value();
      heap->owns_reservation_ = true;
    }
    std::vector<std::byte*> all(bs.size());
    SYMMETRA_TRY(bs.allgather(&base, all.data(), sizeof(base)));
    if (all[0] == nullptr) return Status::fail(pe_prefix(bs) + "PE 0 could not reserve the heaps");
    heap->reservation_ = all[0];
  } else {
    auto r = reserve(heap->reserved_bytes_);
    SYMMETRA_TRY(r);
    heap->reservation_ = r.value();
    heap->owns_reservation_ = true;
  }
  heap->own_fd_ = memfd_create("symmetra-heap", MFD_CLOEXEC);
  if (heap->own_fd_ < 0)
    return Status::fail(pe_prefix(bs) + "memfd_create: " + std::strerror(errno));
  if (ftruncate(heap->own_fd_, static_cast<off_t>(initial)) != 0)
    return Status::fail(pe_prefix(bs) + "cannot size the heap segment to " +
                        std::to_string(initial) + " bytes: " + std::strerror(errno));
  SYMMETRA_TRY(heap->map_segment(heap->index_, heap->own_fd_, 0, initial));
  if (!bs.threads()) {
    SYMMETRA_TRY(bs.allgather_fds(heap->own_fd_, &heap->peer_fds_));
    for (int i = 0; i < bs.size(); ++i) {
      if (i == heap->index_) continue;
      SYMMETRA_TRY(heap->map_segment(i, heap->peer_fds_[i], 0, initial));
    }
  }
  heap->size_ = initial;
  SYMMETRA_TRY(bs.barrier());
  return heap;
}

SymmetricHeap::~SymmetricHeap() {
  for (int fd : peer_fds_)
    if (fd >= 0) close(fd);
  if (own_fd_ >= 0) close(own_fd_);
  if (owns_reservation_ && reservation_ != nullptr) {
    // PEs as threads share the reservation: it goes when the last of them left.
    auto release = [p = reservation_, n = reserved_bytes_] { munmap(p, n); };
    if (!bs_.defer_release(release)) release();
  }
}

Status SymmetricHeap::map_segment(int index, int fd, std::uint64_t from, std::uint64_t to) {
  std::byte* at = reservation_ + static_cast<std::size_t>(index) * stride_ + from;
  void* p = mmap(at, to - from, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
                 static_cast<off_t>(from));
  if (p == MAP_FAILED)
    return Status::fail(pe_prefix(bs_) + "cannot map the heap of PE " + std::to_string(index) +
                        ": " + std::strerror(errno));
  return {};
}

Status SymmetricHeap::grow(std::uint64_t new_size) {
  const long page = sysconf(_SC_PAGESIZE);
  new_size = (new_size + page - 1) / page * page;
  if (new_size <= size_) return {};
  if (new_size > stride_)
    return Status::fail(pe_prefix(bs_) + "the heap cannot grow past " + std::to_string(stride_) +
                        " bytes");
  if (ftruncate(own_fd_, static_cast<off_t>(new_size)) != 0)
    return Status::fail(pe_prefix(bs_) + "cannot grow the heap segment: " + std::strerror(errno));
  SYMMETRA_TRY(map_segment(index_, own_fd_, size_, new_size));
  // Peers map our new part only once we sized it.
  SYMMETRA_TRY(bs_.barrier());
  if (!bs_.threads()) {
    for (int i = 0; i < bs_.size(); ++i)
      if (i != index_) SYMMETRA_TRY(map_segment(i, peer_fds_[i], size_, new_size));
  }
  size_ = new_size;
  return bs_.barrier();
}

}  // namespace symmetra::detail
