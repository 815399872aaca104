// core/trace.hpp: lines are whole JSON objects, a "%p" names a file per PE, PEs sharing a file
// append without splitting each other's lines, and nothing is lost at flush.
#include "core/trace.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace symmetra::detail {
namespace {

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::string temp_name(const char* tag) {
  return "/tmp/symmetra-trace-test-" + std::to_string(getpid()) + "-" + tag;
}

TEST(TraceFileTest, WritesOneWholeLinePerRecord) {
  const std::string path = temp_name("pe%p.jsonl"), real = temp_name("pe3.jsonl");
  {
    auto t = TraceFile::open(path, 3);
    ASSERT_TRUE(t.ok()) << t.status().message();
    t.value()->record("put", 1, -1, 4096, "host", "remote", 12'500, 3'100);
    t.value()->record("allreduce", -1, 0, 32, "stream", "both", 20'000, 1'000'250);
  }  // the destructor flushes
  const auto lines = lines_of(real);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "{\"pe\":3,\"op\":\"put\",\"peer\":1,\"team\":-1,\"bytes\":4096,\"form\":\"host\","
            "\"path\":\"remote\",\"start_us\":12.500,\"us\":3.100}");
  EXPECT_EQ(lines[1],
            "{\"pe\":3,\"op\":\"allreduce\",\"peer\":-1,\"team\":0,\"bytes\":32,\"form\":"
            "\"stream\",\"path\":\"both\",\"start_us\":20.000,\"us\":1000.250}");
  std::remove(real.c_str());
}

// Two writers of one file (two PEs), from several threads each, past the buffer's size: every
// line arrives whole and once.
TEST(TraceFileTest, SharedFileKeepsLinesWhole) {
  const std::string path = temp_name("shared.jsonl");
  constexpr int kThreads = 4, kPerThread = 3000;
  {
    auto a = TraceFile::open(path, 0), b = TraceFile::open(path, 1);
    ASSERT_TRUE(a.ok() && b.ok());
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i)
      threads.emplace_back([&, i] {
        TraceFile& t = *(i % 2 ? b.value() : a.value());
        for (int k = 0; k < kPerThread; ++k)
          t.record("p", i, -1, static_cast<std::uint64_t>(k), "host", "local", k, 1);
      });
    for (auto& t : threads) t.join();
    a.value()->flush();
  }
  const auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), static_cast<std::size_t>(kThreads * kPerThread));
  std::set<std::pair<int, int>> seen;
  for (const auto& l : lines) {
    int pe = -1, peer = -1, team = 0;
    unsigned long long bytes = 0;
    ASSERT_EQ(
        std::sscanf(l.c_str(), "{\"pe\":%d,\"op\":\"p\",\"peer\":%d,\"team\":%d,\"bytes\":%llu,",
                    &pe, &peer, &team, &bytes),
        4)
        << l;
    ASSERT_EQ(l.back(), '}') << l;
    EXPECT_EQ(pe, peer % 2);
    EXPECT_TRUE(seen.insert({peer, static_cast<int>(bytes)}).second) << l;
  }
  std::remove(path.c_str());
}

TEST(TraceFileTest, UnopenableFileIsAClearError) {
  auto t = TraceFile::open("/nonexistent-dir/x.jsonl", 0);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("SYMMETRA_TRACE: cannot open '/nonexistent-dir/x.jsonl'"),
            std::string::npos)
      << t.status().message();
}

}  // namespace
}  // namespace symmetra::detail
