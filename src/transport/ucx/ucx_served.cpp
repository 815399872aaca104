// The UCX transport's served mode (ucx_transport.hpp, docs/transports.md#ucx): gets and atomics
// as active messages that the target's handler answers from its own memory, so that UCX never
// touches this PE's memory through a key. What a GPU heap needs where UCX has no CUDA support
// (UCX cannot register device memory then); on host memory, SYMMETRA_UCX_SERVED=1 runs it for
// the tests.
//
// A request travels on the same endpoint as the puts before it, and the target serves its
// connection in order, so a get sees every earlier put of its initiator (quiet relies on that).
// The handler runs inside ucp_worker_progress, under mu_; it queues its reply, which
// send_replies sends once the progress has returned, never from inside it.
#include <algorithm>
#include <cstring>
#include <exception>

#include "core/word_copy.hpp"
#include "symmetra/device/impl/amo_impl.hpp"
#include "symmetra/device/impl/host_hooks.hpp"
#include "transport/ucx/ucx_transport.hpp"

namespace symmetra::detail {
namespace dd = device::detail;

ucs_status_t UcxTransport::on_serve(void* arg, const void* header, std::size_t header_length, void*,
                                    std::size_t, const ucp_am_recv_param_t*) {
  auto* t = static_cast<UcxTransport*>(arg);
  ServeHeader h;
  if (header_length != sizeof(h)) return UCS_OK;  // not ours
  std::memcpy(&h, header, sizeof(h));
  if (h.from < 0 || h.from >= t->n_ || t->peers_[h.from].ep == nullptr) return UCS_OK;
  auto* at = reinterpret_cast<std::byte*>(h.addr);
  ReplyHeader r{h.id, 0, 0};
  Owed o;
  o.pe = h.from;
  // Only what this PE registered, as for puts; an atomic's word aligned to its size.
  const bool word_ok = h.kind != kServeAtomic || (h.bytes != 0 && (h.addr % h.bytes) == 0);
  const Mine* mine = h.kind == kServeFlush ? nullptr : t->owner(at, h.bytes);
  if (h.kind == kServeFlush) {
    // The connection is served in order, so every earlier put was handed to its memory's store;
    // a store that completes later (a GPU heap's copy) completes now.
    for (const Mine& m : t->mine_)
      if (m.access != nullptr && m.access->flush != nullptr) m.access->flush(m.access->arg);
  } else if (mine == nullptr || !word_ok) {
    r.refused = 1;
  } else if (h.kind == kServeAtomic) {
    const auto op = static_cast<AmoOp>(h.op);
    const auto type = static_cast<DataType>(h.type);
    const HeapAccess* a = mine->access;
    r.value = a != nullptr ? a->amo(a->arg, at, op, type, h.value, h.cond)
                           : dd::amo_on_bits(at, op, type, h.value, h.cond);
  } else {
    // Whole words, as puts are stored: a get of an LL packet sees it whole.
    o.data.resize(h.bytes);
    if (const HeapAccess* a = mine->access)
      a->load(a->arg, o.data.data(), at, h.bytes);
    else
      load_words(o.data.data(), at, h.bytes);
  }
  o.header.resize(sizeof(r));
  std::memcpy(o.header.data(), &r, sizeof(r));
  t->owed_.push_back(std::move(o));
  return UCS_OK;
}

ucs_status_t UcxTransport::on_reply(void* arg, const void* header, std::size_t header_length,
                                    void* data, std::size_t length, const ucp_am_recv_param_t*) {
  auto* t = static_cast<UcxTransport*>(arg);
  ReplyHeader r;
  if (header_length != sizeof(r)) return UCS_OK;
  std::memcpy(&r, header, sizeof(r));
  const auto it = std::find_if(t->awaited_.begin(), t->awaited_.end(),
                               [&](const Awaited* a) { return a->id == r.id; });
  if (it == t->awaited_.end()) return UCS_OK;  // a request whose wait already ended the job
  Awaited& a = **it;
  a.refused = r.refused != 0;
  a.value = r.value;
  if (!a.refused && a.dest != nullptr) std::memcpy(a.dest, data, std::min(length, a.bytes));
  a.done = true;
  t->awaited_.erase(it);
  return UCS_OK;
}

void UcxTransport::send_replies() {
  for (auto it = owed_.begin(); it != owed_.end();) {
    if (it->req == nullptr) {  // not sent yet
      ucp_request_param_t rp{};
      rp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
      rp.flags = UCP_AM_SEND_FLAG_EAGER;  // the data in the message, never fetched later
      void* req = ucp_am_send_nbx(peers_[it->pe].ep, kAmReply, it->header.data(), it->header.size(),
                                  it->data.data(), it->data.size(), &rp);
      // An error: the requester is gone or going, and its wait ends on the job's stop or its
      // timeout; nothing here to tell.
      if (req == nullptr || UCS_PTR_IS_ERR(req)) {
        it = owed_.erase(it);
        continue;
      }
      it->req = req;
    }
    if (ucp_request_check_status(it->req) == UCS_INPROGRESS) {
      ++it;
      continue;
    }
    ucp_request_free(it->req);
    it = owed_.erase(it);
  }
}

void UcxTransport::send_request(const device::Context& ctl, const char* op, int pe, ServeHeader& h,
                                Awaited& a) {
  h.id = next_id_++;
  h.from = ctl.my_pe;
  a.id = h.id;
  a.pe = pe;
  a.addr = h.addr;
  a.bytes = h.kind == kServeGet ? h.bytes : 0;
  awaited_.push_back(&a);
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  rp.flags = UCP_AM_SEND_FLAG_EAGER;
  wait(ctl, op, pe, ucp_am_send_nbx(peers_[pe].ep, kAmServe, &h, sizeof(h), nullptr, 0, &rp));
}

void UcxTransport::await_reply(const device::Context& ctl, const char* op, Awaited& a) {
  (void)poll(ctl, op, a.pe, nullptr, &a.done);
  if (a.refused)
    dd::host_fatalf(ctl, op,
                    "PE %d refused %zu bytes at 0x%llx: not in memory it registered with the ucx "
                    "transport",
                    a.pe, a.bytes, static_cast<unsigned long long>(a.addr));
}

std::uint64_t UcxTransport::served_atomic(const device::Context& ctl, int pe, std::uint64_t addr,
                                          AmoOp op, DataType type, std::uint64_t value,
                                          std::uint64_t cond) {
  const ForgetOnThrow forget{*this};
  ServeHeader h{};
  h.addr = addr;
  h.bytes = static_cast<std::uint64_t>(data_type_size(type));
  h.value = value;
  h.cond = cond;
  h.kind = kServeAtomic;
  h.op = static_cast<std::uint8_t>(op);
  h.type = static_cast<std::uint8_t>(type);
  Awaited a;
  send_request(ctl, "atomic", pe, h, a);
  await_reply(ctl, "atomic", a);
  return a.value;
}

bool UcxTransport::complete_served_gets(const device::Context& ctl, const char* op) {
  if (served_gets_.empty()) return false;
  const ForgetOnThrow forget{*this};
  for (Awaited& a : served_gets_) await_reply(ctl, op, a);
  served_gets_.clear();
  return true;
}

}  // namespace symmetra::detail
