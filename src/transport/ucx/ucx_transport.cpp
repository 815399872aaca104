// The UCX transport (ucx_transport.hpp).
#include "transport/ucx/ucx_transport.hpp"

#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <ucp/api/ucp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <type_traits>

#include "core/blocked.hpp"
#include "core/clock.hpp"
#include "core/word_copy.hpp"
#include "heap/symmetric_heap.hpp"
#include "symmetra/core/atomic.hpp"
#include "symmetra/device/amo.hpp"
#include "symmetra/device/impl/host_hooks.hpp"
#include "symmetra/device/impl/wait_core.hpp"

namespace symmetra::detail {
namespace {

namespace dd = device::detail;

Status ucx_fail(const std::string& what, ucs_status_t st) {
  return Status::fail("ucx transport: " + what + ": " + ucs_status_string(st));
}

// Every PE contributes a blob of its own length; `out` receives them in rank order. Two
// allgathers: the lengths, then the blobs padded to the longest.
Status allgather_blobs(Bootstrap& bs, const void* mine, std::size_t bytes,
                       std::vector<std::vector<std::byte>>* out) {
  const int n = bs.size();
  const std::uint64_t len = bytes;
  std::vector<std::uint64_t> lens(static_cast<std::size_t>(n));
  SYMMETRA_TRY(bs.allgather(&len, lens.data(), sizeof(len)));
  std::uint64_t most = 0;
  for (std::uint64_t l : lens) most = std::max(most, l);
  std::vector<std::byte> padded(most), all(most * static_cast<std::size_t>(n));
  if (bytes > 0) std::memcpy(padded.data(), mine, bytes);
  SYMMETRA_TRY(bs.allgather(padded.data(), all.data(), most));
  out->assign(static_cast<std::size_t>(n), {});
  for (int p = 0; p < n; ++p) {
    const std::byte* b = all.data() + most * static_cast<std::size_t>(p);
    (*out)[static_cast<std::size_t>(p)].assign(b, b + lens[static_cast<std::size_t>(p)]);
  }
  return {};
}

// What register_memory exchanges besides the packed rkey.
struct RangeKey {
  std::uint64_t offset, bytes, base;
  std::uint64_t device;  // 1: device memory registered with UCX (UcxTransport::direct_)
};

ucp_atomic_op_t ucx_op(AmoOp op, std::uint64_t* value) {
  switch (op) {
    case AmoOp::kFetch:
      *value = 0;  // an OR of nothing reads the word atomically
      return UCP_ATOMIC_OP_OR;
    case AmoOp::kSet:
    case AmoOp::kSwap:
      return UCP_ATOMIC_OP_SWAP;
    case AmoOp::kCompareSwap:
      return UCP_ATOMIC_OP_CSWAP;
    case AmoOp::kFetchAdd:
      return UCP_ATOMIC_OP_ADD;
    case AmoOp::kFetchAnd:
      return UCP_ATOMIC_OP_AND;
    case AmoOp::kFetchOr:
      return UCP_ATOMIC_OP_OR;
    case AmoOp::kFetchXor:
      return UCP_ATOMIC_OP_XOR;
  }
  return UCP_ATOMIC_OP_LAST;
}

}  // namespace

UcxTransport::UcxTransport(Bootstrap& bs, dd::HeapHeader* my_header, int n)
    : bs_(bs), my_header_(my_header), n_(n), peers_(new Peer[n]) {}

Result<std::unique_ptr<Transport>> UcxTransport::connect(const TransportParams& params) {
  Bootstrap& bs = *params.bootstrap;
  const int n = bs.size();
  if (static_cast<int>(params.remote.size()) != n)
    return Status::fail("ucx transport: the remote table has " +
                        std::to_string(params.remote.size()) + " entries for " + std::to_string(n) +
                        " PEs");
  auto* h = reinterpret_cast<dd::HeapHeader*>(params.heap->base());
  std::unique_ptr<UcxTransport> t(new UcxTransport(bs, h, n));
  SYMMETRA_TRY(t->start(params));
  return std::unique_ptr<Transport>(std::move(t));
}

Status UcxTransport::start(const TransportParams& params) {
  ucp_config_t* config = nullptr;
  ucs_status_t st = ucp_config_read(nullptr, nullptr, &config);
  if (st != UCS_OK) return ucx_fail("reading UCX's configuration", st);
  // Forced hosts of one machine exist to test the network path: unless the user chose the
  // transports, keep UCX off shared memory, which it would otherwise find between them.
  const char* tls = std::getenv("UCX_TLS");
  poll_ns_ = params.poll_ns;
  // UCX moving device memory itself (SYMMETRA_UCX_CUDA=1) needs its cuda_copy, which is not a
  // network: the network stays TCP.
  const bool cuda_copy = params.device_memory == DeviceMemory::kDirect;
  if (params.forced_hosts && tls == nullptr) {
    tls = cuda_copy ? "tcp,cuda_copy" : "tcp";
    st = ucp_config_modify(config, "TLS", tls);
    if (st != UCS_OK) return ucx_fail("keeping UCX to TCP between forced hosts", st);
  }
  tcp_only_ = tls != nullptr && (std::string(tls) == "tcp" || std::string(tls) == "tcp,cuda_copy");
  ucp_params_t p{};
  p.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS;
  p.features =
      UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
  p.estimated_num_eps = static_cast<std::size_t>(n_);
  st = ucp_init(&p, config, &context_);
  ucp_config_release(config);
  if (st != UCS_OK) return ucx_fail("ucp_init", st);
  ucp_context_attr_t attr{};
  attr.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES;
  if (ucp_context_query(context_, &attr) == UCS_OK)
    cuda_memory_ = (attr.memory_types & UCS_BIT(UCS_MEMORY_TYPE_CUDA)) != 0;
  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  // The PE's threads and the progress thread take turns, under mu_ (SINGLE would promise that
  // only the creating thread ever calls in, and UCX would dispatch its async events so).
  wp.thread_mode = UCS_THREAD_MODE_SERIALIZED;
  st = ucp_worker_create(context_, &wp, &worker_);
  if (st != UCS_OK) return ucx_fail("ucp_worker_create", st);

  served_ = params.served;
  // UCX's own CUDA path over TCP moved 422 MB/s against 4.8 GB/s for host memory (ucx_perftest
  // put_bw, 4 MiB, H200 machine): staging through pinned memory is faster there.
  direct_ = served_ && cuda_memory_ &&
            (params.device_memory == DeviceMemory::kDirect ||
             (params.device_memory == DeviceMemory::kAuto && !tcp_only_));
  SYMMETRA_TRY(set_handler(kAmPut, &UcxTransport::on_put));
  SYMMETRA_TRY(set_handler(kAmServe, &UcxTransport::on_serve));
  SYMMETRA_TRY(set_handler(kAmReply, &UcxTransport::on_reply));

  ucp_address_t* addr = nullptr;
  std::size_t addr_len = 0;
  st = ucp_worker_get_address(worker_, &addr, &addr_len);
  if (st != UCS_OK) return ucx_fail("ucp_worker_get_address", st);
  std::vector<std::vector<std::byte>> addrs;
  const Status ex = allgather_blobs(bs_, addr, addr_len, &addrs);
  ucp_worker_release_address(worker_, addr);
  SYMMETRA_TRY(ex);
  for (int pe = 0; pe < n_; ++pe) {
    if (!params.remote[static_cast<std::size_t>(pe)]) continue;
    ucp_ep_params_t ep{};
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                    UCP_EP_PARAM_FIELD_ERR_HANDLER;
    ep.address = reinterpret_cast<const ucp_address_t*>(addrs[static_cast<std::size_t>(pe)].data());
    // A peer that dies fails this PE's operations to it (with a status the waits report)
    // instead of leaving them pending.
    ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    ep.err_handler.cb = [](void*, ucp_ep_h, ucs_status_t) {};  // the failed operation reports
    ep.err_handler.arg = nullptr;
    st = ucp_ep_create(worker_, &ep, &peers_[pe].ep);
    if (st != UCS_OK) return ucx_fail("connecting to PE " + std::to_string(pe), st);
  }

  int efd = -1;
  st = ucp_worker_get_efd(worker_, &efd);
  if (st != UCS_OK) return ucx_fail("ucp_worker_get_efd", st);
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (epoll_fd_ < 0 || wake_fd_ < 0)
    return Status::fail("ucx transport: epoll/eventfd: " + std::string(std::strerror(errno)));
  for (int fd : {efd, wake_fd_}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0)
      return Status::fail("ucx transport: epoll_ctl: " + std::string(std::strerror(errno)));
  }
  progress_thread_ = std::thread([this, me = bs_.rank()] {
    name_this_thread("the UCX progress thread of PE " + std::to_string(me));
    progress_loop();
  });
  return {};
}

