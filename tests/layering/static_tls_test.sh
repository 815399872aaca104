#!/usr/bin/env bash
# Each shared library's TLS block fits a small budget (docs/design.md#tls). A library with
# initial-exec TLS (flag STATIC_TLS: quiet()'s put_nbi targets, the observe hook's depth) takes
# its whole TLS block from static TLS, and one loaded by dlopen (a Python extension, nvshmem4py's
# libnvshmem_host.so) draws on glibc's surplus, about 1.5 KiB for every such module of the
# process. Past it, the import fails: "cannot allocate memory in static TLS block".
#   tests/layering/static_tls_test.sh BUDGET_BYTES LIBRARY...
set -uo pipefail
budget=${1:?usage: static_tls_test.sh BUDGET_BYTES LIBRARY...}
shift
[ $# -gt 0 ] || { echo "static_tls: no library named" >&2; exit 2; }
rc=0
for lib in "$@"; do
  [ -f "$lib" ] || { echo "static_tls: $lib does not exist" >&2; rc=1; continue; }
  hex=$(readelf -lW "$lib" | awk '$1 == "TLS" { print $6 }')  # MemSiz, 0x...
  size=$((${hex:-0}))
  static=$(readelf -dW "$lib" | grep -c 'STATIC_TLS')
  echo "static_tls: $(basename "$lib"): TLS block $size bytes, initial-exec: $([ "$static" -gt 0 ] && echo yes || echo no)"
  if [ "$static" -gt 0 ] && [ "$size" -gt "$budget" ]; then
    echo "static_tls: $lib's TLS block is $size bytes, over the budget of $budget;" \
      "list it with: readelf -sW $lib | awk '\$4==\"TLS\"' | sort -k3 -n | c++filt" >&2
    rc=1
  fi
done
exit $rc
