#!/usr/bin/env bash
# The layer rules the compiler cannot see (docs/design.md §2; the build's per-layer include roots
# and runtime.hpp's #error catch the rest): includes in src/ are rooted ("heap/allocator.hpp",
# never "../"), and the Runtime is defined in src/runtime/ alone.
#   tests/layering/layering_test.sh SRC_DIR
set -uo pipefail
src=${1:?usage: layering_test.sh SRC_DIR}
rc=0
if grep -rnE '#include "\.\./' "$src"; then
  echo "layering: relative includes above; include \"layer/file.hpp\" instead" >&2; rc=1
fi
# A definition starts a line with its return type (or the class name for constructors).
if grep -rnE '^[A-Za-z_][A-Za-z0-9_:<>,* &]*\bRuntime::~?[A-Za-z_]+\(' "$src" \
     --include='*.cpp' --include='*.cu' --include='*.hpp' | grep -v "^$src/runtime/"; then
  echo "layering: Runtime members defined outside src/runtime/ (above)" >&2; rc=1
fi
[ $rc -eq 0 ] && echo "layering: ok"
exit $rc
