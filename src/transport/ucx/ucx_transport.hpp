// The UCX transport (docs/transports.md#ucx): reaches PEs of other hosts through UCX's UCP API,
// the network engine Open MPI's OSHMEM and Sandia OpenSHMEM run on.
//
// Setup: one UCP context and worker per PE; worker addresses go round the bootstrap and every
// PE opens an endpoint to each remote one. register_memory maps a range with ucp_mem_map and
// exchanges its packed rkey and base address, so a remote byte (PE, offset) is that PE's
// registered base plus the offset into the range.
//
// Progress: over TCP (and shared memory) UCX runs RMA and atomics as active messages that the
// target's worker must serve. A progress thread per PE sleeps on the worker's event fd
// (ucp_worker_arm + epoll, no spinning), serves what arrives, and rings this PE's doorbell for
// a sleeping waiter (wait_core.hpp); waits and quiet progress the worker themselves too.
//
// Threads: every call into the worker holds mu_ (a SERIALIZED worker, so the cost is one
// uncontended lock per operation, against microseconds on the wire); the progress thread takes
// it after each wake-up, waits' progress with try_lock. Ordering: as transport.hpp says. Puts
// are active messages of ours, stored in whole words by the target's handler, and put_signal's
// signal rides in the data's last message; get_nbi leaves its requests in flight for quiet;
// quiet is ucp_worker_flush_nbx plus a read from each peer sent puts since the last quiet (a flush
// completes active messages only at this end); fence is quiet. Plugin: built as
// libsymmetra_transport_ucx.so, entered through symmetra_make_ucx_transport (transport/factory.cpp
// dlopens it when a job asks for UCX). Bounds: every wait for a request ends at the job's
// SYMMETRA_TIMEOUT_S with a message naming the PE and the operation.
#pragma once

#include <atomic>
#include <exception>
#include <list>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <ucp/api/ucp.h>

#include "transport/transport.hpp"

namespace symmetra::device::detail {
struct HeapHeader;
}

namespace symmetra::detail {

class UcxTransport final : public Transport {
 public:
  static Result<std::unique_ptr<Transport>> connect(const TransportParams& params);
  ~UcxTransport() override;

  // Which path runs, for the join's log line.
  const char* name() const override {
    return direct_   ? "ucx (device memory by UCX's RMA, atomics served by the target's CPU)"
           : served_ ? "ucx (gets and atomics served by the target's CPU)"
                     : "ucx";
  }
  Status register_memory(std::byte* local, std::uint64_t offset, std::uint64_t bytes,
                         const HeapAccess* access) override;
  void put(const device::Context& ctl, int pe, std::uint64_t offset, const void* src,
           std::size_t bytes) override;
  void get(const device::Context& ctl, int pe, void* dest, std::uint64_t offset,
           std::size_t bytes) override;
  void get_nbi(const device::Context& ctl, int pe, void* dest, std::uint64_t offset,
               std::size_t bytes) override;
  std::uint64_t atomic(const device::Context& ctl, int pe, std::uint64_t offset, AmoOp op,
                       DataType type, std::uint64_t value, std::uint64_t cond) override;
  void put_signal(const device::Context& ctl, int pe, std::uint64_t offset, const void* src,
                  std::size_t bytes, std::uint64_t sig_offset, std::uint64_t value,
                  SignalOp op) override;
  void sync_signal(const device::Context& ctl, int pe, std::uint64_t sig_offset,
                   std::uint64_t value, SignalOp op) override;
  void fence(const device::Context& ctl) override;
  void quiet(const device::Context& ctl) override;
  // Puts leave their source when sent (send_put waits for that): only the gets in flight.
  void flush_local(const device::Context& ctl) override;
  void progress() override;
  bool deliveries_ring() const override { return tcp_only_; }
  bool device_memory_capable() const override { return cuda_memory_; }
  bool moves_device_memory() const override { return direct_; }

