/* SPDX-License-Identifier: MIT */
/*
 * hipsvm.h - the public interface of libhipsvm, for programs that link it in
 * (hipcc ... -lhipsvm) or look it up with dlsym when it is preloaded.
 */
#ifndef HIPSVM_H
#define HIPSVM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HIPSVM_VERSION_MAJOR 0
#define HIPSVM_VERSION_MINOR 1

/* "0.1.0" */
const char *hipsvm_version(void);

#ifdef __cplusplus
}
#endif

#endif
