#include "proxy/proxy.hpp"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <vector>

#include "core/blocked.hpp"
#include "core/log.hpp"
#include "symmetra/core/cpu_relax.hpp"
#include "symmetra/device/impl/host_hooks.hpp"

namespace symmetra::detail {
namespace dd = device::detail;

namespace {

std::uint64_t two_halves(std::uint64_t lo, std::uint64_t hi) {
  return (lo & 0xffffffffull) | (hi << 32);
}

// What the proxy thread is doing while it issues `op`, for reports of blocked threads.
const char* op_doing(device::ProxyOp op) {
  switch (op) {
    case device::ProxyOp::kPut:
    case device::ProxyOp::kPutInline:
      return "a ring request's put";
    case device::ProxyOp::kGet:
      return "a ring request's get";
    case device::ProxyOp::kAmo:
      return "a ring request's atomic";
    case device::ProxyOp::kPutSignal:
      return "a ring request's put_signal";
    case device::ProxyOp::kSyncSignal:
      return "a ring request's sync signal";
    case device::ProxyOp::kFence:
      return "a ring request's fence";
    case device::ProxyOp::kQuiet:
      return "a ring request's quiet";
  }
  return "a ring request";
}

}  // namespace

HostProxyMemory::HostProxyMemory(std::uint32_t log2_slots) {
  const std::size_t slots = std::size_t{1} << log2_slots;
  // The three control words each on a cache line of their own: producers hammer tail, the
  // proxy writes done, and neither should evict the other's line.
  words_ = std::make_unique<std::uint64_t[]>(3 * slots + 24);
  ring_.slots = words_.get();
  ring_.tail = words_.get() + slots;
  ring_.done = words_.get() + slots + 8;
  ring_.state = reinterpret_cast<std::uint32_t*>(words_.get() + slots + 16);
  ring_.results = words_.get() + slots + 24;  // two per slot (proxy_take_result)
  ring_.log2_slots = log2_slots;
}

// The process's proxy thread (proxy.hpp): the rings it serves, under one mutex. Made once and
// never destroyed: a Runtime that leaves at exit (Runtime::leave) keeps its Proxy, and a static
// destructor joining a thread that still serves it would hang the exit.
class ProxyThread {
 public:
  static ProxyThread& get() {
    static ProxyThread* t = [] {
      auto* made = new ProxyThread();
      pthread_atfork(nullptr, nullptr, [] { get().restart_in_child(); });
      return made;
    }();
    return *t;
  }
  // fork() copies only the calling thread. A child of a process whose proxy thread was running
  // saw running_ set and started none, so nothing served its rings (a program that forks PEs
  // after running some as threads, as the test runner does); and the thread that is not there
  // may have held mu_. So the child starts afresh: the parent's rings are not its to serve.
  void restart_in_child() {
    new (&mu_) std::mutex();
    new (&removed_) std::condition_variable();
    new (&thread_) std::thread();  // the parent's handle, dropped without a join
    lanes_.clear();
    running_ = false;
    version_.fetch_add(1, std::memory_order_relaxed);
  }
  void add(Proxy* p) {
    std::lock_guard lock(mu_);
    lanes_.push_back(p);
    version_.fetch_add(1, std::memory_order_release);
    p->registered_ = true;
    if (!running_) {
      running_ = true;
      thread_ = std::thread([this] { run(); });
    }
  }
  // Blocks until the thread has finished `p` (stop_ set by the caller) and let go of it.
  void wait_removed(Proxy* p) {
    std::unique_lock lock(mu_);
    removed_.wait(lock, [&] { return !p->registered_; });
  }
  int running() {
    std::lock_guard lock(mu_);
    return running_ ? 1 : 0;
  }

