/*
 * pincer_memory.node: glibc's heap controls for pincer-daemon, as a Node-API addon.
 *
 * Why: a transfer's socket reads (64 KiB buffers) are malloc'd and freed many times a second.
 * Under glibc's mmap threshold they come from the heap and are reused; over it each one is a new
 * mapping whose pages the kernel faults in and zeroes (about 470 page faults per MiB uploaded).
 * Memory freed inside the heap, though, stays resident until malloc_trim(0) gives its pages back:
 * free() returns only the top of the heap. With these two functions the daemon keeps small
 * buffers on the heap while it works and trims once it goes quiet (memory.ts, IdleCollector).
 *
 * It also closes the daemon's memory to other processes (memoryAccess.ts): a non-dumpable process's
 * /proc/<pid>/mem, environ, maps and the like open only for root with CAP_SYS_PTRACE, not for the
 * commands the daemon runs as its own user (the token is in that memory).
 *
 * Exports:
 *   trim() -> boolean                      malloc_trim(0); true when memory went back to the system
 *   setMmapThreshold(bytes: number) -> boolean   mallopt(M_MMAP_THRESHOLD, bytes); true when taken
 *   setDumpable(on: boolean) -> boolean    prctl(PR_SET_DUMPABLE, on); true when taken
 * Built with the system C compiler by build.mjs against the running Node's headers; glibc only.
 */
#include <limits.h>
#include <malloc.h>
#include <node_api.h>
#include <sys/prctl.h>

static napi_value boolean(napi_env env, int value) {
  napi_value result;
  if (napi_get_boolean(env, value != 0, &result) != napi_ok) return NULL;
  return result;
}

static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  return boolean(env, malloc_trim(0));
}

static napi_value set_mmap_threshold(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int64_t bytes = -1;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 || napi_get_value_int64(env, argv[0], &bytes) != napi_ok ||
      bytes < 0 || bytes > INT_MAX) {
    napi_throw_range_error(env, NULL, "setMmapThreshold(bytes): bytes must be a whole number from 0 to 2^31-1");
    return NULL;
  }
  return boolean(env, mallopt(M_MMAP_THRESHOLD, (int)bytes));
}

static napi_value set_dumpable(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  bool on = true;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 || napi_get_value_bool(env, argv[0], &on) != napi_ok) {
    napi_throw_type_error(env, NULL, "setDumpable(on): on must be a boolean");
    return NULL;
  }
  return boolean(env, prctl(PR_SET_DUMPABLE, on ? 1 : 0, 0, 0, 0) == 0);
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
      {"trim", NULL, trim, NULL, NULL, NULL, napi_enumerable, NULL},
      {"setMmapThreshold", NULL, set_mmap_threshold, NULL, NULL, NULL, napi_enumerable, NULL},
      {"setDumpable", NULL, set_dumpable, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) return NULL;
  return exports;
}
