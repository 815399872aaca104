// See blocked.hpp.
#include "core/blocked.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>
#include <vector>

#include "core/clock.hpp"

namespace symmetra::detail {
namespace {

// A fixed table, never freed: a report may run while threads come and go, and a slot outlives
// its thread's exit (it is handed back and may be taken by a later thread).
struct Slot {
  std::atomic<bool> taken{false};
  std::atomic<const char*> what{nullptr};
  std::atomic<const char*> hint{nullptr};
  std::atomic<int> pe{-1};
  std::atomic<std::uint64_t> since{0};
  std::atomic<const char*> name{"a thread"};
};
constexpr int kSlots = 512;
Slot g_slots[kSlots];

// The calling thread's slot, taken at its first mark or name and handed back at its exit;
// null if every slot is taken (that thread's marks are then not reported).
class ThreadSlot {
 public:
  ThreadSlot() {
    for (Slot& s : g_slots) {
      bool free = false;
      if (s.taken.compare_exchange_strong(free, true, std::memory_order_acq_rel)) {
        slot_ = &s;
        break;
      }
    }
  }
  ~ThreadSlot() {
    if (slot_ == nullptr) return;
    slot_->what.store(nullptr, std::memory_order_relaxed);
    slot_->name.store("a thread", std::memory_order_relaxed);
    slot_->taken.store(false, std::memory_order_release);
  }
  Slot* get() const { return slot_; }

 private:
  Slot* slot_ = nullptr;
};

Slot* my_slot() {
  thread_local ThreadSlot slot;
  return slot.get();
}

// Names live for the process, each once: a report may read one after its thread has ended.
const char* intern(const std::string& name) {
  static std::mutex mu;
  static auto* names = new std::set<std::string>();
  std::lock_guard<std::mutex> lock(mu);
  return names->insert(name).first->c_str();
}

}  // namespace

void name_this_thread(const std::string& name) {
  Slot* s = my_slot();
  if (s == nullptr) return;
  s->name.store(intern(name), std::memory_order_relaxed);
}

BlockedIn::BlockedIn(const char* what, int pe, const char* hint) {
  Slot* s = my_slot();
  if (s == nullptr) return;
  outer_what_ = s->what.load(std::memory_order_relaxed);
  outer_hint_ = s->hint.load(std::memory_order_relaxed);
  outer_pe_ = s->pe.load(std::memory_order_relaxed);
  outer_since_ = s->since.load(std::memory_order_relaxed);
  s->pe.store(pe, std::memory_order_relaxed);
  s->hint.store(hint, std::memory_order_relaxed);
  s->since.store(steady_ns(), std::memory_order_relaxed);
  s->what.store(what, std::memory_order_release);
}

BlockedIn::~BlockedIn() {
  Slot* s = my_slot();
  if (s == nullptr) return;
  s->pe.store(outer_pe_, std::memory_order_relaxed);
  s->hint.store(outer_hint_, std::memory_order_relaxed);
  s->since.store(outer_since_, std::memory_order_relaxed);
  s->what.store(outer_what_, std::memory_order_release);
}

std::string blocked_threads(std::uint64_t min_ns) {
  struct Mark {
    std::uint64_t since;
    std::string text;
    const char* hint;
  };
  std::vector<Mark> marks;
  const std::uint64_t now = steady_ns();
  for (const Slot& s : g_slots) {
    if (!s.taken.load(std::memory_order_acquire)) continue;
    const char* what = s.what.load(std::memory_order_acquire);
    if (what == nullptr) continue;
    const std::uint64_t since = s.since.load(std::memory_order_relaxed);
    if (since > now || now - since < min_ns) continue;
    const int pe = s.pe.load(std::memory_order_relaxed);
    char line[256];
    std::snprintf(line, sizeof line, "%s has been in %s%s for %.1f s",
                  s.name.load(std::memory_order_relaxed), what,
                  pe >= 0 ? (" (PE " + std::to_string(pe) + ")").c_str() : "",
                  static_cast<double>(now - since) / 1e9);
    marks.push_back({since, line, s.hint.load(std::memory_order_relaxed)});
  }
  std::sort(marks.begin(), marks.end(),
            [](const Mark& a, const Mark& b) { return a.since < b.since; });
  std::string out;
  std::set<std::string> hints;
  for (const Mark& m : marks) {
    out += (out.empty() ? "" : "; ") + m.text;
    if (m.hint != nullptr) hints.insert(m.hint);
  }
  for (const std::string& h : hints) out += ". " + h;
  return out;
}

std::string with_blocked_threads(std::string message, std::uint64_t min_ns) {
  const std::string blocked = blocked_threads(min_ns);
  if (!blocked.empty()) message += " (blocked: " + blocked + ")";
  return message;
}

}  // namespace symmetra::detail