Status UcxTransport::set_handler(unsigned id, ucp_am_recv_callback_t cb) {
  ucp_am_handler_param_t hp{};
  hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                  UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
  hp.id = id;
  hp.flags = UCP_AM_FLAG_WHOLE_MSG;
  hp.cb = cb;
  hp.arg = this;
  const ucs_status_t st = ucp_worker_set_am_recv_handler(worker_, &hp);
  if (st != UCS_OK) return ucx_fail("ucp_worker_set_am_recv_handler", st);
  return {};
}

UcxTransport::~UcxTransport() {
  if (progress_thread_.joinable()) {
    stop_.store(true);
    const std::uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof(one));
    progress_thread_.join();
  }
  if (worker_ != nullptr) {
    // Gets left in flight by a job that stopped without a quiet (abandon): never waited for.
    for (const PendingGet& g : pending_gets_) {
      ucp_request_cancel(worker_, g.req);
      ucp_request_free(g.req);
    }
    pending_gets_.clear();
    for (Owed& o : owed_)
      if (o.req != nullptr) {
        ucp_request_cancel(worker_, o.req);
        ucp_request_free(o.req);
      }
    owed_.clear();
    awaited_.clear();  // served gets a stopped job left in flight: their replies are dropped
    served_gets_.clear();
    // Every PE passed the finalize barrier, so nothing is in flight: close without waiting for
    // peers that may already be gone.
    for (int pe = 0; pe < n_; ++pe) {
      Peer& peer = peers_[pe];
      for (int i = 0; i < peer.count.load(); ++i)
        if (peer.ranges[i].rkey != nullptr) ucp_rkey_destroy(peer.ranges[i].rkey);
      if (peer.ep == nullptr) continue;
      ucp_request_param_t rp{};
      rp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
      rp.flags = UCP_EP_CLOSE_FLAG_FORCE;
      void* req = ucp_ep_close_nbx(peer.ep, &rp);
      if (UCS_PTR_IS_PTR(req)) {
        const std::uint64_t end = steady_ns() + 1'000'000'000ull;
        while (ucp_request_check_status(req) == UCS_INPROGRESS && steady_ns() < end)
          ucp_worker_progress(worker_);
        ucp_request_free(req);
      }
    }
    for (ucp_mem_h m : mems_) ucp_mem_unmap(context_, m);
    ucp_worker_destroy(worker_);
  }
  if (context_ != nullptr) ucp_cleanup(context_);
  if (epoll_fd_ >= 0) close(epoll_fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

Status UcxTransport::register_memory(std::byte* local, std::uint64_t offset, std::uint64_t bytes,
                                     const HeapAccess* access) {
  if (access != nullptr && !served_)
    return Status::fail(
        "ucx transport: memory the host cannot load and store (a GPU heap) is reached in served "
        "mode only, which this transport was not started in");
  ucp_mem_map_params_t mp{};
  mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
  mp.address = local;
  mp.length = bytes;
  if (access != nullptr) {  // device memory, named: UCX's detection may miss cuMemCreate's
    mp.field_mask |= UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE;
    mp.memory_type = UCS_MEMORY_TYPE_CUDA;
  }
  ucp_mem_h mem = nullptr;
  void* packed = nullptr;
  std::size_t packed_len = 0;
  const bool device = access != nullptr && direct_;
  if (access != nullptr && !direct_) {  // served by this PE's CPU: no key (a blob without one)
    std::lock_guard<std::mutex> lock(mu_);
    mine_.push_back(Mine{local, bytes, access});
  } else {
    std::lock_guard<std::mutex> lock(mu_);
    ucs_status_t st = ucp_mem_map(context_, &mp, &mem);
    if (st != UCS_OK)
      return ucx_fail("registering " + std::to_string(bytes) + " bytes of " +
                          (device ? "device" : "host") + " memory",
                      st);
    mems_.push_back(mem);
    mine_.push_back(Mine{local, bytes, access});
    st = ucp_rkey_pack(context_, mem, &packed, &packed_len);
    if (st != UCS_OK) return ucx_fail("ucp_rkey_pack", st);
  }
  // The key and where the range lies, as one blob: RangeKey, then the packed rkey.
  std::vector<std::byte> blob(sizeof(RangeKey) + packed_len);
  const RangeKey key{offset, bytes, reinterpret_cast<std::uint64_t>(local), device ? 1u : 0u};
  std::memcpy(blob.data(), &key, sizeof(key));
  if (packed != nullptr) {
    std::memcpy(blob.data() + sizeof(key), packed, packed_len);
    ucp_rkey_buffer_release(packed);
  }
  std::vector<std::vector<std::byte>> all;
  SYMMETRA_TRY(allgather_blobs(bs_, blob.data(), blob.size(), &all));
  std::lock_guard<std::mutex> lock(mu_);
  for (int pe = 0; pe < n_; ++pe) {
    Peer& peer = peers_[pe];
    if (peer.ep == nullptr) continue;
    const int c = peer.count.load(std::memory_order_relaxed);
    if (c == kMaxRanges)
      return Status::fail("ucx transport: PE " + std::to_string(pe) + " registered more than " +
                          std::to_string(kMaxRanges) + " ranges");
    const std::vector<std::byte>& b = all[static_cast<std::size_t>(pe)];
    RangeKey k;
    std::memcpy(&k, b.data(), sizeof(k));
    Range& r = peer.ranges[c];
    if (b.size() > sizeof(k)) {  // a PE that registered nothing with UCX sent no key
      const ucs_status_t st = ucp_ep_rkey_unpack(peer.ep, b.data() + sizeof(k), &r.rkey);
      if (st != UCS_OK) return ucx_fail("unpacking PE " + std::to_string(pe) + "'s key", st);
    }
    r.offset = k.offset;
    r.bytes = k.bytes;
    r.base = k.base;
    r.device = k.device != 0;
    peer.count.store(c + 1, std::memory_order_release);
  }
  return {};
}

template <class Fn>
void UcxTransport::for_pieces(const device::Context& ctl, const char* op, int pe,
                              std::uint64_t offset, std::size_t bytes, Fn&& fn) const {
  if (pe < 0 || pe >= n_ || peers_[pe].ep == nullptr)
    dd::host_fatalf(ctl, op, "the ucx transport does not reach PE %d", pe);
  const Peer& peer = peers_[pe];
  const int c = peer.count.load(std::memory_order_acquire);
  std::uint64_t at = offset;
  std::size_t left = bytes;
  while (left > 0) {
    const Range* found = range_of(peer, c, at);
    if (found == nullptr)
      dd::host_fatalf(ctl, op,
                      "offset %llu + %zu bytes of PE %d is not in memory that PE registered with "
                      "the ucx transport",
                      static_cast<unsigned long long>(offset), bytes, pe);
    const Range& r = *found;
    const std::uint64_t in = at - r.offset;
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, r.bytes - in));
    fn(Piece{r.base + in, r.rkey, n, r.device});
    at += n;
    left -= n;
  }
}

