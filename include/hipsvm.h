/* SPDX-License-Identifier: MIT */
/*
 * hipsvm.h - the public interface of libhipsvm, for programs that link it in
 * (hipcc ... -lhipsvm, or `pkg-config --libs hipsvm`) or look it up with
 * dlsym when it is preloaded.
 *
 * Linking the library in (before the HIP runtime on the link line) gives the
 * same interception as LD_PRELOAD: the library's hipMalloc & co. come first
 * in the symbol search order.
 */
#ifndef HIPSVM_H
#define HIPSVM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define HIPSVM_API __attribute__((visibility("default")))
#else
#define HIPSVM_API
#endif

#define HIPSVM_VERSION_MAJOR 0
#define HIPSVM_VERSION_MINOR 1

/* "MAJOR.MINOR.PATCH": the version of the library in the process */
HIPSVM_API const char *hipsvm_version(void);

/* 1 when the shim intercepts in this process, 0 when it is disabled
 * (HIPSVM_ENABLE=0) or could not start. */
HIPSVM_API int hipsvm_active(void);

/* The "hipsvm-report/1" JSON report of this process as of now (docs/report.md),
 * NUL-terminated. Its length, or -ENOSPC when cap is too small (then buf holds
 * a truncated prefix), or -ENODEV when the shim is not active. */
HIPSVM_API int hipsvm_report_json(char *buf, size_t cap);

/* Writes the report to path (%p expands to the pid); NULL: the HIPSVM_REPORT
 * path. 0, or -errno (-ENOENT: NULL and HIPSVM_REPORT not set). The same
 * report is written at exit when HIPSVM_REPORT is set. */
HIPSVM_API int hipsvm_report_write(const char *path);

#ifdef __cplusplus
}
#endif

#endif
