#!/bin/sh
# Every function nvshmem.h and nvshmemx.h declare to C host code links against the library (a
# program taking each one's address, generated from the headers), and docs/nvshmem_names.md is
# what tools/nvshmem_names.py writes from the headers and NVSHMEM 3.4.5's list (with nvcc here).
#   names_test.sh SRCDIR LIBDIR OUTDIR
set -eu
src=$1 libdir=$2 out=$3
mkdir -p "$out"
python3 "$src/tools/nvshmem_names.py" --include "$src/include" --calls-c "$out/calls.c"
# shellcheck disable=SC2086 # SYMMETRA_TEST_CFLAGS: the build's sanitizer flag, or nothing
${CC:-cc} -std=c11 -O0 -Wall -Wextra -Werror ${SYMMETRA_TEST_CFLAGS:-} -I"$src/include" \
  -o "$out/calls" "$out/calls.c" -L"$libdir" -lsymmetra_nvshmem -Wl,-rpath,"$libdir"
"$out/calls"
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  python3 "$src/tools/nvshmem_names.py" --include "$src/include" \
    --doc "$src/docs/nvshmem_names.md" --check
  echo "docs/nvshmem_names.md is current"
else
  echo "(no nvcc: docs/nvshmem_names.md not checked)"
fi
echo PASS
