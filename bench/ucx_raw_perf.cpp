// ucx-raw-perf: the remote rows of symmetra-perf, done by UCX's UCP API alone, for the
// side-by-side comparison of the remote path (bench/remote_compare.sh, docs/perf_remote.md).
//
//   symrun -n 2 --hosts 2 [--netns P --rendezvous tcp:H] ucx-raw-perf [--quick] [--max-bytes N]
//
// PE 0 measures against PE 1, the same operations with the same semantics as symmetra-perf's
// rows of those names:
//   put_lat    ucp_put_nbx, then ucp_ep_flush_nbx (put + quiet: complete at the target)
//   put_bw     ucp_put_nbx, each waited for locally (putmem_nbi: the source reusable)
//   get_lat    ucp_get_nbx, waited for
//   get_bw     ucp_get_nbx, all of a batch waited for at its end
//   p_lat      an 8-byte put + flush
//   fetch_add_lat  ucp_atomic_op_nbx(ADD) with a reply
//   put_signal_pingpong  put the data, ucp_worker_fence, put the signal; the peer polls its
//              signal word, progressing its worker, and answers the same way (round trip)
// The target spins in ucp_worker_progress while PE 0 measures: the best case for raw UCX (a
// Symmetra target sleeps in epoll instead; docs/perf_remote.md says what that costs).
// Symmetra's runtime is used only to exchange worker addresses and rkeys, never while timing.
#include <ucp/api/ucp.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "perf_report.hpp"
#include "symmetra/runtime.hpp"

namespace {

using symmetra::bench::Report;
using symmetra::bench::Row;
using symmetra::bench::sample;

[[noreturn]] void die(const char* what, ucs_status_t st) {
  std::fprintf(stderr, "ucx-raw-perf: %s: %s\n", what, ucs_status_string(st));
  std::exit(1);
}

// One PE's UCP side: a context, a worker, `bytes` of registered memory and its packed rkey.
struct Ucp {
  ucp_context_h context = nullptr;
  ucp_worker_h worker = nullptr;
  ucp_mem_h memh = nullptr;
  std::vector<char> buf;
  ucp_ep_h ep = nullptr;
  ucp_rkey_h rkey = nullptr;
  std::uint64_t remote_base = 0;

  explicit Ucp(std::size_t bytes) : buf(bytes) {
    ucp_params_t p{};
    p.field_mask = UCP_PARAM_FIELD_FEATURES;
    p.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO64;
    ucp_config_t* config = nullptr;
    ucs_status_t st = ucp_config_read(nullptr, nullptr, &config);
    if (st != UCS_OK) die("ucp_config_read", st);
    st = ucp_init(&p, config, &context);
    ucp_config_release(config);
    if (st != UCS_OK) die("ucp_init", st);
    ucp_worker_params_t wp{};
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = UCS_THREAD_MODE_SINGLE;
    if ((st = ucp_worker_create(context, &wp, &worker)) != UCS_OK) die("ucp_worker_create", st);
    ucp_mem_map_params_t mp{};
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    mp.address = buf.data();
    mp.length = buf.size();
    if ((st = ucp_mem_map(context, &mp, &memh)) != UCS_OK) die("ucp_mem_map", st);
  }
  ~Ucp() {
    close();
    ucp_mem_unmap(context, memh);
    ucp_worker_destroy(worker);
    ucp_cleanup(context);
  }

  // Flushes and closes the endpoint; the peer must progress meanwhile (leave_together).
  void close() {
    if (rkey) ucp_rkey_destroy(rkey);
    rkey = nullptr;
    if (ep) {
      ucp_request_param_t rp{};
      wait(ucp_ep_close_nbx(ep, &rp));
    }
    ep = nullptr;
  }

  // Progresses the worker until `req` (from an *_nbx call) completes, for at most 60 s: a peer
  // that stopped progressing leaves a flush or close waiting forever.
  void wait(ucs_status_ptr_t req) {
    if (req == nullptr) return;
    if (UCS_PTR_IS_ERR(req)) die("operation", UCS_PTR_STATUS(req));
    ucs_status_t st = UCS_INPROGRESS;
    progress_until([&] { return (st = ucp_request_check_status(req)) != UCS_INPROGRESS; },
                   "a UCX request to complete");
    ucp_request_free(req);
    if (st != UCS_OK) die("request", st);
  }

