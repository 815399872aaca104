// The host's remote branch through the proxy (docs/proxy.md): RemoteOps whose every operation
// is a request on the proxy's ring, posted by the calling host thread, instead of a call into
// the transport. The GPU's remote branch posts the same requests; this is how CI runs the ring
// protocol, with the API and collectives suites as its producers (SYMMETRA_PROXY=1).
//
// Threads: any thread of the PE, as RemoteOps says. Blocking forms wait (bounded) for their
// request to be done; p-sized puts travel inside the request and do not wait; fence posts and
// returns; quiet waits for the proxy's acknowledgement. A wait that fails ends the job with a
// message naming the ring position and the proxy's progress.
#pragma once

#include "proxy/proxy.hpp"
#include "symmetra/device/impl/remote.hpp"

namespace symmetra::detail {

// RemoteOps that post to `proxy` (which outlives them). `pe_host` is the caller's to fill, as
// for the direct path.
device::RemoteOps proxy_remote_ops(Proxy* proxy);

}  // namespace symmetra::detail
