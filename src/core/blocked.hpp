// Where threads are blocked, for the messages of timeouts. A hang across PEs is a cycle of
// waits: the kernel waits for the proxy, the proxy for a transport call, the transport for a
// target whose progress thread waits for a GPU copy. The wait that times out is rarely the
// cause, so its message also lists every marked call that has lasted a while, on every thread
// of the process (docs/observability.md, "Blocked threads").
//
// Mark the calls that may block for long on threads that others depend on: the proxy thread's
// transport calls and staging copies, a progress thread's service of the GPU heap, a
// collective's launch. A mark costs a clock read and four stores; it is for paths of
// microseconds, not for the inline data path.
//
// Threads: any. A thread's marks nest (the innermost is reported). Names and reports are
// diagnostics: read without locks, a report may miss a mark that changes while it reads.
#pragma once

#include <cstdint>
#include <string>

namespace symmetra::detail {

// Names the calling thread in reports ("the proxy thread", "the UCX progress thread of PE 3");
// unnamed threads are "a thread". Copied, and kept for the process: use few distinct names.
void name_this_thread(const std::string& name);

// Marks the enclosing scope as blocked in `what` (a string literal), on behalf of PE `pe` (-1:
// none). `hint` (a string literal, or null) says what a user can do when this call is the one
// that blocks; a report gives each distinct hint once, after the marks.
class BlockedIn {
 public:
  BlockedIn(const char* what, int pe, const char* hint = nullptr);
  ~BlockedIn();
  BlockedIn(const BlockedIn&) = delete;
  BlockedIn& operator=(const BlockedIn&) = delete;

 private:
  // The mark this one hides, restored at its end (none where the thread has no slot).
  const char* outer_what_ = nullptr;
  const char* outer_hint_ = nullptr;
  int outer_pe_ = -1;
  std::uint64_t outer_since_ = 0;
};

// The marks of this process that have lasted at least `min_ns`, oldest first, as
// "the proxy thread has been in a staging copy (PE 3) for 19.8 s; ...", then their hints;
// empty if none.
std::string blocked_threads(std::uint64_t min_ns = 1000000000ull);

// `message`, followed by " (blocked: <blocked_threads(min_ns)>)" where there are such marks.
std::string with_blocked_threads(std::string message, std::uint64_t min_ns = 1000000000ull);

}  // namespace symmetra::detail
