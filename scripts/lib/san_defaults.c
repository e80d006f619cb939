/* SPDX-License-Identifier: MIT */
/*
 * san_defaults.c - the sanitizer options that scripts/test-sanitizers compiles
 * into every binary of a sanitizer build (the harnesses scrub the environment
 * of their target programs, so the options cannot travel there; the
 * environment still overrides them). The script passes the option strings
 * in: -DHIPSVM_SAN_ASAN with HIPSVM_ASAN_OPTIONS and HIPSVM_UBSAN_OPTIONS,
 * or -DHIPSVM_SAN_TSAN with HIPSVM_TSAN_OPTIONS.
 */
#define API __attribute__((visibility("default"), used))

#if defined(HIPSVM_SAN_ASAN)
API const char *__asan_default_options(void) { return HIPSVM_ASAN_OPTIONS; }
API const char *__ubsan_default_options(void) { return HIPSVM_UBSAN_OPTIONS; }
#elif defined(HIPSVM_SAN_TSAN)
API const char *__tsan_default_options(void) { return HIPSVM_TSAN_OPTIONS; }
#else
#error "define HIPSVM_SAN_ASAN or HIPSVM_SAN_TSAN"
#endif