void UcxTransport::failed(const device::Context& ctl, const char* op, int pe, ucs_status_t st) {
  // A PE that died breaks its connections at the moment the job's watch learns of it: give the
  // watch a bounded moment to mark this heap, so that the error names the lost PE (and stops
  // this one as a wait would) rather than a transport status.
  const std::uint64_t until = steady_ns() + std::min<std::uint64_t>(ctl.timeout_ns, kGraceNs);
  while (__atomic_load_n(&my_header_->abort_pe, __ATOMIC_ACQUIRE) == 0 && steady_ns() < until)
    usleep(1000);
  dd::host_stop_if_marked(ctl, op);
  dd::host_fatalf(ctl, op, "UCX failed an operation to PE %d: %s", pe, ucs_status_string(st));
}

void UcxTransport::wait(const device::Context& ctl, const char* op, int pe, void* req) {
  if (req == nullptr) return;  // done at once
  if (UCS_PTR_IS_ERR(req)) failed(ctl, op, pe, UCS_PTR_STATUS(req));
  const ucs_status_t st = poll(ctl, op, pe, req, nullptr);
  ucp_request_free(req);
  if (st != UCS_OK) failed(ctl, op, pe, st);
  ring_sleepers();  // what the progress above served may be what another thread sleeps on
}

