// A pause for host spin-waits: tells the core (and a hyperthread sibling) that this thread only
// polls. Threads: any.
#pragma once

namespace symmetra::detail {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace symmetra::detail
