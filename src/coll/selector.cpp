#include "coll/selector.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace symmetra::detail {

bool parse_algo(const std::string& name, coll::AllreduceAlgo* out) {
  for (int a = 0; a < coll::kAllreduceAlgos; ++a) {
    const auto algo = static_cast<coll::AllreduceAlgo>(a);
    if (name == coll::algo_name(algo)) {
      *out = algo;
      return true;
    }
  }
  return false;
}

Result<std::vector<Selector::Row>> Selector::parse_table(const std::string& text,
                                                         const std::string& where) {
  std::vector<Row> rows;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string op, name;
    Row r{};
    if (!(words >> op)) continue;
    if (op != "allreduce" || !(words >> r.size >> r.local >> r.max_bytes >> name) ||
        !parse_algo(name, &r.algo) || r.algo == coll::AllreduceAlgo::kAuto)
      return Status::fail(
          where + ":" + std::to_string(n) +
          ": expected 'allreduce <team size> <members per host> <max bytes> <algorithm>'");
    rows.push_back(r);
  }
  return rows;
}

Result<Selector> Selector::from_env() {
  Selector s;
  if (const char* v = std::getenv("SYMMETRA_ALGO"); v && *v) {
    std::string name = v;
    if (name.rfind("allreduce=", 0) == 0) name = name.substr(10);
    if (!parse_algo(name, &s.forced_))
      return Status::fail("SYMMETRA_ALGO='" + std::string(v) +
                          "' is not an algorithm (auto, one_shot, two_shot, recursive_doubling, "
                          "ll_two_shot, hierarchical, ring, put_ring, nccl)");
  }
  if (const char* f = std::getenv("SYMMETRA_TUNE_FILE"); f && *f) {
    std::ifstream in(f);
    if (!in) return Status::fail(std::string("SYMMETRA_TUNE_FILE='") + f + "' cannot be read");
    std::stringstream text;
    text << in.rdbuf();
    auto rows = parse_table(text.str(), f);
    SYMMETRA_TRY(rows);
    s.table_ = std::move(rows.value());
  }
  return s;
}

coll::AllreduceAlgo Selector::pick(const device::TeamDesc& team, std::size_t bytes,
                                   coll::Buffers buffers, bool gpu, bool nccl) const {
  using A = coll::AllreduceAlgo;
  const int local = coll::team_local(team);
  A algo = forced_;
  if (algo == A::kAuto) {
    // The first row for this team shape that covers the size (rows are in increasing max_bytes).
    for (const Row& r : table_)
      if (r.size == team.size && r.local == local && bytes <= r.max_bytes) {
        algo = r.algo;
        break;
      }
  }
  if (algo == A::kNccl && !nccl) algo = A::kAuto;  // a table or SYMMETRA_ALGO from elsewhere
  if (algo == A::kAuto)
    algo = nccl && gpu && bytes > kNcclAbove && bytes <= kNcclUpTo
               ? A::kNccl
               : coll::default_algo(team, bytes, gpu, buffers);
  // The direct and ring algorithms need symmetric buffers (apart, but for the ring), and so does
  // the put ring (apart). All but the put ring also need members reachable by load and store: a
  // table row or SYMMETRA_ALGO measured on one host must not send them across hosts. Where the
  // buffers do not allow the pick (in place, private), the LL two-shot runs, or across hosts the
  // hierarchy.
  const bool one_host = local == team.size;
  if ((coll::needs_load_store(algo) && !one_host) || !coll::takes_buffers(algo, buffers))
    algo = one_host ? A::kLLTwoShot : A::kHierarchical;
  return algo;
}

}  // namespace symmetra::detail