  // Connects to the peer, whose worker address, rkey and buffer came through Symmetra.
  void connect(symmetra::Runtime& rt, int peer) {
    ucp_address_t* addr = nullptr;
    std::size_t addr_len = 0;
    ucs_status_t st = ucp_worker_get_address(worker, &addr, &addr_len);
    if (st != UCS_OK) die("ucp_worker_get_address", st);
    void* rkey_buf = nullptr;
    std::size_t rkey_len = 0;
    if ((st = ucp_rkey_pack(context, memh, &rkey_buf, &rkey_len)) != UCS_OK)
      die("ucp_rkey_pack", st);
    // Blob: address length, rkey length, buffer address, address, rkey.
    constexpr std::size_t kBlob = 8192;
    auto* mine = static_cast<char*>(rt.allocate(kBlob));
    auto* theirs = static_cast<char*>(rt.allocate(kBlob));
    const std::uint64_t head[3] = {addr_len, rkey_len,
                                   reinterpret_cast<std::uintptr_t>(buf.data())};
    if (sizeof(head) + addr_len + rkey_len > kBlob) {
      std::fprintf(stderr, "ucx-raw-perf: worker address and rkey exceed %zu bytes\n", kBlob);
      std::exit(1);
    }
    std::memcpy(mine, head, sizeof(head));
    std::memcpy(mine + sizeof(head), addr, addr_len);
    std::memcpy(mine + sizeof(head) + addr_len, rkey_buf, rkey_len);
    rt.barrier_all();
    rt.getmem(theirs, mine, kBlob, peer);
    std::uint64_t their_head[3];
    std::memcpy(their_head, theirs, sizeof(their_head));
    remote_base = their_head[2];
    ucp_ep_params_t ep_params{};
    ep_params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    ep_params.address = reinterpret_cast<const ucp_address_t*>(theirs + sizeof(their_head));
    if ((st = ucp_ep_create(worker, &ep_params, &ep)) != UCS_OK) die("ucp_ep_create", st);
    st = ucp_ep_rkey_unpack(ep, theirs + sizeof(their_head) + their_head[0], &rkey);
    if (st != UCS_OK) die("ucp_ep_rkey_unpack", st);
    rt.barrier_all();
    ucp_rkey_buffer_release(rkey_buf);
    ucp_worker_release_address(worker, addr);
    rt.free(theirs);
    rt.free(mine);
  }

  void put(const void* src, std::size_t bytes, std::size_t offset) {
    ucp_request_param_t rp{};
    wait(ucp_put_nbx(ep, src, bytes, remote_base + offset, rkey, &rp));
  }
  void flush() {
    ucp_request_param_t rp{};
    wait(ucp_ep_flush_nbx(ep, &rp));
  }
  ucs_status_ptr_t get_nb(void* dst, std::size_t bytes, std::size_t offset) {
    ucp_request_param_t rp{};
    return ucp_get_nbx(ep, dst, bytes, remote_base + offset, rkey, &rp);
  }
  std::uint64_t fetch_add(std::uint64_t value, std::size_t offset) {
    std::uint64_t old = 0;
    ucp_request_param_t rp{};
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    rp.datatype = ucp_dt_make_contig(sizeof(value));
    rp.reply_buffer = &old;
    wait(ucp_atomic_op_nbx(ep, UCP_ATOMIC_OP_ADD, &value, 1, remote_base + offset, rkey, &rp));
    return old;
  }
  // Progresses the worker until done(), for at most `seconds`.
  template <class Done>
  void progress_until(Done done, const char* what, int seconds = 60) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    for (unsigned i = 0; !done(); ++i) {
      ucp_worker_progress(worker);
      if ((i & 1023) == 0 && std::chrono::steady_clock::now() > deadline) {
        std::fprintf(stderr, "ucx-raw-perf: timed out after %d s waiting for %s\n", seconds, what);
        std::exit(1);
      }
    }
  }
  // Progresses until the word at `offset` of this PE's buffer reaches `value`.
  void wait_word(std::size_t offset, std::uint64_t value) {
    const auto* w = reinterpret_cast<volatile std::uint64_t*>(buf.data() + offset);
    progress_until([&] { return *w >= value; }, "the peer's put");
  }
};

// Ends a phase of raw traffic on both sides together. Over TCP, UCX's puts and flushes need the
// target's progress, and a side that has left (for rt's barrier, say) no longer progresses the
// raw worker. Telling the other "done" by a raw put left the teller's flush of it waiting on a
// side that had seen the put and left: rt's barrier then timed out ("[pe 1] sync: ... seen
// 14"), and before that a flush failed with "Connection reset by remote peer". So each side
// completes its raw traffic, says so through Symmetra (`flag`, on the other side, counts the
// phases), and progresses the raw worker until the other has said so too: after that neither
// needs the other's raw progress. `last`: the endpoint is closed instead of flushed (a close
// also needs the other's progress).
void leave_together(symmetra::Runtime& rt, Ucp& ucp, std::uint64_t* flag, std::uint64_t phase,
                    int seconds, bool last) {
  if (last)
    ucp.close();
  else
    ucp.flush();
  rt.atomic_add(flag, std::uint64_t{1}, 1 - rt.my_pe());
  ucp.progress_until([&] { return rt.test(flag, symmetra::Cmp::kGe, phase); },
                     "the other side to finish its raw traffic", seconds);
}

