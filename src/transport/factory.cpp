// make_transport (transport/transport.hpp).
#include "transport/loopback/loopback_transport.hpp"
#include "transport/transport.hpp"

namespace symmetra::detail {

Result<std::unique_ptr<Transport>> make_transport(TransportKind kind,
                                                  const TransportParams& params) {
  switch (kind) {
    case TransportKind::kLoopback:
      return LoopbackTransport::connect(params);
  }
  return Status::fail("unknown transport");
}

}  // namespace symmetra::detail