ucs_status_t UcxTransport::poll(const device::Context& ctl, const char* op, int pe, void* req,
                                const bool* flag) {
  const std::uint64_t start = steady_ns();
  for (std::uint32_t i = 0;; ++i) {
    progress_worker();
    if (req != nullptr) {
      const ucs_status_t st = ucp_request_check_status(req);
      if (st != UCS_INPROGRESS) return st;
    } else if (*flag) {
      return UCS_OK;
    }
    // The reply needs the target's progress, and the target may be waiting for this CPU (CI
    // runs 8 PEs on 2 cores): after a few polls, poll between yields.
    if (i >= 16) sched_yield();
    if ((i & 1023) != 1023) continue;
    // Another PE was lost (the bootstrap's watch marked this heap): stop naming it, as a wait
    // does, rather than wait out the timeout on a peer that may be gone too.
    const std::int32_t mark = __atomic_load_n(&my_header_->abort_pe, __ATOMIC_ACQUIRE);
    const bool stopped = mark != 0 && mark - 1 != ctl.my_pe;
    if (stopped || steady_ns() - start > ctl.timeout_ns) {
      if (req != nullptr) {
        ucp_request_cancel(worker_, req);
        ucp_request_free(req);
      }
      dd::host_stop_if_marked(ctl, op);
      dd::host_timeoutf(ctl, op,
                        "timed out after %.0f s waiting for UCX to complete an operation to PE %d "
                        "(SYMMETRA_TIMEOUT_S)",
                        static_cast<double>(ctl.timeout_ns) / 1e9, pe);
    }
  }
}

bool UcxTransport::progress_worker() {
  bool served = false;
  while (ucp_worker_progress(worker_) != 0) served = true;
  if (!owed_.empty()) send_replies();
  return served;
}

// What one put message carries before its data: where the data goes in the target's address
// space, and the signal to apply after it (put_signal), if any.
struct UcxTransport::PutHeader {
  std::uint64_t addr;
  std::uint64_t sig_addr;  // 0: no signal
  std::uint64_t sig_value;
  std::uint64_t sig_add;  // 1: add, else set
};

void UcxTransport::send_put(const device::Context& ctl, const char* op, int pe, const PutHeader& h,
                            const void* src, std::size_t bytes, bool acked) {
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_MEMORY_TYPE;
  rp.flags = UCP_AM_SEND_FLAG_EAGER;  // the data in the message, never fetched later (rndv)
  rp.memory_type = local_memory_type(src, bytes);  // UCX packs device memory itself (direct_)
  wait(ctl, op, pe, ucp_am_send_nbx(peers_[pe].ep, kAmPut, &h, sizeof(h), src, bytes, &rp));
  if (acked) peers_[pe].unacked = true;
}

