// SHA-256 (FIPS 180-4), for the report's scenario file hash: the digest `sha256sum` prints,
// so a reader can check which file a report ran without repro. Computed by OpenSSL's EVP
// interface (libcrypto, linked statically so the binary carried to other machines needs no
// libcrypto of theirs), without the host's openssl.cnf: a configuration OpenSSL cannot apply
// (a provider not installed) must not stop a run. Vulkan-free, pure.
#pragma once

#include <string>
#include <string_view>

namespace repro {

// The SHA-256 digest of `bytes` as 64 lowercase hexadecimal digits (as sha256sum prints it).
// Throws std::runtime_error if OpenSSL cannot compute it (it can only run out of memory).
std::string sha256Hex(std::string_view bytes);

}  // namespace repro
