#include "backend/cuda/cuda_heap.hpp"

#include <unistd.h>

#include <algorithm>
#include <string>

namespace symmetra::detail {
namespace {

CUmemAllocationProp chunk_prop(int device) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return prop;
}

std::uint64_t round_up(std::uint64_t x, std::uint64_t g) {
  return (x + g - 1) / g * g;
}

}  // namespace

Result<std::unique_ptr<CudaHeap>> CudaHeap::create(Bootstrap& bs, int device, std::uint64_t stride,
                                                   std::uint64_t initial) {
  auto d = cuda_driver();
  SYMMETRA_TRY(d);
  const Driver* drv = d.value();
  std::unique_ptr<CudaHeap> heap(new CudaHeap(bs, drv, device));
  const CUmemAllocationProp prop = chunk_prop(device);
  size_t gran = 0;
  SYMMETRA_CU(mem_get_allocation_granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  heap->granularity_ = gran;
  heap->stride_ = round_up(stride, gran);
  // Aligned to the stride where it is a power of two (the runtime makes it one), so that every
  // power-of-two alignment up to it holds in every PE's view (Runtime::align): one stride more is
  // reserved and the heaps start at the first multiple of it, which needs no large alignment
  // from the driver.
  const std::uint64_t align = (heap->stride_ & (heap->stride_ - 1)) == 0 ? heap->stride_ : gran;
  heap->index_ = bs.rank();
  heap->reserved_bytes_ = heap->stride_ * static_cast<std::uint64_t>(bs.size()) + align;
  auto aligned = [align](CUdeviceptr raw) { return (raw + align - 1) / align * align; };
  // Every mapping must be usable from every device the PEs of this host use.
  std::vector<int> all(bs.size());
  SYMMETRA_TRY(bs.allgather(&device, all.data(), sizeof(int)));
  heap->shares_device_ = std::count(all.begin(), all.end(), device) > 1;
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  heap->devices_ = all;
  for (int other : all) {
    if (other == device) continue;
    int can = 0;
    SYMMETRA_CUDA(cudaDeviceCanAccessPeer(&can, device, other));
    if (!can)
      return Status::fail("[pe " + std::to_string(bs.rank()) + "] GPU " + std::to_string(device) +
                          " cannot reach GPU " + std::to_string(other) +
                          " by peer access (NVLink or PCIe P2P), which the symmetric heap needs");
  }
  if (bs.threads()) {
    CUdeviceptr base = 0;
    if (bs.rank() == 0) {
      SYMMETRA_CU(mem_address_reserve(&base, heap->reserved_bytes_, gran, 0, 0));
      heap->owns_reservation_ = true;
    }
    std::vector<CUdeviceptr> bases(bs.size());
    SYMMETRA_TRY(bs.allgather(&base, bases.data(), sizeof(base)));
    heap->raw_reservation_ = bases[0];
  } else {
    SYMMETRA_CU(mem_address_reserve(&heap->raw_reservation_, heap->reserved_bytes_, gran, 0, 0));
    heap->owns_reservation_ = true;
  }
  heap->reservation_ = aligned(heap->raw_reservation_);
  SYMMETRA_TRY(heap->add_chunk(0, round_up(initial, gran)));
  return heap;
}

CudaHeap::~CudaHeap() {
  for (auto it = mappings_.rbegin(); it != mappings_.rend(); ++it) {
    drv_->mem_unmap(it->at, it->bytes);
    drv_->mem_release(it->handle);
  }
  if (owns_reservation_ && reservation_ != 0) {
    // PEs as threads share the reservation: it goes when the last of them left.
    auto release = [drv = drv_, p = raw_reservation_, n = reserved_bytes_] {
      drv->mem_address_free(p, n);
    };
    if (!bs_.defer_release(release)) release();
  }
}

Status CudaHeap::map_at(int index, CUmemGenericAllocationHandle h, std::uint64_t from,
                        std::uint64_t bytes) {
  const Driver* drv = drv_;
  const CUdeviceptr at = reservation_ + static_cast<CUdeviceptr>(index) * stride_ + from;
  SYMMETRA_CU(mem_map(at, bytes, 0, h, 0));
  mappings_.push_back({at, bytes, h});
  std::vector<CUmemAccessDesc> access;
  for (int dev : devices_) {
    CUmemAccessDesc a{};
    a.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    a.location.id = dev;
    a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    access.push_back(a);
  }
  SYMMETRA_CU(mem_set_access(at, bytes, access.data(), access.size()));
  return {};
}

Status CudaHeap::add_chunk(std::uint64_t from, std::uint64_t to) {
  const Driver* drv = drv_;
  const std::uint64_t bytes = to - from;
  const CUmemAllocationProp prop = chunk_prop(device_);
  CUmemGenericAllocationHandle h{};
  const CUresult rc = drv->mem_create(&h, bytes, &prop, 0);
  if (rc != CUDA_SUCCESS)
    return Status::fail("[pe " + std::to_string(bs_.rank()) + "] cannot create " +
                        std::to_string(bytes >> 20) + " MiB of symmetric heap on GPU " +
                        std::to_string(device_) + ": " + cu_error(*drv, "cuMemCreate", rc) +
                        " (lower SYMMETRA_SYMMETRIC_SIZE)");
  SYMMETRA_TRY(share(h, from, bytes));
  size_ = to;
  return bs_.barrier();  // nobody touches a peer's new part before it is mapped everywhere
}

// Maps `h` (this PE's) at `from` in this PE's heap and, for PEs as processes, every peer's
// handle at `from` in that peer's heap. Takes over `h`: released with the mappings.
Status CudaHeap::share(CUmemGenericAllocationHandle h, std::uint64_t from, std::uint64_t bytes) {
  const Driver* drv = drv_;
  SYMMETRA_TRY(map_at(index_, h, from, bytes));
  if (bs_.threads()) return {};  // one reservation: each PE maps its own part
  int fd = -1;
  const CUresult erc = drv->mem_export(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
  // Agreed first, so that a PE whose export failed does not leave the others in the exchange.
  auto failed = first_failed(erc == CUDA_SUCCESS);
  SYMMETRA_TRY(failed);
  if (const int pe = failed.value(); pe >= 0) {
    if (fd >= 0) close(fd);
    return Status::fail(
        "[pe " + std::to_string(index_) + "] PE " + std::to_string(pe) +
        "'s memory cannot be shared with the other processes" +
        (pe == index_ ? ": " + cu_error(*drv, "cuMemExportToShareableHandle", erc) : "") +
        " (memory made with cuMemCreate needs CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR in "
        "its requestedHandleTypes)");
  }
  std::vector<int> fds;
  const Status st = bs_.allgather_fds(fd, &fds);
  close(fd);
  SYMMETRA_TRY(st);
  for (int i = 0; i < bs_.size(); ++i) {
    if (i == index_) {
      close(fds[i]);
      continue;
    }
    CUmemGenericAllocationHandle peer{};
    const CUresult irc =
        drv->mem_import(&peer, reinterpret_cast<void*>(static_cast<std::uintptr_t>(fds[i])),
                        CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    close(fds[i]);
    if (irc != CUDA_SUCCESS)
      return Status::fail(cu_error(*drv, "cuMemImportFromShareableHandle", irc));
    SYMMETRA_TRY(map_at(i, peer, from, bytes));
  }
  return {};
}

Result<int> CudaHeap::first_failed(bool ok) {
  const int mine = ok ? 1 : 0;
  std::vector<int> all(bs_.size());
  SYMMETRA_TRY(bs_.allgather(&mine, all.data(), sizeof(int)));
  const auto bad = std::find(all.begin(), all.end(), 0);
  return bad == all.end() ? -1 : static_cast<int>(bad - all.begin());
}

Result<std::uint64_t> CudaHeap::map_user(void* buffer, std::uint64_t bytes) {
  const Driver* drv = drv_;
  const std::uint64_t from = size_;  // a multiple of the granularity, as every chunk is
  const std::string who = "[pe " + std::to_string(bs_.rank()) + "] ";
  // Checked locally, agreed on together: a PE that returns early would leave the others waiting.
  Status local;
  CUmemGenericAllocationHandle h{};
  bool have = false;
  CUdeviceptr base = 0;
  size_t size = 0;
  const CUresult arc =
      drv->mem_get_address_range(&base, &size, reinterpret_cast<CUdeviceptr>(buffer));
  if (arc != CUDA_SUCCESS || base != reinterpret_cast<CUdeviceptr>(buffer) || size < bytes)
    local = Status::fail(
        who + "buffer " + std::to_string(reinterpret_cast<std::uintptr_t>(buffer)) +
        " is not the start of a device mapping of at least " + std::to_string(bytes) + " bytes" +
        (arc != CUDA_SUCCESS ? " (" + cu_error(*drv, "cuMemGetAddressRange", arc) + ")" : ""));
  else if (from + bytes > stride_)
    local = Status::fail(who + "the heap has room for " + std::to_string(stride_ - from) +
                         " bytes more, not " + std::to_string(bytes) +
                         " (raise SYMMETRA_MAX_SYMMETRIC_SIZE)");
  else if (const CUresult rrc = drv->mem_retain_allocation_handle(&h, buffer); rrc != CUDA_SUCCESS)
    local = Status::fail(who + "buffer is not memory from cuMemCreate and cuMemMap: " +
                         cu_error(*drv, "cuMemRetainAllocationHandle", rrc));
  else
    have = true;
  auto failed = first_failed(local.ok());
  SYMMETRA_TRY(failed);
  if (const int first = failed.value(); first >= 0) {
    if (have) drv->mem_release(h);
    if (!local.ok()) return local;
    return Status::fail(who + "PE " + std::to_string(first) + " could not register its buffer");
  }
  SYMMETRA_TRY(share(h, from, bytes));
  size_ = from + bytes;
  SYMMETRA_TRY(bs_.barrier());
  return from;
}

Status CudaHeap::unmap_user(std::uint64_t from, std::uint64_t bytes) {
  const Driver* drv = drv_;
  SYMMETRA_TRY(bs_.barrier());  // nobody still reads or writes the range
  for (int i = 0; i < bs_.size(); ++i) {
    const CUdeviceptr at = reservation_ + static_cast<CUdeviceptr>(i) * stride_ + from;
    auto it = std::find_if(mappings_.begin(), mappings_.end(),
                           [&](const Mapping& m) { return m.at == at && m.bytes == bytes; });
    if (it == mappings_.end()) continue;
    SYMMETRA_CU(mem_unmap(it->at, it->bytes));
    drv->mem_release(it->handle);
    mappings_.erase(it);
  }
  return bs_.barrier();
}

Status CudaHeap::grow(std::uint64_t new_size) {
  new_size = round_up(new_size, granularity_);
  if (new_size <= size_) return {};
  if (new_size > stride_)
    return Status::fail("[pe " + std::to_string(bs_.rank()) + "] the GPU heap cannot grow past " +
                        std::to_string(stride_) + " bytes");
  return add_chunk(size_, new_size);
}

}  // namespace symmetra::detail
