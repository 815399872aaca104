// The loopback transport (loopback_transport.hpp).
#include "transport/loopback/loopback_transport.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "core/word_copy.hpp"
#include "heap/symmetric_heap.hpp"
#include "symmetra/device/amo.hpp"
#include "symmetra/device/impl/wait_core.hpp"

namespace symmetra::detail {
namespace {

namespace dd = device::detail;

// What register_memory exchanges: the key of one range.
struct RangeKey {
  std::uint64_t offset, bytes;
};

}  // namespace

LoopbackTransport::LoopbackTransport(Bootstrap& bs, std::byte* mapping, std::uint64_t stride, int n)
    : bs_(bs), mapping_(mapping), stride_(stride), n_(n), peers_(new Peer[n]) {}

Result<std::unique_ptr<Transport>> LoopbackTransport::connect(const TransportParams& params) {
  Bootstrap& bs = *params.bootstrap;
  const SymmetricHeap& heap = *params.heap;
  const int n = bs.size();
  if (static_cast<int>(params.remote.size()) != n)
    return Status::fail("loopback transport: the remote table has " +
                        std::to_string(params.remote.size()) + " entries for " + std::to_string(n) +
                        " PEs");
  // Every PE of the job is mapped in this process at its rank (SymmetricHeap): PE 0's slot is
  // the origin of every remote address.
  std::byte* origin = heap.base() - static_cast<std::uint64_t>(heap.index()) * heap.stride();
  std::unique_ptr<LoopbackTransport> t(new LoopbackTransport(bs, origin, heap.stride(), n));
  for (int p = 0; p < n; ++p) t->peers_[p].remote = params.remote[p];
  return std::unique_ptr<Transport>(std::move(t));
}

Status LoopbackTransport::register_memory(std::byte* local, std::uint64_t offset,
                                          std::uint64_t bytes, const HeapAccess* access) {
  const int me = bs_.rank();
  if (access != nullptr)
    return Status::fail(
        "the loopback transport delivers through the host mapping and cannot reach device "
        "memory: PEs with GPU heaps on several forced hosts need SYMMETRA_TRANSPORT=ucx");
  if (local != mapping_ + static_cast<std::uint64_t>(me) * stride_ + offset)
    return Status::fail("loopback transport: the memory registered at offset " +
                        std::to_string(offset) + " is not where this PE's heap slot maps it");
  const RangeKey mine{offset, bytes};
  std::vector<RangeKey> all(static_cast<std::size_t>(n_));
  SYMMETRA_TRY(bs_.allgather(&mine, all.data(), sizeof(mine)));
  for (int p = 0; p < n_; ++p) {
    Peer& peer = peers_[p];
    const RangeKey& k = all[static_cast<std::size_t>(p)];
    const int c = peer.count.load(std::memory_order_relaxed);
    if (c > 0) {  // growth: extend the range it continues
      Range& last = peer.ranges[c - 1];
      const std::uint64_t end = last.offset + last.bytes.load(std::memory_order_relaxed);
      if (k.offset == end) {
        last.bytes.store(end - last.offset + k.bytes, std::memory_order_release);
        continue;
      }
    }
    if (c == kMaxRanges)
      return Status::fail("loopback transport: PE " + std::to_string(p) + " registered more than " +
                          std::to_string(kMaxRanges) + " separate ranges");
    peer.ranges[c].offset = k.offset;
    peer.ranges[c].bytes.store(k.bytes, std::memory_order_relaxed);
    peer.count.store(c + 1, std::memory_order_release);
  }
  return {};
}

std::byte* LoopbackTransport::target(const device::Context& ctl, const char* op, int pe,
                                     std::uint64_t offset, std::size_t bytes) const {
  if (pe < 0 || pe >= n_ || !peers_[pe].remote)
    dd::host_fatalf(ctl, op, "the loopback transport does not reach PE %d", pe);
  const Peer& peer = peers_[pe];
  const int c = peer.count.load(std::memory_order_acquire);
  for (int i = 0; i < c; ++i) {
    const std::uint64_t lo = peer.ranges[i].offset;
    const std::uint64_t n = peer.ranges[i].bytes.load(std::memory_order_acquire);
    if (offset >= lo && offset - lo <= n && bytes <= n - (offset - lo))
      return mapping_ + static_cast<std::uint64_t>(pe) * stride_ + offset;
  }
  dd::host_fatalf(ctl, op,
                  "offset %llu + %zu bytes of PE %d is not in memory that PE registered with the "
                  "loopback transport",
                  static_cast<unsigned long long>(offset), bytes, pe);
}

void LoopbackTransport::wake(int pe, std::uint64_t offset, std::size_t bytes) const {
  auto* h = reinterpret_cast<dd::HeapHeader*>(mapping_ + static_cast<std::uint64_t>(pe) * stride_);
  dd::fence_seq_cst();  // after the stores, before reading whether a waiter sleeps (wait_core)
  dd::ring_if_watched(h, offset, offset + bytes);
}

void LoopbackTransport::put(const device::Context& ctl, int pe, std::uint64_t offset,
                            const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  store_words(target(ctl, "put", pe, offset, bytes), static_cast<const std::byte*>(src), bytes);
  wake(pe, offset, bytes);
}

void LoopbackTransport::get(const device::Context& ctl, int pe, void* dest, std::uint64_t offset,
                            std::size_t bytes) {
  if (bytes == 0) return;
  load_words(static_cast<std::byte*>(dest), target(ctl, "get", pe, offset, bytes), bytes);
  dd::fence_seq_cst();  // later loads of the data see what the get read (acquire)
}

std::uint64_t LoopbackTransport::atomic(const device::Context& ctl, int pe, std::uint64_t offset,
                                        AmoOp op, DataType type, std::uint64_t value,
                                        std::uint64_t cond) {
  const std::size_t size = static_cast<std::size_t>(data_type_size(type));
  std::byte* w = target(ctl, "atomic", pe, offset, size);
  if (reinterpret_cast<std::uintptr_t>(w) % size != 0)
    dd::host_fatalf(ctl, "atomic", "offset %llu of PE %d is not aligned to %zu bytes",
                    static_cast<unsigned long long>(offset), pe, size);
  const std::uint64_t old = dd::amo_on_bits(w, op, type, value, cond);
  if (op != AmoOp::kFetch) wake(pe, offset, size);
  return old;
}

void LoopbackTransport::put_signal(const device::Context& ctl, int pe, std::uint64_t offset,
                                   const void* src, std::size_t bytes, std::uint64_t sig_offset,
                                   std::uint64_t value, SignalOp op) {
  if (bytes > 0)
    store_words(target(ctl, "put_signal", pe, offset, bytes), static_cast<const std::byte*>(src),
                bytes);
  auto* sig =
      reinterpret_cast<std::uint64_t*>(target(ctl, "put_signal", pe, sig_offset, sizeof(value)));
  // A release: the data's stores above happen before a waiter's acquire of the signal.
  if (op == SignalOp::kAdd)
    AtomicRef<std::uint64_t>(*sig).fetch_add(value, kRelease);
  else
    AtomicRef<std::uint64_t>(*sig).store(value, kRelease);
  // One fence and one check for both ranges: their hull (a sleeper on the words between them
  // wakes for nothing and re-checks, which is rare and harmless).
  const std::uint64_t lo = std::min(offset, sig_offset);
  const std::uint64_t hi = std::max(offset + bytes, sig_offset + sizeof(value));
  wake(pe, lo, static_cast<std::size_t>(hi - lo));
}

void LoopbackTransport::fence(const device::Context&) {
  dd::fence_seq_cst();  // deliveries are done in order by the initiator
}

void LoopbackTransport::quiet(const device::Context&) {
  dd::fence_seq_cst();  // and complete on return
}

}  // namespace symmetra::detail
