#!/usr/bin/env bash
# The installed package, used the way a user uses it: installs BUILD_DIR to a temporary prefix,
# builds examples/ out of tree against it with find_package(symmetra), runs the CPU examples
# with the prefix's symrun, and builds two of them again through pkg-config and symcc.
#   tests/install/install_test.sh BUILD_DIR
# The CUDA examples compile here when the build has CUDA; tools/gpu-check runs them.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
say() { echo "== $*"; }

say "install to $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
for f in bin/symrun bin/symcc bin/symc++ include/shmem.h include/symmetra/runtime.hpp \
         lib/cmake/symmetra/symmetraConfig.cmake lib/pkgconfig/symmetra.pc lib/pkgconfig/symmetra-shmem.pc; do
  [ -e "$prefix/$f" ] || { echo "install_test: $f is not installed" >&2; exit 1; }
done
# Nothing installed may point back into the source or build tree: the prefix must stand alone.
if grep -rlI -e "$src/" -e "$build" "$prefix" ; then
  echo "install_test: the files above name the source or build tree" >&2; exit 1
fi
# And it moves: everything below runs from a copy at another path.
mv "$prefix" "$work/moved"; prefix="$work/moved"

say "examples with find_package(symmetra)"
cmake -S "$src/examples" -B "$work/examples" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/examples" >"$work/build.log" || { cat "$work/build.log"; exit 1; }
# A build with CUDA, and nvcc here: the CUDA examples must have compiled against the package.
if grep -q 'symmetra_HAVE_CUDA ON' "$prefix/lib/cmake/symmetra/symmetraConfig.cmake" &&
   command -v nvcc >/dev/null; then
  for ex in 03_device_ring 04_stream_allreduce; do
    [ -x "$work/examples/$ex" ] || { echo "install_test: $ex did not build" >&2; exit 1; }
  done
  echo "the CUDA examples built (tools/gpu-check runs them)"
fi
run() {  # run NPES PROGRAM: under the installed symrun, bounded
  timeout 120 "$prefix/bin/symrun" -n "$1" "$2" || { echo "install_test: $2 on $1 PEs failed" >&2; exit 1; }
}
run 2 "$work/examples/01_hello"
run 4 "$work/examples/02_host_ring"
run 4 "$work/examples/05_openshmem"

say "02_host_ring through pkg-config"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046  # the flags are words
c++ -O1 "$src/examples/02_host_ring.cpp" -o "$work/ring_pc" $(pkg-config --cflags --libs symmetra)
run 3 "$work/ring_pc"

say "05_openshmem through symcc"
"$prefix/bin/symcc" -O1 "$src/examples/05_openshmem.c" -o "$work/shmem_cc"
run 3 "$work/shmem_cc"
echo "install_test: passed"
