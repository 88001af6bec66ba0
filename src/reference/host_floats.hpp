// HostFloats: a float vector whose resize() leaves new elements uninitialised, for buffers
// that are overwritten at once (readback of mapped device memory). With std::vector<float>
// the calling thread zero-fills every new page before the read and so takes all its page
// faults alone; reading 14 MiB from the BAR then runs at 1.6 GB/s instead of 4.2 to 6.7
// GB/s on the H200 host (bench/RESULTS.md, "Host read and verification").
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace repro {

// std::allocator, except that value-initialisation (resize(n), vector(n)) becomes
// default-initialisation: trivially constructible elements keep whatever the memory holds.
template <typename T>
class DefaultInitAllocator : public std::allocator<T> {
  public:
    template <typename U>
    struct rebind {
        using other = DefaultInitAllocator<U>;
    };
    using std::allocator<T>::allocator;

    template <typename U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        std::construct_at(p, std::forward<Args>(args)...);
    }
};

// Elements of a host copy of a device buffer (floats; resize() does not zero them).
using HostFloats = std::vector<float, DefaultInitAllocator<float>>;

// A HostFloats of `elements` floats whose pages are already mapped: one float in every 4 KiB,
// and the last, is written (zero; the others keep what the memory held), so the page faults are taken
// here and not by the read that fills it later. Made on a background thread while the GPU
// runs a mode, it takes the faults off the readback's critical path (bench/RESULTS.md,
// "Set-up, readback and teardown"). Throws std::bad_alloc.
inline HostFloats prefaultedHostFloats(size_t elements) {
    HostFloats v;
    v.resize(elements);
    constexpr size_t kFloatsPerPage = 4096 / sizeof(float);
    for (size_t i = 0; i < v.size(); i += kFloatsPerPage) v[i] = 0.0f;
    if (!v.empty()) v.back() = 0.0f;  // the page the tail reaches when the data starts mid-page
    return v;
}

}  // namespace repro
