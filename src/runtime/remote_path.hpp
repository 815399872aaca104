// The Runtime's remote branch (remote_path.cpp): the RemoteOps that the device API calls for a
// PE that is not reachable by load and store, forwarding to `transport`.
#pragma once

#include "symmetra/device/impl/remote.hpp"
#include "transport/transport.hpp"

namespace symmetra::detail {

device::RemoteOps remote_ops(Transport* transport);

}  // namespace symmetra::detail
