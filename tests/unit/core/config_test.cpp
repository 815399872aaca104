#include "core/config.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace symmetra::detail {
namespace {

TEST(Config, ParsesSizes) {
  EXPECT_EQ(parse_size("4096").value(), 4096u);
  EXPECT_EQ(parse_size("64K").value(), 64u << 10);
  EXPECT_EQ(parse_size("3M").value(), 3u << 20);
  EXPECT_EQ(parse_size("2G").value(), 2ull << 30);
  EXPECT_EQ(parse_size("1GB").value(), 1ull << 30);
  EXPECT_FALSE(parse_size("lots").ok());
  EXPECT_FALSE(parse_size("12Q").ok());
}

TEST(Config, ReadsEnvironmentAndRejectsNonsense) {
  setenv("SYMMETRA_SYMMETRIC_SIZE", "8M", 1);
  setenv("SYMMETRA_TIMEOUT_S", "2.5", 1);
  setenv("SYMMETRA_CHECK", "0", 1);
  auto c = config_from_env();
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c.value().symmetric_size, 8u << 20);
  EXPECT_EQ(c.value().timeout_ns, 2500000000u);
  EXPECT_FALSE(c.value().check);
  setenv("SYMMETRA_TIMEOUT_S", "-1", 1);
  auto bad = config_from_env();
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("SYMMETRA_TIMEOUT_S"), std::string::npos);
  setenv("SYMMETRA_SYMMETRIC_SIZE", "huge", 1);
  setenv("SYMMETRA_TIMEOUT_S", "5", 1);
  auto bad_size = config_from_env();
  ASSERT_FALSE(bad_size.ok());
  EXPECT_NE(bad_size.status().message().find("SYMMETRA_SYMMETRIC_SIZE"), std::string::npos);
  setenv("SYMMETRA_SYMMETRIC_SIZE", "8M", 1);
  EXPECT_EQ(config_from_env().value().sync, Config::Sync::kAuto);
  setenv("SYMMETRA_SYNC", "central", 1);
  EXPECT_EQ(config_from_env().value().sync, Config::Sync::kCentral);
  setenv("SYMMETRA_SYNC", "dissemination", 1);
  EXPECT_EQ(config_from_env().value().sync, Config::Sync::kDissemination);
  setenv("SYMMETRA_SYNC", "fastest", 1);
  auto bad_sync = config_from_env();
  ASSERT_FALSE(bad_sync.ok());
  EXPECT_NE(bad_sync.status().message().find("SYMMETRA_SYNC='fastest'"), std::string::npos);
  unsetenv("SYMMETRA_SYNC");
}

TEST(Config, ReadsCpuCount) {
  unsetenv("SYMMETRA_CPUS");
  EXPECT_EQ(config_from_env().value().cpus, 0);  // 0: the runtime counts the online CPUs
  setenv("SYMMETRA_CPUS", "3", 1);
  EXPECT_EQ(config_from_env().value().cpus, 3);
  for (const char* bad : {"0", "-2", "two", "4x"}) {
    setenv("SYMMETRA_CPUS", bad, 1);
    auto c = config_from_env();
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_NE(c.status().message().find("SYMMETRA_CPUS='" + std::string(bad) + "'"),
              std::string::npos);
  }
  unsetenv("SYMMETRA_CPUS");
}

}  // namespace
}  // namespace symmetra::detail
