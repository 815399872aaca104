#!/bin/sh
# Every kernel of block_kernels.cu, compiled with the remote path (SYMMETRA_DEVICE_REMOTE=1) as
# NVSHMEM programs that reach other hosts are, fits in 64 registers a thread: else a block of
# 1024 threads fails to launch ("too many resources requested for launch"). Under -rdc a kernel
# gets the most registers of any function it calls, counted when nvlink links the device code.
#   block_registers.sh SRCDIR OUTDIR [NVCC]
set -eu
src=$1 out=$2 nvcc=${3:-nvcc}
mkdir -p "$out"
flags="-arch=sm_90 -std=c++17 -O3 -DSYMMETRA_DEVICE_REMOTE=1 -I$src/include"
failed=0
check() {  # check WHAT FILE: FILE holds "NAME REGISTERS" lines
  what=$1
  [ -s "$2" ] || { echo "FAIL: $what: no kernel's register count found"; failed=1; return; }
  while read -r name regs; do
    if [ "$regs" -gt 64 ]; then
      echo "FAIL: $what: $name uses $regs registers a thread (at most 64 for 1024 threads)"
      failed=1
    else
      echo "ok   $what: $name $regs registers"
    fi
  done <"$2"
}
# shellcheck disable=SC2086
"$nvcc" $flags -Xptxas -v -c "$src/tests/nvshmem/block_kernels.cu" -o "$out/whole.o" \
  >"$out/whole.log" 2>&1 || { cat "$out/whole.log"; exit 1; }
awk "/Compiling entry function/ { split(\$0, a, \"'\"); name = a[2] }
     /Used [0-9]+ registers/ && name != \"\" { for (i = 1; i <= NF; ++i) if (\$i == \"Used\") { print name, \$(i + 1); break }; name = \"\" }" \
  "$out/whole.log" >"$out/whole.txt"
check "whole program" "$out/whole.txt"
# shellcheck disable=SC2086
"$nvcc" $flags -rdc=true -c "$src/tests/nvshmem/block_kernels.cu" -o "$out/rdc.o" \
  >"$out/rdc.log" 2>&1 || { cat "$out/rdc.log"; exit 1; }
"$nvcc" -arch=sm_90 -dlink "$out/rdc.o" -o "$out/rdc_link.o" -Xnvlink --verbose \
  >"$out/link.log" 2>&1 || { cat "$out/link.log"; exit 1; }
awk "/Function properties for '_Z/ { split(\$0, a, \"'\"); name = a[2] }
     /used [0-9]+ registers/ && name != \"\" { for (i = 1; i <= NF; ++i) if (\$i == \"used\") { print name, \$(i + 1); break }; name = \"\" }" \
  "$out/link.log" >"$out/rdc.txt"
check "-rdc=true" "$out/rdc.txt"
if [ "$(wc -l <"$out/whole.txt")" -ne 3 ] || [ "$(wc -l <"$out/rdc.txt")" -ne 3 ]; then
  echo "FAIL: expected 3 kernels each way"
  failed=1
fi
[ $failed -eq 0 ] && echo PASS
exit $failed
