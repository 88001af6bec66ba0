// RAII owners for device-level Vulkan handles.
//
// Each owner destroys its handle when it goes out of scope, so objects declared in
// creation order are destroyed in reverse. After a wait timed out the GPU may still
// be using them; the device is then "abandoned" and owners leak instead of destroying
// (the process is about to exit, and destroying in-use objects is invalid: Vulkan
// spec, "Object Lifetime"). After VK_ERROR_DEVICE_LOST destruction is allowed once
// vkDeviceWaitIdle has returned (spec, "Lost Device"), so owners destroy normally.
#pragma once

#include <volk.h>

#include <utility>

namespace repro::vk {

static_assert(sizeof(void*) == 8, "handle overloads need distinct 64-bit handle types");

// Shared by every owner of one VkDevice.
struct DeviceLife {
    VkDevice device = VK_NULL_HANDLE;
    bool abandoned = false;  // set after a timed-out wait: leak, don't destroy
};

inline void destroyHandle(VkDevice d, VkBuffer h) { vkDestroyBuffer(d, h, nullptr); }
inline void destroyHandle(VkDevice d, VkDeviceMemory h) { vkFreeMemory(d, h, nullptr); }
inline void destroyHandle(VkDevice d, VkImage h) { vkDestroyImage(d, h, nullptr); }
inline void destroyHandle(VkDevice d, VkImageView h) { vkDestroyImageView(d, h, nullptr); }
inline void destroyHandle(VkDevice d, VkShaderModule h) { vkDestroyShaderModule(d, h, nullptr); }
inline void destroyHandle(VkDevice d, VkPipeline h) { vkDestroyPipeline(d, h, nullptr); }
inline void destroyHandle(VkDevice d, VkPipelineLayout h) { vkDestroyPipelineLayout(d, h, nullptr); }
inline void destroyHandle(VkDevice d, VkDescriptorSetLayout h) { vkDestroyDescriptorSetLayout(d, h, nullptr); }
inline void destroyHandle(VkDevice d, VkDescriptorUpdateTemplate h) {
    vkDestroyDescriptorUpdateTemplate(d, h, nullptr);
}
inline void destroyHandle(VkDevice d, VkDescriptorPool h) { vkDestroyDescriptorPool(d, h, nullptr); }
inline void destroyHandle(VkDevice d, VkCommandPool h) { vkDestroyCommandPool(d, h, nullptr); }
inline void destroyHandle(VkDevice d, VkSemaphore h) { vkDestroySemaphore(d, h, nullptr); }
inline void destroyHandle(VkDevice d, VkQueryPool h) { vkDestroyQueryPool(d, h, nullptr); }

// Owns one handle of type T created on `life->device`.
template <typename T>
class Owned {
  public:
    Owned() = default;
    Owned(const DeviceLife* life, T handle) : life_(life), handle_(handle) {}
    Owned(Owned&& other) noexcept : life_(other.life_), handle_(std::exchange(other.handle_, VK_NULL_HANDLE)) {}
    Owned& operator=(Owned&& other) noexcept {
        if (this != &other) {
            reset();
            life_ = other.life_;
            handle_ = std::exchange(other.handle_, VK_NULL_HANDLE);
        }
        return *this;
    }
    Owned(const Owned&) = delete;
    Owned& operator=(const Owned&) = delete;
    ~Owned() { reset(); }

    T get() const { return handle_; }
    explicit operator bool() const { return handle_ != VK_NULL_HANDLE; }

    void reset() {
        if (handle_ != VK_NULL_HANDLE && life_ && !life_->abandoned) {
            destroyHandle(life_->device, handle_);
        }
        handle_ = VK_NULL_HANDLE;
    }

  private:
    const DeviceLife* life_ = nullptr;
    T handle_ = VK_NULL_HANDLE;
};

}  // namespace repro::vk
