// HostFloats: a float vector whose resize() leaves new elements uninitialised, for buffers
// that are overwritten at once (readback of mapped device memory). With std::vector<float>
// the calling thread zero-fills every new page before the read and so takes all its page
// faults alone; reading 14 MiB from the BAR then runs at 1.6 GB/s instead of 4.2 to 6.7
// GB/s on the H200 host (bench/RESULTS.md, "Host read and verification").
#pragma once

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

}  // namespace repro
