/* SPDX-License-Identifier: MIT */
/*
 * unmap_args.h - the argument checks that the kernel makes before an unmap
 * call changes anything (Linux 6.1 to 6.12: munmap in mm/mmap.c, mmap in
 * do_mmap, mremap in mm/mremap.c, madvise in mm/madvise.c).
 *
 * A call that the kernel refuses unmaps nothing, so it must not touch GPU
 * state either: the wrappers ask these before sending "set" to the hook,
 * and pass a refused call straight to the real function, which fails with
 * the kernel's own errno. Only the refusals that the arguments alone decide
 * are here; what depends on the address space (mremap of an unmapped
 * address or with an old length of 0 over a private mapping, ENOMEM for too
 * many mappings) is found out by the real call, and
 * hipsvm_unmap_end() then counts the call as refused.
 *
 * Pure functions: no system call, no lock, no allocation; safe anywhere.
 * Each returns 0 when the kernel would go ahead, or the -errno it would
 * return.
 */
#ifndef HIPSVM_UNMAP_ARGS_H
#define HIPSVM_UNMAP_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct hipsvm_vm_limits {
	uintptr_t page;		/* page size, a power of two */
	uintptr_t top;		/* TASK_SIZE: one past the highest user address */
};

int hipsvm_munmap_refusal(const struct hipsvm_vm_limits *l, uintptr_t addr, size_t len);
/* flags as given to mmap; only MAP_FIXED calls are asked about. fd
 * validity is not looked at here (the caller owns system calls). */
int hipsvm_mmap_refusal(const struct hipsvm_vm_limits *l, uintptr_t addr, size_t len, int flags,
			off_t off);
int hipsvm_mremap_refusal(const struct hipsvm_vm_limits *l, uintptr_t old, size_t old_len,
			  size_t new_len, int flags, uintptr_t new_addr);
int hipsvm_madvise_refusal(const struct hipsvm_vm_limits *l, uintptr_t addr, size_t len);

#endif
