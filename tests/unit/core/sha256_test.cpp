// SHA-256 against FIPS 180-4's examples and HMAC-SHA256 against RFC 4231's test cases.
#include "core/sha256.hpp"

#include <gtest/gtest.h>

#include <string>

namespace symmetra::detail {
namespace {

std::string hex(const Digest& d) {
  static const char* x = "0123456789abcdef";
  std::string s;
  for (auto b : d) s += {x[b >> 4], x[b & 15]};
  return s;
}

TEST(Sha256, FipsExamples) {
  EXPECT_EQ(hex(sha256("abc", 3)),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex(sha256("", 0)), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const std::string two =
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";  // 56 bytes: two blocks
  EXPECT_EQ(hex(sha256(two.data(), two.size())),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const std::string million(1000000, 'a');
  EXPECT_EQ(hex(sha256(million.data(), million.size())),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, HmacRfc4231) {
  const std::string key1(20, '\x0b');
  EXPECT_EQ(hex(hmac_sha256(key1, "Hi There", 8)),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  const std::string data2 = "what do ya want for nothing?";
  EXPECT_EQ(hex(hmac_sha256("Jefe", data2.data(), data2.size())),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  const std::string key6(131, '\xaa');  // a key longer than a block is hashed first
  const std::string data6 = "Test Using Larger Than Block-Size Key - Hash Key First";
  EXPECT_EQ(hex(hmac_sha256(key6, data6.data(), data6.size())),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  const Digest a = hmac_sha256("k", "x", 1), b = hmac_sha256("k", "y", 1);
  EXPECT_TRUE(digests_equal(a, a));
  EXPECT_FALSE(digests_equal(a, b));
}

}  // namespace
}  // namespace symmetra::detail
