// symmetra::ep for Python (kernels/moe, docs/moe.md): symmetra.jax's handlers (jax_moe.cpp) find
// their Dispatcher and their dispatches' routings here. One Dispatcher per config, made
// collectively at the first call with it (every PE runs the same program, so every PE makes it at
// the same call) and kept until finalize (release_moe). A dispatch's handle is kept by number
// for the calls that retrace it (combine, redispatch, the backward passes), the last kMoeKeep
// of them: numbers advance alike on every PE, so a number names the same dispatch everywhere.
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include "bindings/python/common.hpp"

namespace symmetra::python {
namespace {

using MoeKey = std::tuple<int, int, int, int, int, std::int64_t>;
std::map<MoeKey, std::unique_ptr<ep::Dispatcher>>* g_moe =
    new std::map<MoeKey, std::unique_ptr<ep::Dispatcher>>();
struct Kept {
  std::int32_t id;
  ep::Dispatcher* dispatcher;
  ep::Handle handle;
};
std::deque<Kept>* g_kept = new std::deque<Kept>();
std::int32_t g_next_id = 0;

}  // namespace

ep::Dispatcher& moe_of(Runtime& r, const ep::Config& c) {
  const MoeKey key{c.max_tokens,  c.hidden, static_cast<int>(c.type),
                   c.num_experts, c.top_k,  c.max_recv_rows};
  auto it = g_moe->find(key);
  if (it != g_moe->end()) return *it->second;
  auto d = std::make_unique<ep::Dispatcher>(r, r.team_world(), c);
  return *g_moe->emplace(key, std::move(d)).first->second;
}

std::int32_t moe_keep(ep::Dispatcher& d, ep::Handle h) {
  const std::int32_t id = g_next_id = g_next_id == INT32_MAX ? 1 : g_next_id + 1;
  g_kept->push_back({id, &d, std::move(h)});
  if (g_kept->size() > kMoeKeep) g_kept->pop_front();
  return id;
}

std::pair<ep::Dispatcher*, ep::Handle> moe_find(std::int32_t id, const char* op) {
  for (const Kept& k : *g_kept)
    if (k.id == id) return {k.dispatcher, k.handle};
  throw Error(std::string(op) + ": dispatch " + std::to_string(id) + " is not one of the last " +
              std::to_string(kMoeKeep) +
              " this process made: its routing is gone (docs/moe.md, Python)");
}

void release_moe() {
  g_kept->clear();
  g_moe->clear();  // collective, in the map's order: alike on every PE
}

}  // namespace symmetra::python