ucs_status_t UcxTransport::on_put(void* arg, const void* header, std::size_t header_length,
                                  void* data, std::size_t length, const ucp_am_recv_param_t*) {
  auto* t = static_cast<UcxTransport*>(arg);
  PutHeader h;
  if (header_length != sizeof(h)) return UCS_OK;  // not ours
  std::memcpy(&h, header, sizeof(h));
  auto* dst = reinterpret_cast<std::byte*>(h.addr);
  auto* sig = reinterpret_cast<std::byte*>(h.sig_addr);
  const Mine* mine = t->owner(dst, length);
  const Mine* sig_mine = h.sig_addr != 0 ? t->owner(sig, 8) : nullptr;
  if (mine == nullptr || (h.sig_addr != 0 && sig_mine == nullptr))
    return UCS_OK;  // the origin checked against what this PE registered; never write elsewhere
  // Whole words (core/word_copy.hpp): UCX's own put stores with memcpy, which tore LL packets
  // at a message's first word (docs/transports.md#ucx). Memory of a GPU heap through the
  // backend, which stores whole words too.
  if (const HeapAccess* a = mine->access)
    a->store(a->arg, dst, static_cast<const std::byte*>(data), length);
  else
    store_words(dst, static_cast<const std::byte*>(data), length);
  if (h.sig_addr == 0) return UCS_OK;
  // After the data (host memory: each store above is complete on return; a GPU heap: its
  // accesses take effect in order): a waiter that sees the signal sees the data.
  if (const HeapAccess* a = sig_mine->access) {
    // A set is a store of the whole word, which lands after the data's; an add needs the atomic.
    if (h.sig_add == 1)
      (void)a->amo(a->arg, sig, AmoOp::kFetchAdd, DataType::kUint64, h.sig_value, 0);
    else
      a->store(a->arg, sig, reinterpret_cast<const std::byte*>(&h.sig_value), sizeof(h.sig_value));
    return UCS_OK;
  }
  if (const HeapAccess* a = mine->access; a != nullptr && a->flush != nullptr)
    a->flush(a->arg);  // the data's stores complete before a signal in host memory
  AtomicRef<std::uint64_t> word(*reinterpret_cast<std::uint64_t*>(sig));
  if (h.sig_add == 1)
    word.fetch_add(h.sig_value, kRelease);
  else
    word.store(h.sig_value, kRelease);
  return UCS_OK;
}

const UcxTransport::Mine* UcxTransport::owner(const std::byte* p, std::size_t bytes) const {
  for (const Mine& m : mine_)
    if (p >= m.local && bytes <= m.bytes &&
        static_cast<std::uint64_t>(p - m.local) <= m.bytes - bytes)
      return &m;
  return nullptr;
}

// Sends [offset, offset + bytes) of PE pe as messages of at most kMaxMessage bytes, in order;
// `last` (a signal, or none) rides on the last one. mu_ held.
void UcxTransport::send_puts(const device::Context& ctl, const char* op, int pe,
                             std::uint64_t offset, const void* src, std::size_t bytes,
                             const PutHeader& last) {
  const auto* s = static_cast<const std::byte*>(src);
  std::size_t left = bytes;
  for_pieces(ctl, op, pe, offset, bytes, [&](const Piece& pc) {
    for (std::size_t done = 0; done < pc.bytes; done += kMaxMessage) {
      const std::size_t n = std::min(kMaxMessage, pc.bytes - done);
      left -= n;
      PutHeader h = left == 0 ? last : PutHeader{0, 0, 0, 0};
      h.addr = pc.addr + done;
      send_put(ctl, op, pe, h, s + done, n);
    }
    s += pc.bytes;
  });
}

void UcxTransport::put(const device::Context& ctl, int pe, std::uint64_t offset, const void* src,
                       std::size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (device_range(pe, offset)) return rma_put(ctl, "put", pe, offset, src, bytes);
  send_puts(ctl, "put", pe, offset, src, bytes, PutHeader{0, 0, 0, 0});
}

ucs_memory_type_t UcxTransport::local_memory_type(const void* p, std::size_t bytes) const {
  if (!direct_) return UCS_MEMORY_TYPE_HOST;
  const Mine* m = owner(static_cast<const std::byte*>(p), bytes);
  return m != nullptr && m->access != nullptr ? UCS_MEMORY_TYPE_CUDA : UCS_MEMORY_TYPE_HOST;
}

const UcxTransport::Range* UcxTransport::range_of(const Peer& peer, int count, std::uint64_t at) {
  for (int i = 0; i < count; ++i) {
    const Range& r = peer.ranges[i];
    if (at >= r.offset && at - r.offset < r.bytes) return &r;
  }
  return nullptr;
}

bool UcxTransport::device_range(int pe, std::uint64_t offset) const {
  if (!direct_ || pe < 0 || pe >= n_) return false;
  const Peer& peer = peers_[pe];
  const Range* r = range_of(peer, peer.count.load(std::memory_order_acquire), offset);
  return r != nullptr && r->device;  // none: for_pieces reports it
}

