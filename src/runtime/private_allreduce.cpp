// Runtime::staged_allreduce: the host all-reduce of private buffers (any memory, as NumPy's
// through Python) over the world on the CPU backend, at the sizes where the selector picks an
// algorithm that needs symmetric buffers. Private NumPy buffers took the LL two-shot: 9-14x the
// symmetric all-reduce at 64 KiB - 4 MiB on 2-4 PEs (issue 44); docs/python.md#private-buffers
// has the rows of what replaced it.
#include <algorithm>
#include <cstring>

#include "core/log.hpp"
#include "runtime/planner.hpp"
#include "runtime/state.hpp"
#include "symmetra/coll/run.hpp"
#include "symmetra/runtime.hpp"

namespace symmetra {
namespace {

// The staging block's halves grow with the messages up to this; longer ones go in chunks.
constexpr std::size_t kStageMax = std::size_t{4} << 20;

// The two-shot over private buffers, for members that reach each other by loads and stores,
// through `stage` (this call's half of the symmetric block): each member stages every slice of
// its source but its own; reduces its own slice from its private source and the others' staged
// slices (in team order, so every member gets the same bits) into its dest and its staged slice;
// then reads the others' reduced slices into its dest. Against the symmetric two-shot: one copy
// of (m-1)/m of the message more, and the same two syncs. dest may be source.
// The halves alternate between calls: a member still reading a slice of this call's half cannot
// meet the next call's writes into it, which come after a sync that member has not reached.
template <class T>
void private_two_shot(const device::Context& ctx, int team, T* dest, const T* source, T* stage,
                      std::size_t nelems, coll::ReduceOp op) {
  namespace cd = coll::detail;
  const device::ThreadGroup g;
  const cd::TeamView t = cd::team_view(ctx, team, "allreduce");
  const coll::Part mine = coll::part_of(nelems, t.size(), t.rank(), coll::vec_elems<T>());
  const std::size_t after = mine.first + mine.count;
  std::memcpy(stage, source, mine.first * sizeof(T));
  std::memcpy(stage + after, source + after, (nelems - after) * sizeof(T));
  device::sync(g, ctx, team);  // every member's slices staged
  // Each block of results into a buffer in L1, then to dest and the stage: 10-20% faster than
  // into dest and from there to the stage (2 PEs, 1 MiB).
  T out[cd::kHostBlock<T>];
  cd::reduce_blocks_from<T>(
      t.size(),
      [&](int k) { return (k == t.rank() ? source : ctx.peer(stage, t.world(k))) + mine.first; },
      mine.count, op, [&](std::size_t) { return out; },
      [&](std::size_t b, const T* v, std::size_t n) {
        std::memcpy(dest + mine.first + b, v, n * sizeof(T));
        std::memcpy(stage + mine.first + b, v, n * sizeof(T));
      });
  device::sync(g, ctx, team);  // every slice reduced
  for (int k = 0; k < t.size(); ++k) {
    if (k == t.rank()) continue;
    const coll::Part p = coll::part_of(nelems, t.size(), k, coll::vec_elems<T>());
    std::memcpy(dest + p.first, ctx.peer(stage, t.world(k)) + p.first, p.count * sizeof(T));
  }
}

}  // namespace

bool Runtime::staged_allreduce(const coll::Call& c) {
  const std::size_t elem = data_type_size(c.type);
  const std::size_t total = c.nelems * elem;
  const std::size_t half = std::min(total, kStageMax) / elem * elem;
  if (s_->stage_half < half) {
    // Collective over the world, as the all-reduce is; every member sees the same sizes and
    // the same heap, so all make (or are refused) the block alike.
    if (s_->stage_refused) return false;
    try {
      void* block = allocate_aligned(64, 2 * half, "allreduce (staging)", 0);
      if (s_->stage != nullptr) free(s_->stage);
      s_->stage = static_cast<std::byte*>(block);
      s_->stage_half = half;
    } catch (const OutOfMemory&) {
      s_->stage_refused = true;
      SYMMETRA_LOG(kInfo, my_pe(),
                   "allreduce: no room for a %zu-byte staging block in the "
                   "symmetric heap: private buffers take the LL two-shot",
                   2 * half);
      return false;
    }
  }
  // Members on other hosts (through a transport) take the selector's algorithm on the staged
  // copy: source into one half, the result out of the other.
  bool direct = true;
  for (int pe = 0; pe < n_pes(); ++pe) direct = direct && ctx_.reachable(pe);
  auto* const dest = static_cast<std::byte*>(c.dest);
  const auto* const source = static_cast<const std::byte*>(c.source);
  for (std::size_t off = 0; off < total; off += s_->stage_half) {
    const std::size_t n = std::min(s_->stage_half, total - off);
    if (direct) {
      std::byte* const half_now = s_->stage + (s_->stage_parity ? s_->stage_half : 0);
      s_->stage_parity = !s_->stage_parity;
      visit_type(c.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        private_two_shot(ctx_, c.team, reinterpret_cast<T*>(dest + off),
                         reinterpret_cast<const T*>(source + off), reinterpret_cast<T*>(half_now),
                         n / elem, c.op);
      });
      continue;
    }
    // The previous chunk's call ended with every member past reading `in` (as any all-reduce
    // does before its source may change) and the next call starts with `out` free again.
    std::byte* const in = s_->stage;
    std::byte* const out = s_->stage + s_->stage_half;
    std::memcpy(in, source + off, n);
    coll::Call k = c;
    k.source = in;
    k.dest = out;
    k.nelems = n / elem;
    k.algo = s_->planner->allreduce_algo(c.team, n, coll::Buffers::kSeparate,
                                         coll::AllreduceAlgo::kAuto, c.type, c.op);
    host_collective(k);
    std::memcpy(dest + off, out, n);
  }
  return true;
}

}  // namespace symmetra