 private:
  void run() {
    name_this_thread("the proxy thread");
    // A copy of lanes_, taken again only when version_ says it changed: an idle poll then costs
    // the rings' loads, not a lock and a copy (a large part of an idle proxy's CPU time).
    std::vector<Proxy*> lanes, finished;
    std::uint64_t seen = ~std::uint64_t{0};
    unsigned idle = 0;
    for (;;) {
      if (version_.load(std::memory_order_acquire) != seen) {
        std::lock_guard lock(mu_);
        if (lanes_.empty()) {
          // add() starts another thread for the next ring. Nobody waits for this one to end:
          // it lets go of its std::thread itself, under the mutex that add() holds to look.
          running_ = false;
          thread_.detach();
          return;
        }
        lanes = lanes_;
        seen = version_.load(std::memory_order_relaxed);
      }
      bool took = false;
      finished.clear();
      for (Proxy* p : lanes)
        if (p->turn(&took)) finished.push_back(p);
      if (!finished.empty()) {
        std::lock_guard lock(mu_);
        for (Proxy* p : finished) {
          lanes_.erase(std::find(lanes_.begin(), lanes_.end(), p));
          p->registered_ = false;
        }
        version_.fetch_add(1, std::memory_order_release);
        removed_.notify_all();
      }
      if (took) {
        idle = 0;
        continue;
      }
      // A GPU producer has no doorbell to ring, so the proxy polls: spin briefly (a request that
      // follows another finds it awake), then yield, then sleep up to 50 us, so that an idle
      // proxy costs little of a 2-CPU machine.
      if (idle < 256) {
        cpu_relax();
      } else if (idle < 512) {
        std::this_thread::yield();
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(idle < 1024 ? 5 : 50));
      }
      ++idle;
    }
  }

  std::mutex mu_;
  std::condition_variable removed_;
  std::vector<Proxy*> lanes_;
  std::atomic<std::uint64_t> version_{0};  // changes with lanes_ (under mu_)
  bool running_ = false;
  std::thread thread_;
};

Proxy::Proxy(const device::ProxyRing& ring, Transport* transport, const device::Context* ctl,
             ProxyStaging* staging)
    : ring_(ring), transport_(transport), ctl_(ctl), staging_(staging) {
  head_ = published_ = dd::atomic_load(ring_.done, dd::kAcquire);
  ProxyThread::get().add(this);
}

Proxy::~Proxy() {
  stop();
}

void Proxy::stop() {
  stop_.store(true, std::memory_order_release);
  ProxyThread::get().wait_removed(this);
}

int Proxy::threads_running() {
  return ProxyThread::get().running();
}

// `done` stops at the oldest request whose producer has not taken its result yet (held_): its
// slot, and so its result words, must not be reserved again before (proxy_take_result).
void Proxy::publish() {
  while (!held_.empty() && dd::atomic_load(dd::proxy_result_word(ring_, held_.front()) + 1,
                                           dd::kAcquire) == dd::proxy_taken_tag(held_.front()))
    held_.pop_front();
  const std::uint64_t to = held_.empty() ? head_ : held_.front();
  if (published_ == to) return;
  published_ = to;
  dd::atomic_store(ring_.done, to, dd::kRelease);
  done_writes_.fetch_add(1, std::memory_order_relaxed);
}