 private:
  // One registered range of a PE's slot: [offset, offset + bytes) at `base` in that PE's
  // address space, reached with `rkey`. Ranges are only appended (heap growth), published by
  // Peer::count's release; growth chunks are separate registrations, so an access that spans
  // two adjacent chunks is split.
  static constexpr int kMaxRanges = 64;
  struct Range {
    std::uint64_t offset = 0, bytes = 0, base = 0;
    ucp_rkey_h rkey = nullptr;
    bool device = false;  // device memory, reached by UCX's RMA (direct_)
  };
  struct Peer {
    ucp_ep_h ep = nullptr;  // null: reached by load and store, not through UCX
    bool unacked = false;   // puts sent since the last quiet (mu_)
    std::atomic<int> count{0};
    Range ranges[kMaxRanges];
  };
  // A piece of a remote access that lies in one range.
  struct Piece {
    std::uint64_t addr;
    ucp_rkey_h rkey;
    std::size_t bytes;
    bool device;  // Range::device
  };

  // Puts travel as active messages of ours (id kAmPut), at most kMaxMessage bytes each, so that
  // the target stores them in whole words (UCX's put over TCP stores with memcpy).
  static constexpr unsigned kAmPut = 1;
  static constexpr std::size_t kMaxMessage = 256u << 10;
  struct PutHeader;
  // What this PE registered, in its own address space: where incoming puts may land.
  struct Mine {
    std::byte* local;
    std::uint64_t bytes;
    const HeapAccess* access;  // null: host memory, by loads and stores
  };
  // Where a local buffer of `bytes` at p lies, for UCX (mu_ held): CUDA in a device range this
  // PE registered (direct_), else host memory. Named, not detected: UCX's detection misses
  // memory made with cuMemCreate where its memory hooks are not installed.
  ucs_memory_type_t local_memory_type(const void* p, std::size_t bytes) const;
  // Whether PE pe's [offset, ...) lies in a device range reached by UCX's RMA (direct_).
  bool device_range(int pe, std::uint64_t offset) const;
  // The range of `peer` (of its first `count`) that holds byte `at`, or null.
  static const Range* range_of(const Peer& peer, int count, std::uint64_t at);
  // An RMA put of [offset, offset + bytes) of PE pe from src, complete locally on return
  // (direct_, device ranges; mu_ held).
  void rma_put(const device::Context& ctl, const char* op, int pe, std::uint64_t offset,
               const void* src, std::size_t bytes);
  // RMA gets into dest: waited for, or (nbi) left to quiet (mu_ held).
  void rma_get(const device::Context& ctl, const char* op, int pe, std::byte* dest,
               std::uint64_t offset, std::size_t bytes, bool nbi);