// UCX's own put, which writes device memory at the target through its cuda_copy (the copy
// engine: aligned words land whole, as HeapAccess's do). Over TCP it travels as UCX's active
// messages, and a flush completes it at the target, so quiet needs no read after it.
void UcxTransport::rma_put(const device::Context& ctl, const char* op, int pe, std::uint64_t offset,
                           const void* src, std::size_t bytes) {
  const auto* s = static_cast<const std::byte*>(src);
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_MEMORY_TYPE;
  rp.memory_type = local_memory_type(src, bytes);
  for_pieces(ctl, op, pe, offset, bytes, [&](const Piece& pc) {
    wait(ctl, op, pe, ucp_put_nbx(peers_[pe].ep, s, pc.bytes, pc.addr, pc.rkey, &rp));
    s += pc.bytes;
  });
}

void UcxTransport::rma_get(const device::Context& ctl, const char* op, int pe, std::byte* dest,
                           std::uint64_t offset, std::size_t bytes, bool nbi) {
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_MEMORY_TYPE;
  rp.memory_type = local_memory_type(dest, bytes);
  for_pieces(ctl, op, pe, offset, bytes, [&](const Piece& pc) {
    // Bounded: past kMaxPendingGets requests or kMaxPendingGetBytes, the ones in flight complete
    // first (a deep queue of large gets over TCP gains no bandwidth and holds UCX's buffers).
    if (nbi && (pending_gets_.size() >= kMaxPendingGets ||
                (!pending_gets_.empty() && pending_get_bytes_ + pc.bytes > kMaxPendingGetBytes)))
      complete_pending_gets(ctl, op);
    void* req = ucp_get_nbx(peers_[pe].ep, dest, pc.bytes, pc.addr, pc.rkey, &rp);
    if (!nbi || UCS_PTR_IS_ERR(req)) {
      wait(ctl, op, pe, req);  // an error ends the job, saying why
    } else if (req != nullptr) {
      pending_gets_.push_back({req, pe});
      pending_get_bytes_ += pc.bytes;
    }
    dest += pc.bytes;
  });
  if (!nbi) dd::fence_seq_cst();  // later loads of the data see what the get read
}

void UcxTransport::get(const device::Context& ctl, int pe, void* dest, std::uint64_t offset,
                       std::size_t bytes) {
  auto* d = static_cast<std::byte*>(dest);
  std::lock_guard<std::mutex> lock(mu_);
  if (served_ && !device_range(pe, offset))
    return served_get(ctl, "get", pe, d, offset, bytes, false);
  rma_get(ctl, "get", pe, d, offset, bytes, false);
}

void UcxTransport::get_nbi(const device::Context& ctl, int pe, void* dest, std::uint64_t offset,
                           std::size_t bytes) {
  auto* d = static_cast<std::byte*>(dest);
  std::lock_guard<std::mutex> lock(mu_);
  if (served_ && !device_range(pe, offset))
    return served_get(ctl, "get_nbi", pe, d, offset, bytes, true);
  rma_get(ctl, "get_nbi", pe, d, offset, bytes, true);
}

bool UcxTransport::complete_pending_gets(const device::Context& ctl, const char* op) {
  if (pending_gets_.empty()) return false;
  for (const PendingGet& g : pending_gets_) wait(ctl, op, g.pe, g.req);
  pending_gets_.clear();
  pending_get_bytes_ = 0;
  return true;
}

std::uint64_t UcxTransport::amo_word(const device::Context& ctl, int pe, std::uint64_t offset,
                                     int uop, std::size_t size, std::uint64_t operand,
                                     std::uint64_t reply) {
  for_pieces(ctl, "atomic", pe, offset, size, [&](const Piece& pc) {
    ucp_request_param_t rp{};
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    rp.datatype = ucp_dt_make_contig(size);
    rp.reply_buffer = &reply;  // CSWAP: holds the value to store, then the old one
    wait(ctl, "atomic", pe,
         ucp_atomic_op_nbx(peers_[pe].ep, static_cast<ucp_atomic_op_t>(uop), &operand, 1, pc.addr,
                           pc.rkey, &rp));
  });
  return size == 4 ? reply & 0xffffffffull : reply;
}

