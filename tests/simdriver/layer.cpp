// VK_LAYER_REPRO_simulate: a Vulkan layer that makes the driver below it misbehave as
// REPRO_SIMULATE asks (tests/README.md, "The simulated driver"). This file holds the
// loader interface (Vulkan-Loader docs/LoaderLayerInterface.md at v1.3.239: version
// negotiation, call chains through VkLayerInstanceCreateInfo / VkLayerDeviceCreateInfo),
// instance and device creation, what the layer reports about the physical device, and
// the proc-address tables that decide which calls pass through the layer at all.
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "identity.hpp"
#include "layer_state.hpp"

namespace repro::simdriver::layer {

Globals& globals() {
    static Globals* g = new Globals;  // never destroyed: see layer_state.hpp
    return *g;
}

InstanceState* instanceOf(const void* dispatchable) {
    auto& all = globals().instances;
    const auto it = all.find(dispatchKey(dispatchable));
    return it == all.end() ? nullptr : it->second.get();
}

DeviceState* deviceOf(const void* dispatchable) {
    auto& all = globals().devices;
    const auto it = all.find(dispatchKey(dispatchable));
    return it == all.end() ? nullptr : it->second.get();
}

Nanoseconds monotonicNow() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return Nanoseconds{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

void sleepUntil(Nanoseconds when) {
    if (when == kNever) return;
    const timespec t{.tv_sec = static_cast<time_t>(when / 1'000'000'000),
                     .tv_nsec = static_cast<long>(when % 1'000'000'000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, nullptr) == EINTR) {
    }
}

namespace {

// Where trace lines go: nowhere, stderr, or a file (REPRO_SIMULATE_TRACE).
struct TraceTarget {
    bool on = false;
    std::string path;  // empty: stderr
};

const TraceTarget& traceTarget() {
    static const TraceTarget target = [] {
        const char* v = std::getenv("REPRO_SIMULATE_TRACE");
        if (!v || !*v || std::strcmp(v, "0") == 0) return TraceTarget{};
        if (std::strcmp(v, "1") == 0 || std::strcmp(v, "stderr") == 0) {
            return TraceTarget{.on = true, .path = {}};
        }
        return TraceTarget{.on = true, .path = v};
    }();
    return target;
}

}  // namespace

bool tracing() { return traceTarget().on; }

void trace(const char* format, ...) {
    const TraceTarget& t = traceTarget();
    if (!t.on) return;
    char text[1024];
    va_list args;
    va_start(args, format);
    std::vsnprintf(text, sizeof text, format, args);
    va_end(args);
    FILE* out = t.path.empty() ? stderr : std::fopen(t.path.c_str(), "a");
    if (!out) return;
    std::fprintf(out, "repro-simulate: %s\n", text);
    if (out != stderr) std::fclose(out);
}

uint32_t groupsOf(const Config& c) {
    uint32_t g = 0;
    if (c.identity || c.api10) g |= kProperties;
    if (c.identity && c.identity->pci) g |= kPciExtension;
    if (RecordRules::from(c).any() || c.stale) g |= kRecording;
    if (c.cost()) g |= kClockGroup | kLoss;
    if (c.lost) g |= kLoss;
    if (c.stale) g |= kStale;
    if (c.dropTransfers || c.lostTransitions) g |= kRecording | kTransfers;
    if (c.weakBarriers) g |= kRecording | kStale | kWeakBarriers;
    if (c.secondFamily) g |= kFamilies;
    if (c.deviceFault) g |= kDeviceFault;
    if (c.noStorageImages) g |= kFormats;
    return g;
}

bool active(const Intercept& intercept, const Config& config, uint32_t groups) {
    if (intercept.groups == kAlways) return true;
    if (intercept.groups & groups) return true;
    if (!intercept.faultCall) return false;
    for (const std::optional<Fault>& f : {config.processFault, config.lost}) {
        if (f && f->call == *intercept.faultCall) return true;
    }
    return false;
}

namespace {

const Identity* identityOf(const InstanceState& s) { return s.config->identity ? &*s.config->identity : nullptr; }

template <typename Info, typename Link>
Link* findLink(const Info* info, VkStructureType type) {
    for (auto* p = static_cast<const VkBaseInStructure*>(info->pNext); p; p = p->pNext) {
        if (p->sType != type) continue;
        auto* link = reinterpret_cast<Link*>(const_cast<VkBaseInStructure*>(p));
        if (link->function == VK_LAYER_LINK_INFO) return link;
    }
    return nullptr;
}

template <typename Fn>
void load(Fn& fn, PFN_vkGetInstanceProcAddr gipa, VkInstance instance, const char* name) {
    fn = reinterpret_cast<Fn>(gipa(instance, name));
}

InstanceDispatch loadInstance(PFN_vkGetInstanceProcAddr gipa, VkInstance instance) {
    InstanceDispatch d;
    d.getInstanceProcAddr = gipa;
    load(d.destroyInstance, gipa, instance, "vkDestroyInstance");
    load(d.enumeratePhysicalDevices, gipa, instance, "vkEnumeratePhysicalDevices");
    load(d.getPhysicalDeviceProperties, gipa, instance, "vkGetPhysicalDeviceProperties");
    load(d.getPhysicalDeviceProperties2, gipa, instance, "vkGetPhysicalDeviceProperties2");
    load(d.getPhysicalDeviceProperties2KHR, gipa, instance, "vkGetPhysicalDeviceProperties2KHR");
    load(d.enumerateDeviceExtensionProperties, gipa, instance, "vkEnumerateDeviceExtensionProperties");
    load(d.getPhysicalDeviceQueueFamilyProperties, gipa, instance, "vkGetPhysicalDeviceQueueFamilyProperties");
    d.getPhysicalDeviceQueueFamilyProperties2 = reinterpret_cast<PFN_vkGetPhysicalDeviceQueueFamilyProperties2>(
        gipa(instance, "vkGetPhysicalDeviceQueueFamilyProperties2"));
    load(d.getPhysicalDeviceMemoryProperties, gipa, instance, "vkGetPhysicalDeviceMemoryProperties");
    load(d.getPhysicalDeviceFormatProperties, gipa, instance, "vkGetPhysicalDeviceFormatProperties");
    load(d.getPhysicalDeviceFeatures2, gipa, instance, "vkGetPhysicalDeviceFeatures2");
    load(d.getPhysicalDeviceFeatures2KHR, gipa, instance, "vkGetPhysicalDeviceFeatures2KHR");
    return d;
}

// The error of identity:api= above what a device below supports: a layer cannot add the
// entry points of a newer Vulkan (patch versions add none, so only major.minor count).
std::string apiAboveDriver(const InstanceDispatch& next, VkInstance instance, uint32_t wanted) {
    uint32_t count = 0;
    if (next.enumeratePhysicalDevices(instance, &count, nullptr) != VK_SUCCESS) return {};
    std::vector<VkPhysicalDevice> devices(count);
    if (next.enumeratePhysicalDevices(instance, &count, devices.data()) != VK_SUCCESS) return {};
    for (uint32_t i = 0; i < count; ++i) {
        VkPhysicalDeviceProperties p{};
        next.getPhysicalDeviceProperties(devices[i], &p);
        const uint32_t have =
            VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(p.apiVersion), VK_API_VERSION_MINOR(p.apiVersion), 0);
        if (VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(wanted), VK_API_VERSION_MINOR(wanted), 0) > have) {
            return "identity: api=" + std::to_string(VK_API_VERSION_MAJOR(wanted)) + "." +
                   std::to_string(VK_API_VERSION_MINOR(wanted)) + "." + std::to_string(VK_API_VERSION_PATCH(wanted)) +
                   " is above device " + std::to_string(i) + " ('" + p.deviceName + "', Vulkan " +
                   std::to_string(VK_API_VERSION_MAJOR(p.apiVersion)) + "." +
                   std::to_string(VK_API_VERSION_MINOR(p.apiVersion)) +
                   "): a layer cannot add a newer Vulkan's entry points";
        }
    }
    return {};
}

VKAPI_ATTR VkResult VKAPI_CALL simCreateInstance(const VkInstanceCreateInfo* info,
                                                 const VkAllocationCallbacks* allocator, VkInstance* instance) {
    auto* link =
        findLink<VkInstanceCreateInfo, VkLayerInstanceCreateInfo>(info, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
    if (!link || !link->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
    const PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    const char* text = std::getenv("REPRO_SIMULATE");
    const ParseResult parsed = parseSimulate(text ? text : "");
    if (!parsed.config) {
        std::fprintf(stderr, "%s\n", parsed.error.c_str());
        std::fflush(stderr);
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    const auto create = reinterpret_cast<PFN_vkCreateInstance>(gipa(VK_NULL_HANDLE, "vkCreateInstance"));
    if (!create) return VK_ERROR_INITIALIZATION_FAILED;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;  // the next layer's create finds its own link
    const VkResult r = create(info, allocator, instance);
    if (r != VK_SUCCESS) return r;
    auto state = std::make_unique<InstanceState>();
    state->handle = *instance;
    state->next = loadInstance(gipa, *instance);
    const std::optional<CuredBy>& cure = parsed.config->curedBy;
    const char* toggles = cure ? std::getenv(cure->variable.c_str()) : nullptr;
    state->config = std::make_shared<const Config>(
        cured(*parsed.config, toggles ? std::optional<std::string_view>(toggles) : std::nullopt));
    state->groups = groupsOf(*state->config);
    const Config& c = *state->config;
    trace("loaded (pid %d); REPRO_SIMULATE%s%s%s", static_cast<int>(getpid()), text && *text ? "='" : " unset",
          text && *text ? text : ": every call passes through unchanged", text && *text ? "'" : "");
    if (cure && toggles && optionListed(toggles, cure->option)) {
        trace("%s='%s' names '%s': the simulated wrong result is cured", cure->variable.c_str(), toggles,
              cure->option.c_str());
    }
    std::lock_guard lock(globals().mutex);
    if (!globals().faults) globals().faults = std::make_unique<FaultCounter>(c.processFault, c.lost);
    globals().instances[dispatchKey(*instance)] = std::move(state);
    return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL simDestroyInstance(VkInstance instance, const VkAllocationCallbacks* allocator) {
    std::unique_ptr<InstanceState> state;
    {
        std::lock_guard lock(globals().mutex);
        auto it = globals().instances.find(dispatchKey(instance));
        if (it == globals().instances.end()) return;
        state = std::move(it->second);
        globals().instances.erase(it);
    }
    state->next.destroyInstance(instance, allocator);
}

// Also where identity:api= is checked against the driver: the devices are known only
// once the instance exists, and a layer cannot fail vkCreateInstance after the layers and
// driver below created theirs (Vulkan-Loader 1.3.239's vkCreateInstance then frees what
// the destruction already freed), so the line comes here, with the same form.
VKAPI_ATTR VkResult VKAPI_CALL simEnumeratePhysicalDevices(VkInstance instance, uint32_t* count,
                                                           VkPhysicalDevice* devices) {
    InstanceState* s = nullptr;
    {
        std::lock_guard lock(globals().mutex);
        s = instanceOf(instance);
    }
    const VkResult fault = faultBefore(FaultCall::EnumeratePhysicalDevices, nullptr);
    if (fault != VK_SUCCESS) return fault;
    const Config& c = *s->config;
    if (c.identity && c.identity->apiVersion) {
        const std::string error = apiAboveDriver(s->next, instance, *c.identity->apiVersion);
        if (!error.empty()) {
            const char* text = std::getenv("REPRO_SIMULATE");
            std::fprintf(stderr, "repro-simulate: REPRO_SIMULATE='%s': %s\n", text ? text : "", error.c_str());
            std::fflush(stderr);
            return VK_ERROR_INITIALIZATION_FAILED;
        }
    }
    return s->next.enumeratePhysicalDevices(instance, count, devices);
}

InstanceState* lockedInstance(const void* handle) {
    std::lock_guard lock(globals().mutex);
    return instanceOf(handle);
}

VKAPI_ATTR void VKAPI_CALL simGetPhysicalDeviceProperties(VkPhysicalDevice device, VkPhysicalDeviceProperties* p) {
    InstanceState* s = lockedInstance(device);
    s->next.getPhysicalDeviceProperties(device, p);
    applyIdentity(identityOf(*s), s->config->api10, *p);
}

// no-storage-images: the driver's format properties without STORAGE_IMAGE_BIT.
VKAPI_ATTR void VKAPI_CALL simGetPhysicalDeviceFormatProperties(VkPhysicalDevice device, VkFormat format,
                                                                VkFormatProperties* p) {
    InstanceState* s = lockedInstance(device);
    s->next.getPhysicalDeviceFormatProperties(device, format, p);
    p->linearTilingFeatures &= ~VkFormatFeatureFlags{VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT};
    p->optimalTilingFeatures &= ~VkFormatFeatureFlags{VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT};
}

// Whether the driver below lists VK_EXT_pci_bus_info for `device`.
bool driverHasPciBusInfo(const InstanceState& s, VkPhysicalDevice device) {
    uint32_t count = 0;
    if (s.next.enumerateDeviceExtensionProperties(device, nullptr, &count, nullptr) != VK_SUCCESS) {
        return false;
    }
    std::vector<VkExtensionProperties> list(count);
    if (s.next.enumerateDeviceExtensionProperties(device, nullptr, &count, list.data()) != VK_SUCCESS) {
        return false;
    }
    for (const auto& e : list) {
        if (std::strcmp(e.extensionName, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME) == 0) return true;
    }
    return false;
}

// vkGetPhysicalDeviceProperties2 (and the KHR alias, through `next`): the driver fills the
// chain, without VkPhysicalDevicePCIBusInfoPropertiesEXT when pci= is simulated on a
// driver that lacks the extension (it is unlinked for the call), then the identity is
// applied.
void properties2(VkPhysicalDevice device, VkPhysicalDeviceProperties2* p, PFN_vkGetPhysicalDeviceProperties2 next) {
    InstanceState* s = lockedInstance(device);
    VkBaseOutStructure* before = nullptr;
    VkBaseOutStructure* pci = nullptr;
    if ((s->groups & kPciExtension) && !driverHasPciBusInfo(*s, device)) {
        for (auto* prev = reinterpret_cast<VkBaseOutStructure*>(p); prev->pNext; prev = prev->pNext) {
            if (prev->pNext->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT) {
                before = prev;
                pci = prev->pNext;
                before->pNext = pci->pNext;
                break;
            }
        }
    }
    next(device, p);
    if (before) before->pNext = pci;
    applyIdentity(identityOf(*s), s->config->api10, *p);
}

VKAPI_ATTR void VKAPI_CALL simGetPhysicalDeviceProperties2(VkPhysicalDevice device, VkPhysicalDeviceProperties2* p) {
    properties2(device, p, lockedInstance(device)->next.getPhysicalDeviceProperties2);
}

VKAPI_ATTR void VKAPI_CALL simGetPhysicalDeviceProperties2KHR(VkPhysicalDevice device, VkPhysicalDeviceProperties2* p) {
    properties2(device, p, lockedInstance(device)->next.getPhysicalDeviceProperties2KHR);
}

// The driver's device extensions plus VK_EXT_pci_bus_info (identity with pci=); the
// layer itself provides no extension under its own name.
VKAPI_ATTR VkResult VKAPI_CALL simEnumerateDeviceExtensionProperties(VkPhysicalDevice device, const char* layerName,
                                                                     uint32_t* count,
                                                                     VkExtensionProperties* properties) {
    InstanceState* s = lockedInstance(device);
    if (layerName && std::strcmp(layerName, kLayerName) == 0) {
        *count = 0;
        return VK_SUCCESS;
    }
    if (layerName) return s->next.enumerateDeviceExtensionProperties(device, layerName, count, properties);
    uint32_t n = 0;
    VkResult r = s->next.enumerateDeviceExtensionProperties(device, nullptr, &n, nullptr);
    if (r != VK_SUCCESS) return r;
    std::vector<VkExtensionProperties> list(n);
    r = s->next.enumerateDeviceExtensionProperties(device, nullptr, &n, list.data());
    if (r != VK_SUCCESS) return r;
    list.resize(n);
    if (s->groups & kPciExtension) list = withPciBusInfo(std::move(list));
    if (s->config->deviceFault) {
        VkExtensionProperties fault{};
        std::strcpy(fault.extensionName, VK_EXT_DEVICE_FAULT_EXTENSION_NAME);
        fault.specVersion = VK_EXT_DEVICE_FAULT_SPEC_VERSION;
        list.push_back(fault);
    }
    if (!properties) {
        *count = static_cast<uint32_t>(list.size());
        return VK_SUCCESS;
    }
    const uint32_t copied = std::min<uint32_t>(*count, static_cast<uint32_t>(list.size()));
    std::memcpy(properties, list.data(), copied * sizeof(VkExtensionProperties));
    *count = copied;
    return copied < list.size() ? VK_INCOMPLETE : VK_SUCCESS;
}

// vkGetPhysicalDeviceFeatures2 (and the KHR alias, through `next`) with device-fault: the
// driver fills the chain (it skips the fault struct, unknown to it), then deviceFault is on.
void features2(VkPhysicalDevice device, VkPhysicalDeviceFeatures2* f, PFN_vkGetPhysicalDeviceFeatures2 next) {
    next(device, f);
    for (auto* p = reinterpret_cast<VkBaseOutStructure*>(f); p; p = p->pNext) {
        if (p->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FAULT_FEATURES_EXT)
            reinterpret_cast<VkPhysicalDeviceFaultFeaturesEXT*>(p)->deviceFault = VK_TRUE;
    }
}

VKAPI_ATTR void VKAPI_CALL simGetPhysicalDeviceFeatures2(VkPhysicalDevice device, VkPhysicalDeviceFeatures2* f) {
    features2(device, f, lockedInstance(device)->next.getPhysicalDeviceFeatures2);
}

VKAPI_ATTR void VKAPI_CALL simGetPhysicalDeviceFeatures2KHR(VkPhysicalDevice device, VkPhysicalDeviceFeatures2* f) {
    features2(device, f, lockedInstance(device)->next.getPhysicalDeviceFeatures2KHR);
}

// vkGetDeviceFaultInfoEXT with device-fault: one description, no address, vendor or binary
// record (the layer cannot know where a real fault was).
VKAPI_ATTR VkResult VKAPI_CALL simGetDeviceFaultInfoEXT(VkDevice, VkDeviceFaultCountsEXT* counts,
                                                        VkDeviceFaultInfoEXT* info) {
    counts->addressInfoCount = 0;
    counts->vendorInfoCount = 0;
    counts->vendorBinarySize = 0;
    if (info) std::snprintf(info->description, sizeof info->description, "repro-simulate: a simulated device fault");
    return VK_SUCCESS;
}

// The driver's own number of queue families.
uint32_t driverFamilyCount(const InstanceState& s, VkPhysicalDevice physical) {
    uint32_t families = 0;
    s.next.getPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
    return families;
}

// second-family: the driver's families, then one more: COMPUTE|TRANSFER, one queue, family
// 0's timestamp bits (Vulkan spec "Queue Family Properties": the two-call idiom, VK_INCOMPLETE
// when the array is short).
std::vector<VkQueueFamilyProperties> familiesWithAdded(const InstanceState& s, VkPhysicalDevice physical) {
    uint32_t count = driverFamilyCount(s, physical);
    std::vector<VkQueueFamilyProperties> list(count);
    s.next.getPhysicalDeviceQueueFamilyProperties(physical, &count, list.data());
    VkQueueFamilyProperties added{.queueFlags = VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT,
                                  .queueCount = 1,
                                  .timestampValidBits = list.empty() ? 0u : list[0].timestampValidBits,
                                  .minImageTransferGranularity = {1, 1, 1}};
    list.push_back(added);
    return list;
}

// vkGetPhysicalDeviceQueueFamilyProperties(2) of the families with the added one: the count
// when `properties` is null, else as many as fit, each written by put(properties[i], family).
template <typename Properties, typename Put>
void queueFamilyProperties(VkPhysicalDevice physical, uint32_t* count, Properties* properties, Put put) {
    const InstanceState* s = lockedInstance(physical);
    const std::vector<VkQueueFamilyProperties> list = familiesWithAdded(*s, physical);
    if (!properties) {
        *count = static_cast<uint32_t>(list.size());
        return;
    }
    *count = std::min<uint32_t>(*count, static_cast<uint32_t>(list.size()));
    for (uint32_t i = 0; i < *count; ++i) put(properties[i], list[i]);
}

VKAPI_ATTR void VKAPI_CALL simGetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice physical, uint32_t* count,
                                                                     VkQueueFamilyProperties* properties) {
    queueFamilyProperties(physical, count, properties,
                          [](VkQueueFamilyProperties& to, const VkQueueFamilyProperties& f) { to = f; });
}

VKAPI_ATTR void VKAPI_CALL simGetPhysicalDeviceQueueFamilyProperties2(VkPhysicalDevice physical, uint32_t* count,
                                                                      VkQueueFamilyProperties2* properties) {
    queueFamilyProperties(physical, count, properties,
                          [](VkQueueFamilyProperties2& to, const VkQueueFamilyProperties& f) {
                              to.queueFamilyProperties = f;  // no pNext filled
                          });
}

// The device's clock facts: timestampPeriod, each family's timestampValidBits, the memory
// types (for stale's copies) and the PCI address kmsg lines name.
void describeDevice(const InstanceState& s, VkPhysicalDevice physical, DeviceState& d) {
    VkPhysicalDeviceProperties p{};
    s.next.getPhysicalDeviceProperties(physical, &p);
    d.nsPerTick = p.limits.timestampPeriod;
    uint32_t families = 0;
    s.next.getPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
    std::vector<VkQueueFamilyProperties> list(families);
    s.next.getPhysicalDeviceQueueFamilyProperties(physical, &families, list.data());
    for (const auto& f : list) d.timestampValidBits.push_back(f.timestampValidBits);
    if (d.config->secondFamily) d.addedFamily = families;
    s.next.getPhysicalDeviceMemoryProperties(physical, &d.memory);
    if (d.config->identity && d.config->identity->pci) d.pciAddress = pciText(*d.config->identity->pci);
}

void loadDevice(DeviceState& d, PFN_vkGetDeviceProcAddr gdpa, VkDevice device) {
    d.nextGetDeviceProcAddr = gdpa;
#define REPRO_SIM_LOAD(name) d.next.name = reinterpret_cast<PFN_vk##name>(gdpa(device, "vk" #name));
    REPRO_SIM_DEVICE_FUNCTIONS(REPRO_SIM_LOAD)
#undef REPRO_SIM_LOAD
}

VKAPI_ATTR VkResult VKAPI_CALL simCreateDevice(VkPhysicalDevice physical, const VkDeviceCreateInfo* info,
                                               const VkAllocationCallbacks* allocator, VkDevice* device) {
    InstanceState* s = lockedInstance(physical);
    auto* link =
        findLink<VkDeviceCreateInfo, VkLayerDeviceCreateInfo>(info, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
    if (!s || !link || !link->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
    const VkResult fault = faultBefore(FaultCall::CreateDevice, nullptr);
    if (fault != VK_SUCCESS) return fault;
    const PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    const PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    const auto create = reinterpret_cast<PFN_vkCreateDevice>(gipa(s->handle, "vkCreateDevice"));
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    // VK_EXT_pci_bus_info is the layer's own when the driver lacks it: not passed down.
    std::vector<const char*> extensions(info->ppEnabledExtensionNames,
                                        info->ppEnabledExtensionNames + info->enabledExtensionCount);
    if ((s->groups & kPciExtension) && !driverHasPciBusInfo(*s, physical)) {
        std::erase_if(extensions,
                      [](const char* e) { return std::strcmp(e, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME) == 0; });
    }
    // device-fault: the extension and its feature struct are the layer's (unlinked for the
    // call, as properties2 does with the PCI struct).
    VkBaseOutStructure* beforeFault = nullptr;
    VkBaseOutStructure* faultFeatures = nullptr;
    if (s->config->deviceFault) {
        std::erase_if(extensions,
                      [](const char* e) { return std::strcmp(e, VK_EXT_DEVICE_FAULT_EXTENSION_NAME) == 0; });
        for (auto* prev = reinterpret_cast<VkBaseOutStructure*>(const_cast<VkDeviceCreateInfo*>(info)); prev->pNext;
             prev = prev->pNext) {
            if (prev->pNext->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FAULT_FEATURES_EXT) {
                beforeFault = prev;
                faultFeatures = prev->pNext;
                beforeFault->pNext = faultFeatures->pNext;
                break;
            }
        }
    }
    VkDeviceCreateInfo down = *info;
    down.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    down.ppEnabledExtensionNames = extensions.data();
    // second-family: the added family's queue is the driver's queue 0 of family 0, which the
    // application asks for anyway (its main queue); its create info does not go down.
    std::vector<VkDeviceQueueCreateInfo> queues(info->pQueueCreateInfos,
                                                info->pQueueCreateInfos + info->queueCreateInfoCount);
    if (s->config->secondFamily) {
        const uint32_t added = driverFamilyCount(*s, physical);
        std::erase_if(queues, [&](const VkDeviceQueueCreateInfo& q) { return q.queueFamilyIndex >= added; });
        down.queueCreateInfoCount = static_cast<uint32_t>(queues.size());
        down.pQueueCreateInfos = queues.data();
    }
    const VkResult r = create(physical, &down, allocator, device);
    if (beforeFault) beforeFault->pNext = faultFeatures;
    if (r != VK_SUCCESS) return r;
    auto d = std::make_unique<DeviceState>();
    d->handle = *device;
    d->physical = physical;
    d->config = s->config;
    d->groups = s->groups;
    d->rules = RecordRules::from(*d->config);
    if (d->config->flaky) d->flakyDraws = SplitMix64(d->config->flaky->seed);
    loadDevice(*d, gdpa, *device);
    describeDevice(*s, physical, *d);
    std::lock_guard lock(globals().mutex);
    globals().devices[dispatchKey(*device)] = std::move(d);
    return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL simDestroyDevice(VkDevice device, const VkAllocationCallbacks* allocator) {
    if (!device) return;
    DeviceState* d = nullptr;
    {
        std::lock_guard lock(globals().mutex);
        d = deviceOf(device);
    }
    if (!d) return;
    faultBefore(FaultCall::DestroyDevice, d);
    std::unique_ptr<DeviceState> state;
    {
        std::lock_guard lock(globals().mutex);
        flushKills(*d, kNever);
        for (auto& [handle, cb] : d->commandBuffers) releaseOwned(*d, cb);
        auto it = globals().devices.find(dispatchKey(device));
        state = std::move(it->second);
        globals().devices.erase(it);
    }
    state->next.DestroyDevice(device, allocator);
}

// Instance-level entry points the layer may stand in front of.
const Intercept kInstanceIntercepts[] = {
    {"vkDestroyInstance", reinterpret_cast<PFN_vkVoidFunction>(simDestroyInstance), kAlways, std::nullopt},
    {"vkCreateDevice", reinterpret_cast<PFN_vkVoidFunction>(simCreateDevice), kAlways, std::nullopt},
    {"vkEnumeratePhysicalDevices", reinterpret_cast<PFN_vkVoidFunction>(simEnumeratePhysicalDevices), kProperties,
     FaultCall::EnumeratePhysicalDevices},
    {"vkGetPhysicalDeviceProperties", reinterpret_cast<PFN_vkVoidFunction>(simGetPhysicalDeviceProperties), kProperties,
     std::nullopt},
    {"vkGetPhysicalDeviceFormatProperties", reinterpret_cast<PFN_vkVoidFunction>(simGetPhysicalDeviceFormatProperties),
     kFormats, std::nullopt},
    {"vkGetPhysicalDeviceProperties2", reinterpret_cast<PFN_vkVoidFunction>(simGetPhysicalDeviceProperties2),
     kProperties, std::nullopt},
    {"vkGetPhysicalDeviceProperties2KHR", reinterpret_cast<PFN_vkVoidFunction>(simGetPhysicalDeviceProperties2KHR),
     kProperties, std::nullopt},
    {"vkGetPhysicalDeviceQueueFamilyProperties",
     reinterpret_cast<PFN_vkVoidFunction>(simGetPhysicalDeviceQueueFamilyProperties), kFamilies, std::nullopt},
    {"vkGetPhysicalDeviceQueueFamilyProperties2",
     reinterpret_cast<PFN_vkVoidFunction>(simGetPhysicalDeviceQueueFamilyProperties2), kFamilies, std::nullopt},
    {"vkEnumerateDeviceExtensionProperties",
     reinterpret_cast<PFN_vkVoidFunction>(simEnumerateDeviceExtensionProperties), kPciExtension | kDeviceFault,
     std::nullopt},
    {"vkGetPhysicalDeviceFeatures2", reinterpret_cast<PFN_vkVoidFunction>(simGetPhysicalDeviceFeatures2), kDeviceFault,
     std::nullopt},
    {"vkGetPhysicalDeviceFeatures2KHR", reinterpret_cast<PFN_vkVoidFunction>(simGetPhysicalDeviceFeatures2KHR),
     kDeviceFault, std::nullopt},
};

const Intercept kDestroyDevice{"vkDestroyDevice", reinterpret_cast<PFN_vkVoidFunction>(simDestroyDevice), kAlways,
                               std::nullopt};

// The layer's function for a device-level `name`, if it stands in front of it under
// `config`; null otherwise.
PFN_vkVoidFunction deviceIntercept(const char* name, const Config& config, uint32_t groups) {
    if (std::strcmp(name, kDestroyDevice.name) == 0) return kDestroyDevice.function;
    for (const auto table : {commandIntercepts(), queueIntercepts()}) {
        for (const Intercept& i : table) {
            if (std::strcmp(name, i.name) == 0) return active(i, config, groups) ? i.function : nullptr;
        }
    }
    return nullptr;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL simGetDeviceProcAddr(VkDevice device, const char* name);

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL simGetInstanceProcAddr(VkInstance instance, const char* name) {
    if (std::strcmp(name, "vkCreateInstance") == 0) {
        return reinterpret_cast<PFN_vkVoidFunction>(simCreateInstance);
    }
    if (std::strcmp(name, "vkGetInstanceProcAddr") == 0) {
        return reinterpret_cast<PFN_vkVoidFunction>(simGetInstanceProcAddr);
    }
    if (!instance) return nullptr;
    InstanceState* s = lockedInstance(instance);
    if (!s) return nullptr;
    if (std::strcmp(name, "vkGetDeviceProcAddr") == 0) {
        return reinterpret_cast<PFN_vkVoidFunction>(simGetDeviceProcAddr);
    }
    if (s->config->api10 && isPromotedDeviceCommand(name)) return nullptr;
    const PFN_vkVoidFunction next = s->next.getInstanceProcAddr(instance, name);
    if (!next) return nullptr;
    for (const Intercept& i : kInstanceIntercepts) {
        if (std::strcmp(name, i.name) == 0) return active(i, *s->config, s->groups) ? i.function : next;
    }
    const PFN_vkVoidFunction ours = deviceIntercept(name, *s->config, s->groups);
    return ours ? ours : next;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL simGetDeviceProcAddr(VkDevice device, const char* name) {
    if (std::strcmp(name, "vkGetDeviceProcAddr") == 0) {
        return reinterpret_cast<PFN_vkVoidFunction>(simGetDeviceProcAddr);
    }
    DeviceState* d = nullptr;
    {
        std::lock_guard lock(globals().mutex);
        d = deviceOf(device);
    }
    if (!d) return nullptr;
    if (d->config->deviceFault && std::strcmp(name, "vkGetDeviceFaultInfoEXT") == 0)
        return reinterpret_cast<PFN_vkVoidFunction>(simGetDeviceFaultInfoEXT);
    if (d->config->api10 && isPromotedDeviceCommand(name)) return nullptr;
    const PFN_vkVoidFunction next = d->nextGetDeviceProcAddr(device, name);
    if (!next) return nullptr;
    const PFN_vkVoidFunction ours = deviceIntercept(name, *d->config, d->groups);
    return ours ? ours : next;
}

}  // namespace
}  // namespace repro::simdriver::layer

// The library's only exported symbols (exports.map): the loader negotiates interface
// version 2 and then uses the two proc-address functions it is given; the exported
// vkGetInstanceProcAddr and vkGetDeviceProcAddr serve loaders that look them up by name.
extern "C" {

VK_LAYER_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* v) {
    if (!v || v->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT) return VK_ERROR_INITIALIZATION_FAILED;
    if (v->loaderLayerInterfaceVersion >= 2) {
        v->pfnGetInstanceProcAddr = repro::simdriver::layer::simGetInstanceProcAddr;
        v->pfnGetDeviceProcAddr = repro::simdriver::layer::simGetDeviceProcAddr;
        v->pfnGetPhysicalDeviceProcAddr = nullptr;  // no physical-device extension entry points
        v->loaderLayerInterfaceVersion = 2;
    }
    return VK_SUCCESS;
}

VK_LAYER_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char* name) {
    return repro::simdriver::layer::simGetInstanceProcAddr(instance, name);
}

VK_LAYER_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char* name) {
    return repro::simdriver::layer::simGetDeviceProcAddr(device, name);
}

}  // extern "C"
