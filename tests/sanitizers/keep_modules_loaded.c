/* Preloaded into the sanitizer test runs (CMakePresets.json, testPresets "sanitize"):
 * dlclose that keeps every library mapped. The Vulkan loader unloads the driver and the
 * validation layer at vkDestroyInstance; their static data then vanishes, so whatever
 * only it pointed to (lavapipe's one-time initialisation, for one) looks leaked to
 * LeakSanitizer, in a module it can no longer name, so no suppression could match it.
 * With the modules kept, LeakSanitizer scans their data and reports only real leaks. */
int dlclose(void* handle);
int dlclose(void* handle) {
    (void)handle;
    return 0;
}
