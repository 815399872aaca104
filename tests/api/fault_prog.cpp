// A PE program that fails in a chosen way, for fault_test (run under symrun).
//   fault_prog <case> [seconds, for idle and stubborn |
//                      victim (a PE, or host) kill|exit, for lost_while_waiting]
//   link_down: symrun -n 2 --hosts 2 --netns ..., under tools/netns-hosts
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "symmetra/runtime.hpp"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string c = argv[1];
  auto rt = symmetra::Runtime::init();
  const int me = rt->my_pe();
  auto* buf = rt->allocate_array<long>(16);
  long local[4] = {1, 2, 3, 4};
  rt->barrier_all();
  if (c == "exit_early") {
    if (me == 1) std::_Exit(3);
    rt->barrier_all();  // the others wait here for PE 1, which never comes
  } else if (c == "killed") {
    if (me == 1) raise(SIGKILL);
    rt->barrier_all();
  } else if (c == "bad_pe") {
    if (me == 0) rt->put(buf, local, 4, 5);
  } else if (c == "not_symmetric") {
    if (me == 0) rt->put(local, local, 4, 1);
  } else if (c == "past_end") {
    // The last 8 bytes of the heap are inside it; 16 bytes from there are not.
    std::byte* end = rt->device_context().heap_base + rt->heap_size();
    if (me == 0) rt->getmem(local, end - 8, 16, 1);
  } else if (c == "bad_pe_amo") {
    if (me == 0) (void)rt->atomic_fetch_add(buf, 1L, -1);
  } else if (c == "bad_pe_iget") {
    if (me == 0) rt->iget(local, buf, 1, 2, 2, 9);
  } else if (c == "not_symmetric_g") {
    if (me == 0) (void)rt->g(&local[1], 1);
  } else if (c == "not_symmetric_signal") {
    std::uint64_t sig = 0;
    if (me == 0) rt->putmem_signal(buf, local, 8, &sig, 1, symmetra::SignalOp::kSet, 1);
  } else if (c == "misaligned") {
    if (me == 0) rt->atomic_add(reinterpret_cast<long*>(reinterpret_cast<char*>(buf) + 4), 1L, 1);
  } else if (c == "wait_timeout") {
    // The others stay out of waits (which would time out too) until symrun ends them.
    if (me == 0) rt->wait_until(buf, symmetra::Cmp::kGe, 1L);
    sleep(30);
  } else if (c == "peer_fails_while_waiting") {
    if (me == 1) rt->put(buf, local, 4, 7);  // fails: PE 7 does not exist
    rt->barrier_all();                       // PE 0 waits here and must stop, not hang
  } else if (c == "lost_while_waiting") {
    // PE argv[2] is lost (argv[3]: kill = SIGKILL, exit = exit(3) without finalize) while the
    // others wait for a word nobody writes; each says how soon its wait stopped, and why.
    // Victim "host": every PE of the last PE's host (a machine lost).
    const std::string who = argc > 2 ? argv[2] : "1";
    const int victim = who == "host" ? rt->n_pes() - 1 : std::atoi(who.c_str());
    const std::string how = argc > 3 ? argv[3] : "kill";
    // A victim goes only once every survivor is past the barrier and has said so: a PE that
    // died inside it could stop a survivor before its wait, outside the handler below. Each
    // survivor adds 1 at every other PE, since it cannot name the victim's host-mates.
    if (me == victim || (who == "host" && rt->pe_local(victim))) {
      int lost = 0;
      for (int pe = 0; pe < rt->n_pes(); ++pe)
        lost += pe == me || (who == "host" && rt->pe_local(pe)) ? 1 : 0;
      try {  // a host-mate may go first: this one goes anyway
        rt->wait_until(buf + 1, symmetra::Cmp::kGe, static_cast<long>(rt->n_pes() - lost));
      } catch (const symmetra::JobStopped&) {
      }
      if (how == "exit") std::exit(3);
      raise(SIGKILL);
    }
    const auto t0 = std::chrono::steady_clock::now();
    try {
      for (int pe = 0; pe < rt->n_pes(); ++pe)
        if (pe != me) rt->atomic_add(buf + 1, 1L, pe);
      rt->quiet();
      rt->wait_until(buf, symmetra::Cmp::kGe, 1L);
      std::printf("pe %d: the wait returned\n", me);
    } catch (const symmetra::Error& e) {
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - t0)
                          .count();
      std::printf("pe %d stopped after %lld ms: %s\n", me, static_cast<long long>(ms), e.what());
    }
    std::fflush(stdout);
    return 1;
  } else if (c == "link_down") {
    // PE 1's host loses its link (its namespace's veth, sym0: tools/netns-hosts), then PE 0 reads
    // from it: the read ends at the timeout with a message naming PE 1, and PE 1's wait too.
    if (me == 1) {
      const char* ns = std::getenv("SYMMETRA_NETNS_PREFIX");
      if (ns == nullptr || *ns == '\0' || std::system("ip link set sym0 down") != 0) {
        std::printf("pe 1: cannot take the link down (no namespace of ours)\n");
        std::fflush(stdout);
        std::_Exit(4);
      }
      std::printf("pe 1: link down\n");
      std::fflush(stdout);
      rt->wait_until(buf, symmetra::Cmp::kGe, 1L);
    } else {
      usleep(300000);
      rt->getmem(local, buf, sizeof(local), 1);
      std::printf("pe 0: the read returned\n");
    }
  } else if (c == "idle") {  // every PE sleeps argv[2] seconds between two barriers
    sleep(argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 1);
  } else if (c == "stubborn") {  // as idle, ignoring SIGTERM (a PE stuck in a system call)
    std::signal(SIGTERM, SIG_IGN);
    std::printf("pe %d ignores SIGTERM\n", me);
    std::fflush(stdout);
    sleep(argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 1);
  } else {
    std::fprintf(stderr, "unknown case %s\n", c.c_str());
    return 2;
  }
  rt->barrier_all();
  rt->finalize();
  return 0;
}
