#!/bin/sh
# NVSHMEM's environment variables (docs/nvshmem.md#environment): the host program under
# NVSHMEM_DEBUG=INFO (Symmetra's info log must appear), an unknown variable and two without a
# counterpart here (each named once for the job), and one that has no effect (not named).
#   env_test.sh BINDIR LIBDIR INCDIR SOURCE OUTDIR
set -eu
out=$5
NVSHMEM_DEBUG=INFO NVSHMEM_SYMMETRA_TEST_UNKNOWN=1 NVSHMEM_REMOTE_TRANSPORT=ibrc \
  NVSHMEM_DISABLE_P2P=1 NVSHMEM_DISABLE_NVLS=1 sh "$(dirname "$0")/run_host.sh" "$@" 2
log="$out/$(basename "$4" .c).2.log"
once() {
  got=$(grep -c "$1" "$log" || true)
  [ "$got" -eq "$2" ] || { echo "FAILED: '$1' appears $got times, want $2"; exit 1; }
}
once '^nvshmem_init: NVSHMEM_SYMMETRA_TEST_UNKNOWN is not a variable Symmetra knows' 1
once '^nvshmem_init: NVSHMEM_REMOTE_TRANSPORT=ibrc: no counterpart here' 1
once '^nvshmem_init: NVSHMEM_DISABLE_P2P: not supported' 1
once 'NVSHMEM_DISABLE_NVLS' 0
once 'symmetra info: joined a job of 2 PEs' 2
echo "PASS (environment)"
