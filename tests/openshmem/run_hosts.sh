#!/bin/sh
# run_test.sh with the PEs on H forced hosts that reach each other through UCX over TCP, each
# host in a network namespace of its own where tools/netns-hosts can make them (else on
# loopback, which it says). The PEs meet as on separate machines: over TCP at host 0's
# address, where symrun hosts the rendezvous (in host 0's namespace), and each host's PEs on a
# Unix socket of their own.
#   run_hosts.sh H BINDIR SOURCE OUTDIR NPES...
set -eu
hosts=$1
here=$(dirname "$0")
shift
exec "$here/../../tools/netns-hosts" run "$hosts" -- sh -c '
  hosts=$1; shift
  args="--hosts $hosts --rendezvous tcp:$SYMMETRA_NETNS_HOST0"
  [ -n "$SYMMETRA_NETNS_PREFIX" ] && args="$args --netns $SYMMETRA_NETNS_PREFIX"
  SYMRUN_ARGS="$args" SYMMETRA_TRANSPORT=ucx exec sh "$0" "$@"' "$here/run_test.sh" "$hosts" "$@"
