/* SPDX-License-Identifier: MIT */
/*
 * registry.h - the live allocations of a process, with overlap queries.
 *
 * Writers (allocation, free, unmap bookkeeping) serialise on an internal mutex
 * and bump a sequence counter around each change. Readers take no lock:
 *  - hipsvm_reg_touches() is the hot path of every munmap in the process. It
 *    first asks a granule map (one counter per 2 MiB of address space, in a
 *    two-level table whose leaves are never freed) whether anything tracked
 *    lies in any granule of the range: for an untracked range that is a few
 *    loads and no shared writes. Only then does it read the interval tree
 *    under the seqlock. It allocates nothing, takes no lock and is
 *    async-signal-safe.
 *  - A reader running in a signal handler that interrupted a writer on its
 *    own thread would wait for itself forever: it gets -EDEADLK instead (a
 *    thread-local flag marks writers), and the caller decides.
 */
#ifndef HIPSVM_REGISTRY_H
#define HIPSVM_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shim/api.h"

struct hipsvm_alloc {
	uintptr_t start;
	uintptr_t last;		/* inclusive */
	uintptr_t origin;	/* start of the allocation this piece came from */
	uint64_t origin_size;	/* its size in bytes */
	uint32_t kind;		/* enum hipsvm_kind */
	int32_t ctx;		/* HIPSVM_CTX_HOST or a device index */
	int32_t device;		/* device it was made on / remembered (-1: none) */
	uint32_t flags;		/* the HIP flags of the call */
	uint32_t route;		/* router's decision tag (route.h), 0 = as HIP */
	uint32_t api;		/* enum hipsvm_api */
};

struct hipsvm_registry;

int hipsvm_reg_create(struct hipsvm_registry **out);
void hipsvm_reg_destroy(struct hipsvm_registry *r);
size_t hipsvm_reg_count(const struct hipsvm_registry *r);

/* -EEXIST on overlap with a live entry, -ENOMEM, -EINVAL on an empty range
 * (last < start), a kind out of range or origin > start.
 *
 * Every writer (insert, remove_origin, punch) returns -EDEADLK instead of
 * blocking when the calling thread is already writing this registry (a
 * signal handler that interrupted a writer, or a punch callback). */
int hipsvm_reg_insert(struct hipsvm_registry *r, const struct hipsvm_alloc *a);

/* The entry that contains addr. 0 and *out, -ENOENT, or -EDEADLK (see above). */
int hipsvm_reg_find(const struct hipsvm_registry *r, uintptr_t addr, struct hipsvm_alloc *out);

/* Removes every piece of the allocation whose origin is origin (a free),
 * found through an origin index even when the first byte was punched away;
 * pieces of other allocations inside its holes stay. The lowest piece
 * removed in *first, the number of bytes removed in *bytes (each may be
 * NULL); -ENOENT if there was none. -ESTALE when punches had taken every
 * byte of that allocation already and nothing has been allocated over its
 * origin since (a tombstone, removed by this call): *first then holds the
 * allocation's attributes with start = last = origin, *bytes 0. */
int hipsvm_reg_remove_origin(struct hipsvm_registry *r, uintptr_t origin,
			     struct hipsvm_alloc *first, uint64_t *bytes);

/* Hot path: does [addr, addr + len) touch anything tracked whose kind is in
 * kind_mask (bit per enum hipsvm_kind)? Lock-free, allocation-free,
 * async-signal-safe. 1 yes, 0 no, -EDEADLK when called by a thread that is in
 * the middle of writing the registry. */
int hipsvm_reg_touches(const struct hipsvm_registry *r, uintptr_t addr, size_t len,
		       uint32_t kind_mask);

/* The unmap hot path's first question, before hipsvm_reg_touches: the
 * address of the granule bitmap of the SVM kinds (gfilter.h), stable for the
 * registry's life; *result is NULL until the first SVM piece is counted.
 * hipsvm_gf_svm_clear(*result, addr, len) true: touches would say 0. */
uint64_t *const *hipsvm_reg_svm_bits(const struct hipsvm_registry *r);

/* Copies up to max entries overlapping [addr, addr + len) into out (ascending).
 * Returns the number found (may exceed max: only max are copied), or -EDEADLK. */
int hipsvm_reg_overlaps(const struct hipsvm_registry *r, uintptr_t addr, size_t len,
			struct hipsvm_alloc *out, unsigned max);

/* Punches the hole [addr, addr + len) as the kernel splits an SVM range on a
 * partial unmap: an entry wholly inside is removed; one that sticks out keeps
 * its head and/or tail as separate entries with the same attributes (origin
 * unchanged). For each piece removed, cb(arg, piece) is called with the part
 * that was inside the hole (before the registry is unlocked; cb must not call
 * back into the registry). A punch that takes an allocation's last piece
 * leaves its tombstone (see remove_origin). Returns the number of pieces, -ENOMEM (nothing
 * changed), -EDEADLK (see insert). The callbacks run with the writer lock
 * held but outside the sequence-counter window, so a slow callback delays
 * other writers, never the lock-free readers. */
typedef void (*hipsvm_reg_piece_fn)(void *arg, const struct hipsvm_alloc *removed);
int hipsvm_reg_punch(struct hipsvm_registry *r, uintptr_t addr, size_t len,
		     hipsvm_reg_piece_fn cb, void *arg);

/* After fork in the child: the mutex may have been held by a thread that does
 * not exist in the child. Re-initialise the lock, keep the entries. Without
 * the prepare/parent pair (testing.h), a fork while another thread is in the
 * middle of a change leaves that change half done in the child. */
void hipsvm_reg_atfork_child(struct hipsvm_registry *r);

#endif
