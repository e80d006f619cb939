/* SPDX-License-Identifier: MIT */
/*
 * loader.h - code objects in GPU memory, per device (loader.c).
 */
#ifndef HIPSVM_SIM_EXEC_LOADER_H
#define HIPSVM_SIM_EXEC_LOADER_H

#include <stddef.h>

struct hipsvm_codeobj;
struct hipsvm_kernel_info;
void sim_loader_reset(void);
/* A code object whose kernels and variables are to live in GPU memory
 * (loaded per device at first use); remove unloads it everywhere. */
void sim_loader_add(const struct hipsvm_codeobj *co);
void sim_loader_remove(const struct hipsvm_codeobj *co);
/* The kernel as loaded on dev (code in the image, code_vaddr its address
 * there); the file's copy when its code object cannot be loaded. */
const struct hipsvm_kernel_info *sim_loader_kernel(const struct hipsvm_kernel_info *info, int dev);
/* A variable of co in its image on dev: 0, or -ENOENT (no such variable,
 * or no image), -ENOMEM, -ENOTSUP (relocations the loader lacks). */
int sim_loader_symbol(const struct hipsvm_codeobj *co, const char *name, int dev, void **addr,
		      size_t *size);

#endif
