#include "heap/static_data.hpp"

#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace symmetra::detail {
namespace {

std::string pe_prefix(const Bootstrap& bs) {
  return "[pe " + std::to_string(bs.pe()) + "] ";
}

// The main program is the first object dl_iterate_phdr reports.
int first_object(dl_phdr_info* info, std::size_t, void* out) {
  auto* r = static_cast<StaticRange*>(out);
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  std::uintptr_t lo = 0, hi = 0, relro_end = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    const std::uintptr_t start = info->dlpi_addr + ph.p_vaddr, end = start + ph.p_memsz;
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_W) && end > hi) {
      lo = start;
      hi = end;
    }
    if (ph.p_type == PT_GNU_RELRO) relro_end = end;
  }
  if (hi == 0) return 1;
  // RELRO pages (GOT, init arrays) become read-only after relocation: leave them private.
  if (relro_end > lo && relro_end <= hi) lo = relro_end;
  lo = (lo + page - 1) / page * page;
  hi = (hi + page - 1) / page * page;
  if (hi > lo) *r = {lo, hi - lo};
  return 1;  // stop after the main program
}

}  // namespace

StaticRange program_static_range() {
  StaticRange r;
  dl_iterate_phdr(first_object, &r);
  return r;
}

Status StaticData::create(Bootstrap& bs, const StaticRange& range, int fd, std::uint64_t offset) {
  // Same program on every PE: same extent (the addresses may differ, with ASLR).
  std::vector<std::uint64_t> sizes(static_cast<std::size_t>(bs.size()));
  SYMMETRA_TRY(bs.allgather(&range.bytes, sizes.data(), sizeof(range.bytes)));
  for (int i = 0; i < bs.size(); ++i)
    if (sizes[static_cast<std::size_t>(i)] != range.bytes)
      return Status::fail(
          pe_prefix(bs) + "PE " + std::to_string(i) + " has " +
          std::to_string(sizes[static_cast<std::size_t>(i)]) +
          " bytes of static data and this PE " + std::to_string(range.bytes) +
          ": every PE must run the same program for its static data to be symmetric");
  auto* lo = reinterpret_cast<std::byte*>(range.lo);
  // The current contents go into the window, then the window replaces the pages where they are.
  // The raw system call: the copy reads whole pages, padding between variables included, which
  // AddressSanitizer's pwrite interceptor would report as reads of global redzones.
  for (std::uint64_t done = 0; done < range.bytes;) {
    const auto w = static_cast<ssize_t>(syscall(SYS_pwrite64, fd, lo + done, range.bytes - done,
                                                static_cast<off_t>(offset + done)));
    if (w <= 0)
      return Status::fail(pe_prefix(bs) + "cannot copy the static data: " + std::strerror(errno));
    done += static_cast<std::uint64_t>(w);
  }
  if (mmap(lo, range.bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
           static_cast<off_t>(offset)) == MAP_FAILED)
    return Status::fail(pe_prefix(bs) +
                        "cannot remap the static data shared: " + std::strerror(errno));
  // Peers may read the window once every PE moved its data there.
  return bs.barrier();
}

}  // namespace symmetra::detail
