/* SPDX-License-Identifier: MIT */
/*
 * itree.h - an ordered map of non-overlapping closed intervals [start, last].
 *
 * No locking: the caller owns it (registry.c wraps it in a seqlock). Readers
 * may run concurrently with one writer provided they validate afterwards (a
 * seqlock) and use the _ro functions, which tolerate a torn view: every field
 * they read is read with a relaxed atomic load, node references are indices
 * bounds-checked against a node pool whose memory is never returned to the
 * system, and every traversal is bounded. A torn read gives a wrong answer
 * that the seqlock rejects, never a crash or a loop.
 *
 * Two intervals [a0, a1] and [b0, b1] overlap iff a0 <= b1 && b0 <= a1.
 */
#ifndef HIPSVM_ITREE_H
#define HIPSVM_ITREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hipsvm_ival {
	uintptr_t start;
	uintptr_t last;		/* inclusive */
	uint64_t data[5];	/* the registry's payload, opaque here */
};

struct hipsvm_itree;	/* opaque */

int hipsvm_itree_create(struct hipsvm_itree **out);
void hipsvm_itree_destroy(struct hipsvm_itree *t);
size_t hipsvm_itree_count(const struct hipsvm_itree *t);

/* Makes sure that the next n inserts cannot fail with -ENOMEM (so that a
 * caller can make a multi-step change all-or-nothing). 0 or -ENOMEM. */
int hipsvm_itree_reserve(struct hipsvm_itree *t, unsigned n);

/* -EEXIST if it overlaps an interval in the tree, -ENOMEM, -EINVAL if last < start. */
int hipsvm_itree_insert(struct hipsvm_itree *t, const struct hipsvm_ival *iv);
/* Removes the interval that starts exactly at start; copies it to out if not NULL. -ENOENT. */
int hipsvm_itree_remove(struct hipsvm_itree *t, uintptr_t start, struct hipsvm_ival *out);
/* Replace the payload or bounds of the interval starting at start. A shrink
 * (or any change that stays between the neighbours) is done in place and
 * cannot fail; otherwise -EEXIST on overlap with another interval, -ENOMEM.
 * -ENOENT if no interval starts at start, -EINVAL if last < start. */
int hipsvm_itree_update(struct hipsvm_itree *t, uintptr_t start, const struct hipsvm_ival *iv);

/* Checks the structural invariants (order, separators, leaf links, node
 * sizes, count): 0 or -EUCLEAN. O(n): for tests. */
int hipsvm_itree_check(const struct hipsvm_itree *t);

/* Overlap iteration in ascending order: the first interval overlapping
 * [start, last], then the next one after prev. 0 and *out, or -ENOENT. */
int hipsvm_itree_iter_first(const struct hipsvm_itree *t, uintptr_t start, uintptr_t last,
			    struct hipsvm_ival *out);
int hipsvm_itree_iter_next(const struct hipsvm_itree *t, const struct hipsvm_ival *prev,
			   uintptr_t last, struct hipsvm_ival *out);

/* Torn-read-tolerant versions for seqlock readers (see above). They may
 * also return -EAGAIN when they notice an inconsistent view; the answer of
 * any call is only meaningful once the caller's seqlock has validated it. */
int hipsvm_itree_iter_first_ro(const struct hipsvm_itree *t, uintptr_t start, uintptr_t last,
			       struct hipsvm_ival *out);
int hipsvm_itree_iter_next_ro(const struct hipsvm_itree *t, const struct hipsvm_ival *prev,
			      uintptr_t last, struct hipsvm_ival *out);

/* Leaf hints: a writer may remember which leaf held an interval (an opaque
 * nonzero handle, 0 if start is not in the tree), and a reader may pass it
 * back to skip the descent. A stale or wrong hint costs a descent, never a
 * wrong answer: the leaf is used only when it is a leaf of the tree whose
 * span contains start. */
uint32_t hipsvm_itree_leaf_of(const struct hipsvm_itree *t, uintptr_t start);
int hipsvm_itree_iter_first_hint_ro(const struct hipsvm_itree *t, uintptr_t start,
				    uintptr_t last, uint32_t hint, struct hipsvm_ival *out);

#endif