  UcxTransport(Bootstrap& bs, device::detail::HeapHeader* my_header, int n);
  PutHeader signal_header(const device::Context& ctl, const char* op, int pe,
                          std::uint64_t sig_offset, std::uint64_t value, SignalOp sop);
  // `acked`: quiet completes it (every message but a sync signal's).
  void send_put(const device::Context& ctl, const char* op, int pe, const PutHeader& h,
                const void* src, std::size_t bytes, bool acked = true);
  void send_puts(const device::Context& ctl, const char* op, int pe, std::uint64_t offset,
                 const void* src, std::size_t bytes, const PutHeader& last);
  // The AM handler: stores a put (and its signal) into this PE's memory. Runs inside
  // ucp_worker_progress, so under mu_.
  static ucs_status_t on_put(void* arg, const void* header, std::size_t header_length, void* data,
                             std::size_t length, const ucp_am_recv_param_t* param);
  // The registered range that holds [p, p + bytes), or null.
  const Mine* owner(const std::byte* p, std::size_t bytes) const;
  Status start(const TransportParams& params);
  // Calls fn(piece) for each part of [offset, offset + bytes) of PE pe, in order; ends the job
  // naming the op if some byte is not in memory pe registered.
  template <class Fn>
  void for_pieces(const device::Context& ctl, const char* op, int pe, std::uint64_t offset,
                  std::size_t bytes, Fn&& fn) const;
  // Waits (progressing the worker, mu_ held) until the request `req` that an *_nbx call
  // returned completes; ends the job on an error or at the timeout.
  void wait(const device::Context& ctl, const char* op, int pe, void* req);
  // The loop of every wait (mu_ held): progresses the worker, and sends the replies its handlers
  // queued, until `req` completes (req not null; returns its status) or `*flag` turns true
  // (UCS_OK). Ends the job, naming the op and PE, at the timeout or when the job stops.
  ucs_status_t poll(const device::Context& ctl, const char* op, int pe, void* req,
                    const bool* flag);
  // One pass of the worker's progress, then the replies owed (mu_ held); true if it served
  // something.
  bool progress_worker();
  // An operation to PE pe failed with st: stops naming the lost PE if the job's watch marks one
  // within kGraceNs (or the timeout, if shorter), else ends the job with UCX's status.
  [[noreturn]] void failed(const device::Context& ctl, const char* op, int pe, ucs_status_t st);
  static constexpr std::uint64_t kGraceNs = 2'000'000'000;
  // One UCX atomic (`uop`, a ucp_atomic_op_t) of `size` (4 or 8) bytes on PE pe's word at
  // `offset`; for CSWAP `operand` is the compare value and `reply` the value to store. Returns
  // the word's old value. mu_ held.
  std::uint64_t amo_word(const device::Context& ctl, int pe, std::uint64_t offset, int uop,
                         std::size_t size, std::uint64_t operand, std::uint64_t reply);
  // Waits for and frees every get_nbi request in flight (mu_ held); false if there was none.
  bool complete_pending_gets(const device::Context& ctl, const char* op);
  // Served mode (TransportParams::served; ucx_served.cpp): gets and atomics are requests of
  // ours (kAmServe) that the target's handler answers (kAmReply) from its memory, so that every
  // UCX operation is an active message and no rkey is ever used: the path for memory UCX cannot
  // register. The handler queues its reply (Owed), sent once the worker's progress has returned.
  static constexpr unsigned kAmServe = 2;
  static constexpr unsigned kAmReply = 3;
  struct ServeHeader {
    std::uint64_t id;
    std::uint64_t addr;   // in the target's address space
    std::uint64_t bytes;  // a get's; an atomic's word size
    std::uint64_t value, cond;
    std::int32_t from;           // the requesting PE, which the reply goes to
    std::uint8_t kind;           // ServeKind
    std::uint8_t op, type, pad;  // an atomic's AmoOp and DataType
  };
  // kServeFlush asks the target to answer once every message before it on the connection is stored
  // (HeapAccess::flush): what quiet waits for, without reading memory of the target's.
  enum ServeKind : std::uint8_t { kServeGet = 0, kServeAtomic = 1, kServeFlush = 2 };
  struct ReplyHeader {
    std::uint64_t id;
    std::uint64_t value;    // an atomic's old value
    std::uint64_t refused;  // 1: the range is not what the target registered
  };
  // A request this PE waits for (mu_); the reply's handler fills it in.
  struct Awaited {
    std::uint64_t id = 0;
    int pe = -1;
    std::uint64_t addr = 0;     // in the target's address space, for the refusal's message
    std::byte* dest = nullptr;  // a get's destination, `bytes` long
    std::size_t bytes = 0;
    std::uint64_t value = 0;  // an atomic's old value
    bool done = false;
    bool refused = false;  // the target found the range outside what it registered
  };
  struct Owed {
    int pe;
    std::vector<std::byte> header, data;
    void* req = nullptr;  // UCX's, while it still reads header and data
  };
  static ucs_status_t on_serve(void* arg, const void* header, std::size_t header_length, void* data,
                               std::size_t length, const ucp_am_recv_param_t* param);
  static ucs_status_t on_reply(void* arg, const void* header, std::size_t header_length, void* data,
                               std::size_t length, const ucp_am_recv_param_t* param);
  // Sends the replies owed, frees those UCX is done with (mu_ held).
  void send_replies();
  // Sends `h` to PE pe; its reply will fill `a`, which stays in awaited_ until then (mu_ held).
  void send_request(const device::Context& ctl, const char* op, int pe, ServeHeader& h, Awaited& a);
  // Waits for `a`'s reply (mu_ held); ends the job if the target refused.
  void await_reply(const device::Context& ctl, const char* op, Awaited& a);
  // A get of PE pe's [offset, offset + bytes) into dest: a request per piece of at most
  // kMaxMessage bytes, all sent before any is waited for, kept in served_gets_. A blocking get
  // waits for them (and for any get_nbi's before it); get_nbi leaves them to quiet, at most
  // kMaxPendingGets in flight.
  void served_get(const device::Context& ctl, const char* op, int pe, std::byte* dest,
                  std::uint64_t offset, std::size_t bytes, bool nbi);
  // Waits for every served get in flight (mu_ held); false if there was none.
  bool complete_served_gets(const device::Context& ctl, const char* op);
  // The atomic on PE pe's word at `addr` (its address space), waited for.
  std::uint64_t served_atomic(const device::Context& ctl, int pe, std::uint64_t addr, AmoOp op,
                              DataType type, std::uint64_t value, std::uint64_t cond);
  // A wait that ends the job throws (JobStopped): whatever still replies then finds nothing to
  // fill, since what it would fill may be gone with the frames the exception unwinds.
  struct ForgetOnThrow {
    UcxTransport& t;
    int uncaught = std::uncaught_exceptions();
    ~ForgetOnThrow() {
      if (std::uncaught_exceptions() == uncaught) return;
      t.awaited_.clear();
      t.served_gets_.clear();
    }
  };
  Status set_handler(unsigned id, ucp_am_recv_callback_t cb);

