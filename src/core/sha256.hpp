// SHA-256 (FIPS 180-4, "Secure Hash Standard", section 6.2), for the scenario report's file
// hash: the digest `sha256sum` prints, so a reader can check which file a report ran without
// repro. Written here from the standard because no library the project links computes it
// (fmt, nlohmann-json, toml++ and volk have none); adding OpenSSL or libgcrypt for one hash of
// a small text file would be a new dependency. Vulkan-free, pure.
#pragma once

#include <string>
#include <string_view>

namespace repro {

// The SHA-256 digest of `bytes` as 64 lowercase hexadecimal digits (as sha256sum prints it).
std::string sha256Hex(std::string_view bytes);

}  // namespace repro