bool Proxy::take_one() {
  const std::uint64_t mask = (std::uint64_t{1} << ring_.log2_slots) - 1;
  auto entry = [&](std::uint64_t p, std::uint64_t* out) {
    const std::uint64_t w = dd::atomic_load(&ring_.slots[p & mask], dd::kAcquire);
    if ((w & dd::kProxyFlag) != dd::proxy_flag(p, ring_.log2_slots)) return false;
    *out = w & dd::kProxyPayload;
    return true;
  };
  std::uint64_t e[dd::kProxyMaxEntries];
  if (!entry(head_, &e[0])) return false;
  const auto op = dd::head_op(e[0]);
  const unsigned n = dd::head_entries(e[0]);
  if (n == 0 || n != dd::proxy_entries(op))
    dd::host_fatalf(*ctl_, "proxy",
                    "request at ring position %llu is corrupt (first entry 0x%llx: op %u with %u "
                    "entries); a producer wrote outside its reservation",
                    static_cast<unsigned long long>(head_), static_cast<unsigned long long>(e[0]),
                    static_cast<unsigned>(op), n);
  // Its producer writes the entries in order, but they may become visible out of order (a GPU's
  // stores over PCIe): each carries its own flag.
  for (unsigned i = 1; i < n; ++i)
    if (!entry(head_ + i, &e[i])) return false;
  {
    const bool to_pe = op != device::ProxyOp::kFence && op != device::ProxyOp::kQuiet;
    const BlockedIn blocked(op_doing(op), to_pe ? dd::head_pe(e[0]) : -1);
    issue(e);
  }
  // A fetch into the ring's own result words: tag them (after the value, which issue() stored)
  // and hold `done` before the request until its producer takes them.
  const std::uint64_t result = op == device::ProxyOp::kGet   ? e[1]
                               : op == device::ProxyOp::kAmo ? e[6]
                                                             : 0;
  if (ring_.results != nullptr && result != 0 &&
      result == reinterpret_cast<std::uint64_t>(dd::proxy_result_word(ring_, head_))) {
    dd::atomic_store(dd::proxy_result_word(ring_, head_) + 1, head_ + 1, dd::kRelease);
    held_.push_back(head_);
  }
  head_ += n;
  requests_.fetch_add(1, std::memory_order_relaxed);
  // In batches: at once where the producer waits on it, else every quarter ring (so that
  // producers short of space see it free) and when the ring runs dry (run()).
  if (dd::head_ack(e[0]) || head_ - published_ >= (mask + 1) / 4) publish();
  return true;
}

void Proxy::put_staged(int pe, std::uint64_t dest, const std::byte* src, std::uint64_t bytes) {
  const std::size_t chunk = staging_->bounce_bytes();
  for (std::uint64_t at = 0; at < bytes; at += chunk) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, bytes - at));
    staging_->to_host(staging_->bounce(), src + at, n);
    // Complete locally on return (RemotePath::put): the bounce buffer may be reused.
    transport_->put(*ctl_, pe, dest + at, staging_->bounce(), n);
  }
}

// The chunks before the last as puts, a fence, and the last chunk with the signal: a PE that
// sees the signal sees every chunk (put_signal orders only its own data before its signal).
void Proxy::put_signal_staged(int pe, std::uint64_t dest, const std::byte* src, std::uint64_t bytes,
                              std::uint64_t sig, std::uint64_t value, SignalOp op) {
  const std::size_t chunk = staging_->bounce_bytes();
  const std::uint64_t last = bytes == 0 ? 0 : (bytes - 1) / chunk * chunk;
  if (last > 0) {
    put_staged(pe, dest, src, last);
    transport_->fence(*ctl_);
  }
  const std::size_t n = static_cast<std::size_t>(bytes - last);
  staging_->to_host(staging_->bounce(), src + last, n);
  transport_->put_signal(*ctl_, pe, dest + last, staging_->bounce(), n, sig, value, op);
}

// Blocking even for a get_nbi: complete earlier than its quiet, which is allowed.
void Proxy::get_staged(int pe, std::byte* dest, std::uint64_t src, std::uint64_t bytes) {
  const std::size_t chunk = staging_->bounce_bytes();
  for (std::uint64_t at = 0; at < bytes; at += chunk) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, bytes - at));
    transport_->get(*ctl_, pe, staging_->bounce(), src + at, n);
    staging_->to_staged(dest + at, staging_->bounce(), n);
  }
}

