/* SPDX-License-Identifier: MIT */
/*
 * sysmem.h - anonymous memory straight from the kernel, for the core's own
 * data structures (interval tree pools, the registry, its granule filter).
 *
 * Inside the preload module a call to mmap()/munmap() would enter our own
 * hooks, so these go to the system calls. errno is left as it was: the
 * registry runs inside hooks that must return the real function's errno.
 */
#ifndef HIPSVM_SYSMEM_H
#define HIPSVM_SYSMEM_H

#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Big regions are walked at random: ask for huge pages from this size. */
#define HIPSVM_SYSMEM_HUGE_MIN	((size_t)4 << 20)

/* Zeroed, readable and writable memory, or NULL. */
static inline void *hipsvm_sysmem_map(size_t len)
{
	int saved = errno;
	long p = syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p != -1 && len >= HIPSVM_SYSMEM_HUGE_MIN)
		syscall(SYS_madvise, (void *)p, len, MADV_HUGEPAGE);
	/* A flag that the program's own mappings do not have, so that the
	 * kernel never merges ours with theirs: a merged VMA makes every later
	 * munmap of the neighbour split it (measured: +2 us per hipFree on the
	 * simulator, whose allocations are anonymous NORESERVE mappings too).
	 * Our bookkeeping is then left out of core dumps, which costs nothing
	 * the program needs. */
	if (p != -1)
		syscall(SYS_madvise, (void *)p, len, MADV_DONTDUMP);
	errno = saved;
	return p == -1 ? NULL : (void *)p;
}

static inline void hipsvm_sysmem_unmap(void *p, size_t len)
{
	int saved = errno;

	syscall(SYS_munmap, p, len);
	errno = saved;
}

#endif