void add(Report& report, const char* op, std::size_t bytes, std::vector<double> us, bool bw) {
  double p50, p99;
  symmetra::bench::percentiles(std::move(us), &p50, &p99);
  report.add(Row{op, bytes, 2, "host", "ucx-raw", p50, p99, bw ? bytes / (p50 * 1e3) : 0});
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::size_t max_bytes = 4u << 20;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--max-bytes") == 0 && i + 1 < argc) {
      max_bytes = std::strtoull(argv[++i], nullptr, 0);
    } else {
      std::fprintf(stderr, "usage: ucx-raw-perf [--quick] [--max-bytes N]\n");
      return 2;
    }
  }
  auto rt = symmetra::Runtime::init();
  if (rt->n_pes() != 2) {
    std::fprintf(stderr, "ucx-raw-perf: run it on 2 PEs\n");
    return 2;
  }
  const int me = rt->my_pe();
  // The data region, then words of our own: the done flag, the fetch_add target, the signal.
  const std::size_t kWord = max_bytes + 64, kSignal = max_bytes + 128;
  const std::size_t kData = max_bytes + 256;
  Ucp ucp(max_bytes + 4096);
  ucp.connect(*rt, 1 - me);
  // The phases the other side has finished (leave_together).
  auto* other_done = static_cast<std::uint64_t*>(rt->allocate(sizeof(std::uint64_t)));
  *other_done = 0;
  rt->barrier_all();
  std::vector<char> storage(max_bytes + 4096 + 16);
  char* local = storage.data() + ((16 - reinterpret_cast<std::uintptr_t>(storage.data())) & 4095);
  for (std::size_t i = 0; i < max_bytes; ++i) local[i] = static_cast<char>(i * 7 + 1);
  Report report;
  const int batches = quick ? 5 : 21;
  if (me == 0) {
    for (std::size_t bytes = 8; bytes <= max_bytes; bytes *= 2) {
      const int per = static_cast<int>(
          std::clamp<std::size_t>((std::size_t{1} << 22) / bytes, 4, 2000) / (quick ? 4 : 1));
      add(report, "put_lat", bytes,
          sample(batches, per,
                 [&] {
                   ucp.put(local, bytes, 0);
                   ucp.flush();
                 }),
          false);
      add(report, "put_bw", bytes, sample(batches, per, [&] { ucp.put(local, bytes, 0); }), true);
      ucp.flush();
      add(report, "get_lat", bytes,
          sample(batches, per, [&] { ucp.wait(ucp.get_nb(local, bytes, 0)); }), false);
      // A batch's gets go out together and are waited for at its end, as getmem_nbi + quiet.
      std::vector<ucs_status_ptr_t> pending;
      pending.reserve(static_cast<std::size_t>(per));
      int issued = 0;
      add(report, "get_bw", bytes,
          sample(batches, per,
                 [&] {
                   pending.push_back(ucp.get_nb(local, bytes, 0));
                   if (++issued % per == 0) {
                     for (auto r : pending) ucp.wait(r);
                     pending.clear();
                   }
                 }),
          true);
      for (auto r : pending) ucp.wait(r);
    }
    const int per = quick ? 200 : 2000;
    const std::uint64_t one = 1;
    add(report, "p_lat", 8,
        sample(batches, per,
               [&] {
                 ucp.put(&one, 8, kWord);
                 ucp.flush();
               }),
        false);
    add(report, "fetch_add_lat", 8, sample(batches, per, [&] { (void)ucp.fetch_add(1, kWord); }),
        false);
  }
  // The passive side progresses its worker, which serves the measured side, until that is done.
  leave_together(*rt, ucp, other_done, 1, 1800, false);
  // put_signal ping-pong: round trips, the first tenth dropped as warm-up.
  const int rounds = batches * (quick ? 200 : 2000) / 4;
  std::vector<double> rtt;
  const std::uint64_t value = 42;
  for (std::uint64_t expect = 1; expect <= static_cast<std::uint64_t>(rounds); ++expect) {
    const double t0 = symmetra::bench::now_us();
    if (me == 1) ucp.wait_word(kSignal, expect);
    ucp.put(&value, 8, kData);
    ucs_status_t st = ucp_worker_fence(ucp.worker);
    if (st != UCS_OK) die("ucp_worker_fence", st);
    ucp.put(&expect, 8, kSignal);
    if (me == 0) ucp.wait_word(kSignal, expect);
    rtt.push_back(symmetra::bench::now_us() - t0);
  }
  leave_together(*rt, ucp, other_done, 2, 60, true);
  if (me == 0) {
    rtt.erase(rtt.begin(), rtt.begin() + rounds / 10);
    add(report, "put_signal_pingpong", 8, rtt, false);
  }
  rt->barrier_all();
  rt->free(other_done);
  if (me == 0) report.table();
  rt->finalize();
  return 0;
}