void Proxy::issue(const std::uint64_t* e) {
  const device::Context& ctl = *ctl_;
  const int pe = dd::head_pe(e[0]);
  const unsigned sub = dd::head_sub(e[0]);
  // Whether the producer's bytes at `a` must go through the bounce buffer.
  auto staged = [&](std::uint64_t a, std::uint64_t bytes) {
    return staging_ != nullptr && bytes > 0 &&
           staging_->staged(reinterpret_cast<const void*>(a), static_cast<std::size_t>(bytes));
  };
  switch (dd::head_op(e[0])) {
    case device::ProxyOp::kPut:
      if (staged(e[2], e[3]))
        put_staged(pe, e[1], reinterpret_cast<const std::byte*>(e[2]), e[3]);
      else
        transport_->put(ctl, pe, e[1], reinterpret_cast<const void*>(e[2]), e[3]);
      break;
    case device::ProxyOp::kPutInline: {
      const std::uint64_t v = two_halves(e[2], e[3]);
      unsigned char bytes[8];
      std::memcpy(bytes, &v, sizeof v);  // the value's low bytes, as the producer stored them
      transport_->put(ctl, pe, e[1], bytes, sub);
      break;
    }
    case device::ProxyOp::kGet:  // unacknowledged: a get_nbi, complete by the next quiet
      if (staged(e[1], e[3]))
        get_staged(pe, reinterpret_cast<std::byte*>(e[1]), e[2], e[3]);
      else if (dd::head_ack(e[0]))
        transport_->get(ctl, pe, reinterpret_cast<void*>(e[1]), e[2], e[3]);
      else
        transport_->get_nbi(ctl, pe, reinterpret_cast<void*>(e[1]), e[2], e[3]);
      break;
    case device::ProxyOp::kAmo: {
      const std::uint64_t old = transport_->atomic(ctl, pe, e[1], static_cast<AmoOp>(sub),
                                                   static_cast<DataType>(dd::head_type(e[0])),
                                                   two_halves(e[2], e[3]), two_halves(e[4], e[5]));
      // The producer reads it after it acquires `done`, which publish() releases.
      if (e[6] != 0 && staging_ != nullptr && staging_->device(reinterpret_cast<void*>(e[6])))
        staging_->to_staged(reinterpret_cast<void*>(e[6]), &old, sizeof old);
      else if (e[6] != 0)
        dd::atomic_store(reinterpret_cast<std::uint64_t*>(e[6]), old, dd::kRelaxed);
      break;
    }
    case device::ProxyOp::kPutSignal:
      if (staged(e[2], e[3]))
        put_signal_staged(pe, e[1], reinterpret_cast<const std::byte*>(e[2]), e[3], e[4],
                          two_halves(e[5], e[6]), static_cast<SignalOp>(sub));
      else
        transport_->put_signal(ctl, pe, e[1], reinterpret_cast<const void*>(e[2]), e[3], e[4],
                               two_halves(e[5], e[6]), static_cast<SignalOp>(sub));
      break;
    case device::ProxyOp::kSyncSignal:
      transport_->sync_signal(ctl, pe, e[1], two_halves(e[2], e[3]), static_cast<SignalOp>(sub));
      break;
    case device::ProxyOp::kFence:
      transport_->fence(ctl);
      break;
    case device::ProxyOp::kQuiet:
      transport_->quiet(ctl);
      break;
  }
}

bool Proxy::turn(bool* took_any) {
  try {
    const bool stopping = stop_.load(std::memory_order_acquire);
    int took = 0;
    if (!stalled_.load(std::memory_order_relaxed))
      while (took < kTurn && take_one()) ++took;
    if (took > 0) {
      *took_any = true;
      return false;
    }
    // Dry: what was taken is announced before the proxy moves on.
    publish();
    if (!stopping) return false;
    dd::atomic_store(ring_.state, static_cast<std::uint32_t>(device::kProxyStopped), dd::kRelease);
    return true;
  } catch (const std::exception& e) {
    return finish_failed(e);
  }
}

// A transport call that found the job stopping (a PE lost) or failed: producers waiting on this
// ring end with kStopped, and their message carries this one. The other rings go on.
bool Proxy::finish_failed(const std::exception& e) {
  {
    std::lock_guard<std::mutex> lock(failure_mu_);
    failure_ = e.what();
  }
  SYMMETRA_LOG(kWarn, ctl_->my_pe, "proxy thread stopped serving this PE: %s", e.what());
  dd::atomic_store(ring_.state, static_cast<std::uint32_t>(device::kProxyFailed), dd::kRelease);
  return true;
}

std::string Proxy::failure() const {
  std::lock_guard<std::mutex> lock(failure_mu_);
  return failure_;
}

}  // namespace symmetra::detail
