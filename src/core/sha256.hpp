// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), for the rendezvous's proof of the job's
// secret (docs/security.md). Small and not constant-time in the data; the secret is only ever
// hashed, and the verifier compares digests in constant time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace symmetra::detail {

using Digest = std::array<std::uint8_t, 32>;

Digest sha256(const void* data, std::size_t bytes);
Digest hmac_sha256(std::string_view key, const void* data, std::size_t bytes);
// Compares two digests in time independent of where they differ.
bool digests_equal(const Digest& a, const Digest& b);

}  // namespace symmetra::detail
