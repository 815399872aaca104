// One direction of the ring (ring_attention.hpp): messages to the next member land in one of its
// two buffers (message m in buffer m % 2) with signal value m; the next member returns a credit
// per message it has read, and message m waits for the credit of message m - 2, the last one in
// that buffer. Message numbers only grow, across calls: nothing is reset.
//
// Each operation has a host form (the CPU path: it blocks) and a stream form (the GPU path: it
// enqueues on a stream and returns). The two forms share the message counters, so one object
// must keep to one of them between barriers, as the ring does.
#pragma once

#include <cstddef>
#include <cstdint>

#include "symmetra/runtime.hpp"
#include "symmetra/stream.hpp"
#include "symmetra/team.hpp"

namespace symmetra::kernels {

struct Channel {
  Runtime& rt;
  int next = 0, prev = 0;  // world PEs
  std::size_t bytes = 0;   // one message
  std::byte* slot[2] = {nullptr, nullptr};
  std::uint64_t* words = nullptr;  // [signal 0, signal 1, credits]
  std::uint64_t sent = 0, received = 0;

  // Collective over the world (symmetric allocation). PEs outside the team allocate too, and
  // never send.
  Channel(Runtime& r, const Team& team, std::size_t message_bytes) : rt(r), bytes(message_bytes) {
    slot[0] = static_cast<std::byte*>(rt.allocate(2 * bytes));
    slot[1] = slot[0] + bytes;
    words = static_cast<std::uint64_t*>(rt.calloc(3, sizeof(std::uint64_t)));
    if (team.valid() && team.my_pe() >= 0) {
      const int n = team.n_pes(), me = team.my_pe();
      next = team.world_pe((me + 1) % n);
      prev = team.world_pe((me + n - 1) % n);
    }
  }
  ~Channel() {
    rt.free(words);
    rt.free(slot[0]);
  }
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // --- Host forms (CPU path). ---
  void send(const void* src) {
    const std::uint64_t m = ++sent;
    if (m > 2) rt.wait_until(&words[2], Cmp::kGe, m - 2);  // the next member read message m-2
    rt.putmem_signal(slot[m % 2], src, bytes, &words[m % 2], m, SignalOp::kSet, next);
  }
  const std::byte* receive() {
    const std::uint64_t m = ++received;
    rt.signal_wait_until(&words[m % 2], Cmp::kGe, m);
    return slot[m % 2];
  }
  // The oldest message received and not released may be overwritten. The atomic follows this
  // PE's reads of it (a sequentially consistent read-modify-write on the CPU backend).
  void release() { rt.atomic_add(&words[2], std::uint64_t{1}, prev); }

  // --- Stream forms (GPU path): enqueued on `s`, in its order. ---
  // A message of two parts, [a | b] (the message's size in all): the credit wait, a copy of a,
  // then b with the signal, so that the receiver sees both when it sees the signal.
  void send_on(const void* a, std::size_t a_bytes, const void* b, Stream s) {
    const std::uint64_t m = ++sent;
    if (m > 2) rt.signal_wait_until_on_stream(&words[2], Cmp::kGe, m - 2, s);
    if (a_bytes > 0) rt.putmem_on_stream(slot[m % 2], a, a_bytes, next, s);
    rt.putmem_signal_on_stream(slot[m % 2] + a_bytes, b, bytes - a_bytes, &words[m % 2], m,
                               SignalOp::kSet, next, s);
  }
  void send_on(const void* src, Stream s) { send_on(nullptr, 0, src, s); }
  // Holds `s` until the next message has arrived; returns where it lies.
  std::byte* receive_on(Stream s) {
    const std::uint64_t m = ++received;
    rt.signal_wait_until_on_stream(&words[m % 2], Cmp::kGe, m, s);
    return slot[m % 2];
  }
  // Once `s` reaches it: the credit for the oldest message received and not released.
  void release_on(Stream s) { rt.signal_op_on_stream(&words[2], 1, SignalOp::kAdd, prev, s); }
};

}  // namespace symmetra::kernels
