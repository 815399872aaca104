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
         lib/cmake/symmetra/symmetraConfig.cmake lib/pkgconfig/symmetra.pc lib/pkgconfig/symmetra-shmem.pc \
         bin/nvshmrun include/nvshmem.h include/nvshmemx.h lib/libnvshmem_host.so \
         lib/libnvshmem_device.a lib/cmake/nvshmem/NVSHMEMConfig.cmake; do
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
# A sanitized build (SYMMETRA_SANITIZER, CI's main one): the programs built here are not, and an
# uninstrumented program must load AddressSanitizer's runtime before an instrumented library.
# Only the runs get it: the compilers would be leak-checked too.
# The runtime is the one of the compiler that built the library, which the cache names.
cached() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
preload=()
if [[ $(cached SYMMETRA_SANITIZER) == *address* ]]; then
  preload=(env "LD_PRELOAD=$("$(cached CMAKE_CXX_COMPILER)" -print-file-name=libasan.so)")
fi
run() {  # run NPES PROGRAM: under the installed symrun, bounded
  "${preload[@]}" timeout 120 "$prefix/bin/symrun" -n "$1" "$2" ||
    { echo "install_test: $2 on $1 PEs failed" >&2; exit 1; }
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
# NVSHMEM's build contract (docs/nvshmem.md#building), on the CPU backend: a Makefile user's
# -I/-L/-lnvshmem_host -lnvshmem_device, find_package(NVSHMEM)'s targets, and nvshmrun.
say "an NVSHMEM host program through -lnvshmem_host -lnvshmem_device, under nvshmrun"
cc -std=c11 -O1 -I"$prefix/include" "$src/tests/nvshmem/host_prog.c" -o "$work/nv_make" \
   -L"$prefix/lib" -lnvshmem_host -lnvshmem_device -Wl,-rpath,"$prefix/lib"
SYMMETRA_BACKEND=cpu "${preload[@]}" timeout 120 "$prefix/bin/nvshmrun" -n 2 -ppn 2 "$work/nv_make" >"$work/nv_make.log" 2>&1 ||
  { cat "$work/nv_make.log"; echo "install_test: the NVSHMEM host program failed" >&2; exit 1; }
[ "$(grep -c 'all passed (2 PEs)' "$work/nv_make.log")" -eq 2 ] || { cat "$work/nv_make.log"; exit 1; }
say "an NVSHMEM project with find_package(NVSHMEM)"
cmake -S "$src/tests/install/nvshmem" -B "$work/nv_cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$prefix" >"$work/nv_configure.log" || { cat "$work/nv_configure.log"; exit 1; }
cmake --build "$work/nv_cmake" >"$work/nv_build.log" || { cat "$work/nv_build.log"; exit 1; }
SYMMETRA_BACKEND=cpu "${preload[@]}" timeout 120 "$prefix/bin/nvshmrun" -n 3 "$work/nv_cmake/host_coll" >"$work/nv_coll.log" 2>&1 ||
  { cat "$work/nv_coll.log"; echo "install_test: host_coll through find_package(NVSHMEM) failed" >&2; exit 1; }
[ "$(grep -c 'all passed (3 PEs)' "$work/nv_coll.log")" -eq 3 ] || { cat "$work/nv_coll.log"; exit 1; }
# -ppn as Hydra's: 4 PEs, 2 per host, so 2 (forced) hosts.
SYMMETRA_BACKEND=cpu SYMMETRA_LOG=info "${preload[@]}" timeout 120 "$prefix/bin/nvshmrun" -n 4 -ppn 2 \
  "$work/nv_cmake/host_coll" >"$work/nv_ppn.log" 2>&1 || { cat "$work/nv_ppn.log"; exit 1; }
[ "$(grep -c 'all passed (4 PEs)' "$work/nv_ppn.log")" -eq 4 ] &&
  grep -q 'joined a job of 4 PEs (processes) on 2 host(s)' "$work/nv_ppn.log" ||
  { cat "$work/nv_ppn.log"; echo "install_test: nvshmrun -ppn 2 did not make 2 hosts" >&2; exit 1; }
echo "install_test: passed"
