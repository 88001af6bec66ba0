/* Stand-ins for the Vulkan loader (libvulkan.so.1) that the end-to-end tests put first on
 * LD_LIBRARY_PATH, to see what repro says where no usable loader is installed
 * (tests/e2e/bad_input_test.cpp; built by tests/CMakeLists.txt, one library per kind):
 *   REPRO_FAKE_LOADER_UNLOADABLE    linked against a library absent at run time, so
 *                                   dlopen fails as if no loader were installed;
 *   REPRO_FAKE_LOADER_API_1_0       vkGetInstanceProcAddr knows no function, so not even
 *                                   vkEnumerateInstanceVersion: a Vulkan 1.0 loader;
 *   REPRO_FAKE_LOADER_NO_ENTRY      a library of that name without vkGetInstanceProcAddr. */
#if defined(REPRO_FAKE_LOADER_API_1_0)
typedef void (*ReproVoidFunction)(void);
ReproVoidFunction vkGetInstanceProcAddr(void* instance, const char* name);
ReproVoidFunction vkGetInstanceProcAddr(void* instance, const char* name) {
    (void)instance;
    (void)name;
    return 0;
}
#elif defined(REPRO_FAKE_LOADER_UNLOADABLE)
int reproFakeLoaderDependency(void);
int reproFakeLoaderUnloadable(void);
int reproFakeLoaderUnloadable(void) { return reproFakeLoaderDependency(); }
#elif defined(REPRO_FAKE_LOADER_DEPENDENCY)
int reproFakeLoaderDependency(void);
int reproFakeLoaderDependency(void) { return 1; }
#else
int reproFakeLoaderNoEntry;
#endif
