// Picks the all-reduce algorithm for a call (Runtime::allreduce_algo): SYMMETRA_ALGO forces one;
// else the table that symmetra-tune measured (SYMMETRA_TUNE_FILE) decides; else the built-in
// defaults (coll::default_algo). docs/selector.md has the file format and the defaults.
// Threads: read-only after construction.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "symmetra/coll/allreduce.hpp"
#include "symmetra/error.hpp"

namespace symmetra::detail {

// Parses an algorithm name (coll::algo_name); false if unknown.
bool parse_algo(const std::string& name, coll::AllreduceAlgo* out);

class Selector {
 public:
  struct Row {
    int size;               // team members
    int local;              // members per host
    std::size_t max_bytes;  // this row covers messages up to max_bytes
    coll::AllreduceAlgo algo;
  };
  Selector() = default;
  Selector(coll::AllreduceAlgo forced, std::vector<Row> table)
      : forced_(forced), table_(std::move(table)) {}
  // Reads SYMMETRA_ALGO and SYMMETRA_TUNE_FILE; a bad value is an error naming it.
  static Result<Selector> from_env();
  // Table rows from text: "allreduce <size> <local> <max_bytes> <algo>" per line, '#' comments.
  static Result<std::vector<Row>> parse_table(const std::string& text, const std::string& where);

  // buffers: how source and dest lie (the load/store algorithms need them symmetric, and apart
  // but for the ring); gpu: the GPU backend's defaults; nccl: NCCL can serve this team and this
  // type and operation.
  coll::AllreduceAlgo pick(const device::TeamDesc& team, std::size_t bytes, coll::Buffers buffers,
                           bool gpu, bool nccl = false) const;
  // Between these sizes (above kNcclAbove, up to kNcclUpTo) the defaults hand the all-reduce to
  // NCCL where it can serve. Measured on two NVLinked H200s, stream form (docs/selector.md):
  // LL recursive doubling with channels wins to 128 KiB (7.4 us against NCCL's 10-11), NCCL
  // at 512 KiB by a little (10.0-11.1 against the LL two-shot's 11.3), the one-shot with
  // channels from 2 MiB (16.8 against 28). XLA's rule (Symmetra below 16 MiB) predates both.
  static constexpr std::size_t kNcclAbove = std::size_t{256} << 10;
  static constexpr std::size_t kNcclUpTo = std::size_t{1} << 20;
  const std::vector<Row>& table() const { return table_; }

 private:
  coll::AllreduceAlgo forced_ = coll::AllreduceAlgo::kAuto;
  std::vector<Row> table_;
};

}  // namespace symmetra::detail
