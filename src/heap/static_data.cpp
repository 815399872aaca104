#include "static_data.hpp"

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

std::string pe_prefix(const Bootstrap& bs) { return "[pe " + std::to_string(bs.rank()) + "] "; }

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

Result<std::unique_ptr<StaticData>> StaticData::create(Bootstrap& bs, const StaticRange& range,
                                                        const std::vector<std::byte*>& windows) {
  std::unique_ptr<StaticData> s(new StaticData());
  // Same program on every PE: same extent (the addresses may differ, with ASLR).
  std::vector<std::uint64_t> sizes(static_cast<std::size_t>(bs.size()));
  SYMMETRA_TRY(bs.allgather(&range.bytes, sizes.data(), sizeof(range.bytes)));
  for (int i = 0; i < bs.size(); ++i)
    if (sizes[static_cast<std::size_t>(i)] != range.bytes)
      return Status::fail(pe_prefix(bs) + "PE " + std::to_string(i) + " has " + std::to_string(sizes[static_cast<std::size_t>(i)]) +
                          " bytes of static data and this PE " + std::to_string(range.bytes) +
                          ": every PE must run the same program for its static data to be symmetric");
  auto* lo = reinterpret_cast<std::byte*>(range.lo);
  s->fd_ = memfd_create("symmetra-static", MFD_CLOEXEC);
  if (s->fd_ < 0) return Status::fail(pe_prefix(bs) + "memfd_create: " + std::strerror(errno));
  // The current contents go into the memfd, then the memfd replaces the pages where they are.
  // The raw system call: the copy reads whole pages, padding between variables included, which
  // AddressSanitizer's pwrite interceptor would report as reads of global redzones.
  for (std::uint64_t done = 0; done < range.bytes;) {
    const auto w = static_cast<ssize_t>(syscall(SYS_pwrite64, s->fd_, lo + done, range.bytes - done, static_cast<off_t>(done)));
    if (w <= 0) return Status::fail(pe_prefix(bs) + "cannot copy the static data: " + std::strerror(errno));
    done += static_cast<std::uint64_t>(w);
  }
  if (mmap(lo, range.bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, s->fd_, 0) == MAP_FAILED)
    return Status::fail(pe_prefix(bs) + "cannot remap the static data shared: " + std::strerror(errno));
  auto map_at = [&](int i, int fd) -> Status {
    if (mmap(windows[static_cast<std::size_t>(i)], range.bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
        MAP_FAILED)
      return Status::fail(pe_prefix(bs) + "cannot map the static data of PE " + std::to_string(i) + ": " +
                          std::strerror(errno));
    return {};
  };
  SYMMETRA_TRY(map_at(bs.rank(), s->fd_));
  SYMMETRA_TRY(bs.allgather_fds(s->fd_, &s->peer_fds_));
  for (int i = 0; i < bs.size(); ++i)
    if (i != bs.rank()) SYMMETRA_TRY(map_at(i, s->peer_fds_[static_cast<std::size_t>(i)]));
  SYMMETRA_TRY(bs.barrier());
  return s;
}

StaticData::~StaticData() {
  // The program's pages stay mapped (the program still uses them); only descriptors go.
  for (int fd : peer_fds_)
    if (fd >= 0) close(fd);
  if (fd_ >= 0) close(fd_);
}

}  // namespace symmetra::detail
