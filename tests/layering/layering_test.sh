#!/usr/bin/env bash
# The layer rules the compiler cannot see (docs/design.md §2; the build's per-layer include roots
# and runtime.hpp's #error catch the rest): includes in src/ and bindings/ are rooted
# ("heap/allocator.hpp", "bindings/shmem/state.hpp", never "../"), the Runtime is defined in
# src/runtime/ alone, the bindings live outside src/, above kernels/, and runtime.hpp compiles
# no collective algorithm into a program that only includes it (symmetra/collectives.hpp does).
#   tests/layering/layering_test.sh PROJECT_DIR
set -uo pipefail
top=${1:?usage: layering_test.sh PROJECT_DIR}
src=$top/src
rc=0
if grep -rnE '#include "\.\./' "$src" "$top/bindings" "$top/kernels"; then
  echo "layering: relative includes above; include \"layer/file.hpp\" instead" >&2; rc=1
fi
# A definition starts a line with its return type (or the class name for constructors).
if grep -rnE '^[A-Za-z_][A-Za-z0-9_:<>,* &]*\bRuntime::~?[A-Za-z_]+\(' "$src" "$top/bindings" \
     "$top/kernels" --include='*.cpp' --include='*.cu' --include='*.hpp' | grep -v "^$src/runtime/"; then
  echo "layering: Runtime members defined outside src/runtime/ (above)" >&2; rc=1
fi
# The bindings use ring attention's kernels, which sit above the library: under src/ they would
# be a layer of the library that depends on what depends on it.
if [ -e "$src/bindings" ]; then
  echo "layering: $src/bindings exists; the bindings live in bindings/, above kernels/" >&2; rc=1
fi
# What runtime.hpp brings of include/symmetra/coll/: a call's description, nothing that runs one.
if command -v "${CXX:-g++}" >/dev/null; then
  pulled=$(echo '#include "symmetra/runtime.hpp"' |
    "${CXX:-g++}" -std=c++20 -x c++ -I"$top/include" -H -fsyntax-only - 2>&1 |
    grep -oE 'symmetra/coll/[a-z_]+\.hpp' | sort -u |
    grep -vxE 'symmetra/coll/(call|allreduce_algo|reduce_op)\.hpp')
  if [ -n "$pulled" ]; then
    echo "layering: symmetra/runtime.hpp includes collective algorithms: $pulled" \
      "(their bodies belong in impl/runtime_coll_host.hpp, reached through collectives.hpp)" >&2
    rc=1
  fi
fi
[ $rc -eq 0 ] && echo "layering: ok"
exit $rc