std::uint64_t UcxTransport::atomic(const device::Context& ctl, int pe, std::uint64_t offset,
                                   AmoOp op, DataType type, std::uint64_t value,
                                   std::uint64_t cond) {
  const std::size_t size = static_cast<std::size_t>(data_type_size(type));
  if (offset % size != 0)
    dd::host_fatalf(ctl, "atomic", "offset %llu of PE %d is not aligned to %zu bytes",
                    static_cast<unsigned long long>(offset), pe, size);
  const bool floating = type == DataType::kFloat || type == DataType::kDouble;
  std::lock_guard<std::mutex> lock(mu_);
  // Over TCP alone, atomics are served too: UCX 1.16's protocols have none over TCP ("cannot find
  // remote protocol for: ... amo_fetch", seen on the GPU machine), where 1.13's emulated them.
  if (served_ || tcp_only_) {
    std::uint64_t addr = 0;
    for_pieces(ctl, "atomic", pe, offset, size, [&](const Piece& pc) { addr = pc.addr; });
    return served_atomic(ctl, pe, addr, op, type, value, cond);
  }
  if ((size == 4 || size == 8) && !(floating && op == AmoOp::kFetchAdd)) {
    const ucp_atomic_op_t uop = ucx_op(op, &value);
    // CSWAP compares the word with the operand and stores the reply buffer's value.
    if (op == AmoOp::kCompareSwap) return amo_word(ctl, pe, offset, uop, size, cond, value);
    return amo_word(ctl, pe, offset, uop, size, value, 0);
  }
  // What UCX's atomics cannot do (they are 32 and 64-bit integer operations): a
  // compare-and-swap loop on the aligned word that holds the value, 32 bits for narrower
  // types (their neighbours' bits rewritten as they were read), the value's own word for a
  // floating-point add.
  const std::size_t wsize = size < 4 ? 4 : size;
  const std::uint64_t word = offset & ~std::uint64_t{wsize - 1};
  const unsigned shift = static_cast<unsigned>(offset - word) * 8;
  const std::uint64_t ones = size == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (size * 8)) - 1;
  const std::uint64_t mask = ones << shift;
  std::uint64_t seen = amo_word(ctl, pe, word, UCP_ATOMIC_OP_OR, wsize, 0, 0);
  for (;;) {
    const std::uint64_t old = (seen & mask) >> shift;
    // The new value by the device API's own rule, applied to a copy (amo_on leaves the result
    // in the word it is given).
    const std::uint64_t next = visit_type(type, [&](auto tag) -> std::uint64_t {
      using T = typename decltype(tag)::type;
      if constexpr (sizeof(T) == 1 || !std::is_arithmetic_v<T>) {
        return old;  // the API has no 8-bit or non-arithmetic atomics
      } else {
        T w, v, c;
        std::memcpy(&w, &old, sizeof(T));
        std::memcpy(&v, &value, sizeof(T));
        std::memcpy(&c, &cond, sizeof(T));
        (void)dd::amo_on(&w, op, v, c);
        std::uint64_t b = 0;
        std::memcpy(&b, &w, sizeof(T));
        return b;
      }
    });
    if (op == AmoOp::kFetch || next == old) return old;
    const std::uint64_t want = (seen & ~mask) | (next << shift);
    const std::uint64_t got = amo_word(ctl, pe, word, UCP_ATOMIC_OP_CSWAP, wsize, seen, want);
    if (got == seen) return old;
    seen = got;  // another PE changed the word meanwhile: again, from what it holds now
  }
}

void UcxTransport::served_get(const device::Context& ctl, const char* op, int pe, std::byte* dest,
                              std::uint64_t offset, std::size_t bytes, bool nbi) {
  const ForgetOnThrow forget{*this};
  if (nbi && served_gets_.size() >= kMaxPendingGets) complete_served_gets(ctl, op);
  for_pieces(ctl, op, pe, offset, bytes, [&](const Piece& pc) {
    for (std::size_t done = 0; done < pc.bytes; done += kMaxMessage) {
      ServeHeader h{};
      h.addr = pc.addr + done;
      h.bytes = std::min(kMaxMessage, pc.bytes - done);
      Awaited& a = served_gets_.emplace_back();
      a.dest = dest + done;
      send_request(ctl, op, pe, h, a);
    }
    dest += pc.bytes;
  });
  if (nbi) return;
  complete_served_gets(ctl, op);
  dd::fence_seq_cst();  // later loads of the data see what the get read
}

// The header of a message that carries a signal: PE pe's word at sig_offset, in its address
// space (under mu_).
UcxTransport::PutHeader UcxTransport::signal_header(const device::Context& ctl, const char* op,
                                                    int pe, std::uint64_t sig_offset,
                                                    std::uint64_t value, SignalOp sop) {
  std::uint64_t sig_addr = 0;
  for_pieces(ctl, op, pe, sig_offset, sizeof(value), [&](const Piece& pc) { sig_addr = pc.addr; });
  return PutHeader{sig_addr, sig_addr, value, sop == SignalOp::kAdd};
}

void UcxTransport::put_signal(const device::Context& ctl, int pe, std::uint64_t offset,
                              const void* src, std::size_t bytes, std::uint64_t sig_offset,
                              std::uint64_t value, SignalOp op) {
  std::lock_guard<std::mutex> lock(mu_);
  // The signal rides with the last message of the data, which the target applies after it.
  const PutHeader signal = signal_header(ctl, "put_signal", pe, sig_offset, value, op);
  if (bytes == 0)
    send_put(ctl, "put_signal", pe, signal, nullptr, 0);
  else
    send_puts(ctl, "put_signal", pe, offset, src, bytes, signal);
}

// A put_signal of no data whose target waits for it (RemotePath::sync_signal): quiet sends no
// flush request for it. Served, that request costs a round trip per peer, and a barrier's quiet
// paid it for the previous sync's signals: a 2 x 2-host barrier took 124-158 us with them
// flushed, against 75-115 with atomics (docs/transports.md, "Signals, not atomics").
void UcxTransport::sync_signal(const device::Context& ctl, int pe, std::uint64_t sig_offset,
                               std::uint64_t value, SignalOp op) {
  std::lock_guard<std::mutex> lock(mu_);
  send_put(ctl, "signal", pe, signal_header(ctl, "signal", pe, sig_offset, value, op), nullptr, 0,
           false);
}