  // After the worker served something: rings this PE's doorbell if a waiter sleeps.
  void ring_sleepers();
  void progress_loop();

  Bootstrap& bs_;
  device::detail::HeapHeader* my_header_;
  int n_;
  std::unique_ptr<Peer[]> peers_;
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  std::vector<ucp_mem_h> mems_;
  std::vector<Mine> mine_;  // mu_
  // get_nbi's requests in flight, completed and freed by quiet (mu_). At most kMaxPendingGets
  // and kMaxPendingGetBytes: past either, get_nbi completes those in flight first.
  static constexpr std::size_t kMaxPendingGets = 256;
  static constexpr std::uint64_t kMaxPendingGetBytes = 8ull << 20;
  std::uint64_t pending_get_bytes_ = 0;
  struct PendingGet {
    void* req;
    int pe;
  };
  std::vector<PendingGet> pending_gets_;
  std::mutex mu_;
  int epoll_fd_ = -1, wake_fd_ = -1;  // the progress thread's epoll, and an eventfd to stop it
  std::atomic<bool> stop_{false};
  bool tcp_only_ = false;      // UCX_TLS is tcp alone: every delivery passes the progress thread
  std::uint64_t poll_ns_ = 0;  // TransportParams::poll_ns
  bool served_ = false;        // TransportParams::served
  // Served, UCX has CUDA, and SYMMETRA_UCX_CUDA is not 0: GPU heaps are registered with UCX,
  // puts and gets to them are UCX's RMA (its cuda_copy moves the bytes at both ends), atomics
  // stay served (UCX over TCP would run them with the target CPU's loads and stores).
  bool direct_ = false;
  bool cuda_memory_ = false;        // this UCX lists CUDA among its memory types
  std::uint64_t next_id_ = 1;       // mu_
  std::vector<Awaited*> awaited_;   // mu_
  std::list<Owed> owed_;            // mu_; a list: UCX holds pointers into its elements' data
  std::list<Awaited> served_gets_;  // mu_; a list: awaited_ and on_reply hold pointers
  std::thread progress_thread_;
};

}  // namespace symmetra::detail
