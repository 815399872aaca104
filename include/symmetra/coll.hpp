// The team collectives: one source for CPU threads and GPU kernels (docs/design.md §1.1). Device
// forms take a group, a device::Context and a team handle; Runtime has the host forms.
#pragma once

#include "symmetra/coll/allreduce.hpp"
#include "symmetra/coll/alltoall_direct.hpp"
#include "symmetra/coll/broadcast_direct.hpp"
#include "symmetra/coll/fcollect_direct.hpp"
#include "symmetra/coll/fcollect_ring.hpp"
#include "symmetra/coll/permute_signal.hpp"
#include "symmetra/coll/reduce_direct.hpp"
#include "symmetra/coll/reduce_op.hpp"
