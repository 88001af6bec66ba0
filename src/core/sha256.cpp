// SHA-256 through OpenSSL's EVP_Digest (see sha256.hpp).
#include "core/sha256.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <array>
#include <stdexcept>

namespace repro {

std::string sha256Hex(std::string_view bytes) {
    // Left to itself, OpenSSL's first digest reads the host's openssl.cnf (one naming a provider
    // that is not installed made it fail: e2e.HostProblems) and loads every error string (half
    // of its 1 ms on a 2-core host, in each file run's set-up). A digest needs neither.
    static const bool initialised =
        OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS, nullptr) == 1;
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int size = 0;
    if (!initialised || EVP_Digest(bytes.data(), bytes.size(), digest.data(), &size, EVP_sha256(), nullptr) != 1 ||
        size != 32)
        throw std::runtime_error("SHA-256: OpenSSL's EVP_Digest failed");
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < size; ++i) {
        out += kHex[digest[i] >> 4];
        out += kHex[digest[i] & 0xf];
    }
    return out;
}

}  // namespace repro