// Puts to one PE travel as messages on one connection and are stored in order; what needs the
// fence is an atomic or get after them, which UCX may send by another path: quiet orders both.
void UcxTransport::fence(const device::Context& ctl) {
  quiet(ctl);
}

// Flush completes RMA and atomics at their targets, but an active message only at this end. So
// each peer that was sent puts since the last quiet also answers a request: the target serves
// its connection in order, so the answer comes after it stored every earlier put. Served, the
// request is a flush (kServeFlush), which reads nothing: reading a GPU heap's word took the
// target a copy and a stream synchronize. Otherwise it is a read of the peer's first word. A
// read, not an atomic: the word is its doorbell, which a NIC's atomic would not update
// coherently with the CPU's.
void UcxTransport::quiet(const device::Context& ctl) {
  std::lock_guard<std::mutex> lock(mu_);
  const ForgetOnThrow forget{*this};
  ucp_request_param_t rp{};
  wait(ctl, "quiet", -1, ucp_worker_flush_nbx(worker_, &rp));
  // The flush completed the gets in flight; their requests are ours to check and free.
  // Served gets in flight too (the reads below would complete them as well).
  const bool gets = complete_pending_gets(ctl, "quiet") | complete_served_gets(ctl, "quiet");
  if (gets) dd::fence_seq_cst();  // later loads see what they read
  for (int pe = 0; pe < n_; ++pe) {
    Peer& peer = peers_[pe];
    if (!peer.unacked) continue;
    peer.unacked = false;
    if (served_) {  // a flush request to each such peer, all sent before any is waited for
      ServeHeader h{};
      h.kind = kServeFlush;
      send_request(ctl, "quiet", pe, h, served_gets_.emplace_back());
      continue;
    }
    std::uint64_t word = 0;
    const Range& r = peer.ranges[0];
    ucp_request_param_t gp{};
    wait(ctl, "quiet", pe, ucp_get_nbx(peer.ep, &word, sizeof(word), r.base, r.rkey, &gp));
  }
  if (served_) complete_served_gets(ctl, "quiet");
}

void UcxTransport::flush_local(const device::Context& ctl) {
  std::lock_guard<std::mutex> lock(mu_);
  const ForgetOnThrow forget{*this};
  const bool gets = complete_pending_gets(ctl, "flush") | complete_served_gets(ctl, "flush");
  if (gets) dd::fence_seq_cst();  // later loads see what they read
}

void UcxTransport::progress() {
  bool served = false;
  {
    std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
    if (!lock.owns_lock()) return;  // the holder progresses the worker itself
    served = progress_worker();
  }
  if (served) ring_sleepers();
}

void UcxTransport::ring_sleepers() {
  dd::fence_seq_cst();  // after what the worker stored, before reading whether a waiter sleeps
  dd::ring_if_watched(my_header_, 0, ~std::uint64_t{0});
}

// Sleeps in epoll on the worker's event fd until something arrives, serves it, re-arms. Waits
// of this PE progress the worker themselves; this thread is what serves the peers while this
// PE computes or sleeps. After serving, it polls (yielding between polls) for poll_ns_ before
// it sleeps again: operations come in runs, and the next one then finds it awake.
void UcxTransport::progress_loop() {
  std::uint64_t poll_until = 0;
  while (!stop_.load(std::memory_order_acquire)) {
    bool served = false;
    ucs_status_t armed = UCS_OK;
    const std::uint64_t now = steady_ns();
    {
      // A PE thread that holds mu_ waits for a request and progresses the worker itself: what
      // arrives is served. Blocking on the mutex made every such wait's unlock a futex wake and
      // handed the CPU to this thread (on the initiator: once per get); step aside instead.
      std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
      if (!lock.owns_lock()) {
        if (now < poll_until) {
          sched_yield();
        } else {
          const timespec pause{0, 50'000};
          nanosleep(&pause, nullptr);
        }
        continue;
      }
      served = progress_worker();
      if (served) poll_until = now + poll_ns_;
      if (now >= poll_until) armed = ucp_worker_arm(worker_);
    }
    if (served) ring_sleepers();
    if (now < poll_until) {
      sched_yield();
      continue;
    }
    if (armed == UCS_ERR_BUSY) continue;  // more arrived meanwhile
    epoll_event evs[2];
    // A second's cap: only a safety net, since arrivals and the stop both signal an fd.
    (void)epoll_wait(epoll_fd_, evs, 2, 1000);
  }
}

}  // namespace symmetra::detail

// The plugin's entry point (transport/factory.cpp loads it with dlopen).
extern "C" __attribute__((visibility("default"))) symmetra::detail::Transport*
symmetra_make_ucx_transport(const symmetra::detail::TransportParams* params, std::string* error) {
  auto made = symmetra::detail::UcxTransport::connect(*params);
  if (!made.ok()) {
    *error = made.status().message();
    return nullptr;
  }
  return made.value().release();
}
