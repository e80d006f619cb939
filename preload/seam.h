/* SPDX-License-Identifier: MIT */
/*
 * seam.h - the one place that knows how a real function is found.
 *
 * Contract:
 *  - HIP functions: dlsym(RTLD_NEXT) first (the runtime after the shim in
 *    the global scope: preloaded shim, or -lhipsvm linked before the
 *    runtime); then a runtime that is loaded but not in the global scope (a
 *    dependency of an RTLD_LOCAL dlopen): dlopen("libamdhip64.so.6" / ".so.5"
 *    / ".so", RTLD_NOLOAD | RTLD_LAZY); then any loaded object whose path
 *    names libamdhip64, found with dl_iterate_phdr (a bundled copy under
 *    another name or directory). NULL when none has it.
 *  - libc functions: dlsym(RTLD_NEXT), so that another interposer after the
 *    shim still sees the call; the raw system call when that fails.
 *  - Nothing here is called from the unmap fast path; the caller holds the
 *    thread's recursion guard, since dlsym and dlopen may allocate and so
 *    re-enter the shim through munmap.
 *  - The raw system calls are what a re-entered hook uses: they never enter
 *    the dynamic linker and never allocate. They set errno as libc would.
 */
#ifndef HIPSVM_SEAM_H
#define HIPSVM_SEAM_H

#include <stddef.h>
#include <sys/types.h>

void *hipsvm_seam_hip(const char *name);
void *hipsvm_seam_libc(const char *name);
/* Loaded objects named libamdhip64*: how many (at most 4), and the paths of
 * the first two ("" when absent). */
#define HIPSVM_SEAM_PATH 512
unsigned hipsvm_seam_hip_copies(char first[HIPSVM_SEAM_PATH], char second[HIPSVM_SEAM_PATH]);
/* Path of the object that defines p ("" if unknown), for messages. */
const char *hipsvm_seam_where(const void *p);

/* The page size and TASK_SIZE that the kernel checks unmap arguments
 * against (unmap_args.h). Found once, with raw system calls only (one
 * probing mmap on x86-64: 5-level paging raises TASK_SIZE to 2^56), so safe
 * on the unmap path; later calls are two loads. */
struct hipsvm_vm_limits;
void hipsvm_seam_vm_limits(struct hipsvm_vm_limits *out);

int hipsvm_sys_munmap(void *addr, size_t len);
void *hipsvm_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *hipsvm_sys_mremap(void *old, size_t old_size, size_t new_size, int flags, void *new_addr);
int hipsvm_sys_madvise(void *addr, size_t len, int advice);
int hipsvm_sys_shmdt(const void *addr);

#endif
