/* SPDX-License-Identifier: MIT */
/*
 * unmap.h - the one path of the unmap family (unmap_wrap.c): munmap,
 * mremap, madvise that drops pages, mmap(MAP_FIXED) and shmdt (shm_wrap.c)
 * each describe their call in a struct hipsvm_unmap_call (shim.h) and hand
 * it to hipsvm_unmap_call_run, which is written once:
 *
 *   guard (already inside the shim: the system call, counted if tracked)
 *   -> the core's begin (tracked? refused on its arguments? else set) ->
 *   the real call -> the core's end (drain, clear, the registry loses what
 *   the call took), errno as the real call left it. The decisions are the
 *   core's (src/shim/shim_unmap.c); this path only makes the calls.
 *
 * Before it, each wrapper answers the common case inline: nothing tracked
 * in the range (hipsvm_unmap_untracked: two thread-local loads, two loads
 * to the granule bitmap and one load of it) goes to the real function.
 * The shim's readiness is not asked: before it is ready the bitmap is the
 * NULL one (boot.h), and nothing is tracked.
 */
#ifndef HIPSVM_PRELOAD_UNMAP_H
#define HIPSVM_PRELOAD_UNMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "boot.h"
#include "shim/gfilter.h"
#include "shim/shim.h"

/* The real call's result: an int (munmap, madvise, shmdt) or a pointer
 * (mmap, mremap), as a long. */
long hipsvm_unmap_call_run(struct hipsvm_unmap_call *c);

/* Whether madvise with this advice drops the pages (DONTNEED, FREE, REMOVE). */
bool hipsvm_madvise_drops_pages(int advice);

/* shmdt's extent: the bytes mapped from the file mapped at addr, from addr
 * on (the segment, split by mprotect); 0 if nothing starts there or
 * /proc/self/maps cannot be read. errno unchanged (shm_wrap.c). */
size_t hipsvm_shm_extent(uintptr_t addr);

/* The granule bitmap, NULL until the first SVM piece: both loads atomic, as
 * the registry publishes the bitmap with a release store while other
 * threads unmap (a plain load of it was a data race under TSan). On x86 an
 * acquire load is the plain move it was. */
static inline const uint64_t *hipsvm_unmap_bitmap(void)
{
	return __atomic_load_n(__atomic_load_n(&hipsvm_svm_bits, __ATOMIC_ACQUIRE),
			       __ATOMIC_ACQUIRE);
}

/* True when [addr, addr + len) holds no tracked SVM memory for sure and
 * this thread is neither inside the shim nor inside a hipFree: the real
 * function may be called straight away. */
static inline bool hipsvm_unmap_untracked(const void *addr, size_t len)
{
	if (__builtin_expect(hipsvm_tls.guard != 0 || hipsvm_tls.freeing != NULL, 0))
		return false;
	return hipsvm_gf_svm_clear(hipsvm_unmap_bitmap(), (uintptr_t)addr, len);
}

/* The same, inline to the end for a range within one 2 MiB granule (a
 * page, a small mapping): false also when the range is longer, and the
 * caller then asks hipsvm_unmap_untracked out of line. */
static inline bool hipsvm_unmap_untracked_one(const void *addr, size_t len)
{
	if (__builtin_expect(hipsvm_tls.guard != 0 || hipsvm_tls.freeing != NULL, 0))
		return false;
	return hipsvm_gf_svm_clear_one(hipsvm_unmap_bitmap(), (uintptr_t)addr, len);
}

#endif
