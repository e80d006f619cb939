/* SPDX-License-Identifier: MIT */
/*
 * kernels.h - what the kernel API files share: registered fat binaries and
 * kernels (launch.c) and module functions (module.c).
 */
#ifndef HIPSVM_SIM_API_KERNELS_H
#define HIPSVM_SIM_API_KERNELS_H

#include <hip/hip_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>

struct hipsvm_codeobj;
struct hipsvm_kernel_info;

/* launch.c: the code object of a registered fat binary (NULL: none for the
 * device), chosen at first use. */
const struct hipsvm_codeobj *sim_fatbin_codeobj(void **handle);

/* The registered kernel of a host stub: its name and *info (NULL when its
 * code object has no metadata for it); NULL if none. */
const char *sim_func_lookup(const void *host_fn, const struct hipsvm_kernel_info **info);
/* module.c: a module function's kernel name (buf: 256 bytes), and whether
 * the handle is a live module function */
const char *sim_module_fn_name(hipFunction_t f, char *buf);
bool sim_module_fn_live(hipFunction_t f);

#endif
