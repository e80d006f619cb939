/* SPDX-License-Identifier: MIT */
/*
 * itree_node.h - the inside of the interval tree, shared by itree.c (the
 * reading side, torn-read tolerant) and itree_write.c (the pool and every
 * change). Not for use outside those two files.
 *
 * Every field that a reader may look at is written with ST() (a relaxed
 * atomic store) and read with LD() (a relaxed atomic load).
 */
#ifndef HIPSVM_ITREE_NODE_H
#define HIPSVM_ITREE_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shim/itree.h"

#define LEAF_MAX	16
#define LEAF_MIN	4
#define INNER_MAX	32
#define INNER_MIN	8
#define MAX_DEPTH	24	/* inner levels; INNER_MIN^23 is far beyond 2^32 nodes */
#define POOL_SHIFT	6	/* chunk k holds 64 << k nodes */
#define POOL_BASE	(1u << POOL_SHIFT)
#define POOL_CHUNKS	26	/* 64 * (2^26 - 1) nodes: every 32-bit index */

#define LD(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define ST(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

struct node {
	uint32_t leaf;		/* 1: leaf, 0: inner */
	uint32_t n;		/* entries (leaf) or children (inner) */
	uint32_t prev, next;	/* leaf chain; next also links the free list */
	union {
		struct {
			uintptr_t start[LEAF_MAX];
			uintptr_t last[LEAF_MAX];
			struct hipsvm_ival_val val[LEAF_MAX];
		} l;
		struct {
			/* key[j] (j >= 1) <= every start under child[j] and
			 * > every start under child[j - 1]; key[0] unused. */
			uintptr_t key[INNER_MAX];
			uint32_t child[INNER_MAX];
		} i;
	} u;
};

struct hipsvm_itree {
	uint32_t root;		/* 0: empty */
	uint32_t depth;		/* inner levels above the leaves */
	uint64_t count;
	uint32_t nalloc;	/* indices handed out; index 0 means "none" */
	uint32_t nmapped;	/* indices backed by mapped chunks */
	uint32_t nchunks;
	uint32_t free_head;
	uint32_t nfree;
	struct node *chunk[POOL_CHUNKS];
};

/* The root-to-leaf path of a descent: node index and child slot per level. */
struct path {
	uint32_t idx[MAX_DEPTH + 1];
	unsigned slot[MAX_DEPTH + 1];
};

static inline struct node *node_at(const struct hipsvm_itree *t, uint32_t idx)
{
	uint64_t v = (uint64_t)idx + POOL_BASE;
	unsigned k = 63 - __builtin_clzll(v) - POOL_SHIFT;
	struct node *c;

	if (idx == 0 || idx >= LD(t->nalloc) || k >= POOL_CHUNKS)
		return NULL;
	c = __atomic_load_n(&t->chunk[k], __ATOMIC_ACQUIRE);
	return c ? &c[v - ((uint64_t)POOL_BASE << k)] : NULL;
}

/*
 * Searches count the keys <= s instead of bisecting: with at most 32 keys a
 * branch-free count is faster than four mispredicted, dependent probes, and
 * in a torn node it still returns an index within bounds.
 */

/* Number of entries with start <= s. */
static inline unsigned leaf_upper(const struct node *nd, unsigned n, uintptr_t s)
{
	unsigned c = 0;

	for (unsigned i = 0; i < n; i++)
		c += LD(nd->u.l.start[i]) <= s;
	return c;
}

/* The child to descend into for s: the last j with j == 0 || key[j] <= s. */
static inline unsigned inner_slot(const struct node *nd, unsigned n, uintptr_t s)
{
	unsigned c = 0;

	for (unsigned j = 1; j < n; j++)
		c += LD(nd->u.i.key[j]) <= s;
	return c;
}

_Static_assert(offsetof(struct hipsvm_ival_val, piece.origin) ==
	       offsetof(struct hipsvm_ival_val, org.span) &&
	       offsetof(struct hipsvm_ival_val, piece.origin_size) ==
	       offsetof(struct hipsvm_ival_val, org.pieces),
	       "val_copy() copies the origin view through the piece view");

/* Field by field with relaxed atomics: either side may be a leaf that a
 * seqlock reader looks at while a writer changes it. */
static inline void val_copy(struct hipsvm_ival_val *dst, const struct hipsvm_ival_val *src)
{
	ST(dst->piece.origin, LD(src->piece.origin));
	ST(dst->piece.origin_size, LD(src->piece.origin_size));
	ST(dst->at.kind, LD(src->at.kind));
	ST(dst->at.api, LD(src->at.api));
	ST(dst->at.ctx, LD(src->at.ctx));
	ST(dst->at.device, LD(src->at.device));
	ST(dst->at.flags, LD(src->at.flags));
	ST(dst->at.route, LD(src->at.route));
}

static inline void read_entry(const struct node *nd, unsigned i, struct hipsvm_ival *out)
{
	out->start = LD(nd->u.l.start[i]);
	out->last = LD(nd->u.l.last[i]);
	val_copy(&out->v, &nd->u.l.val[i]);
}

/* The keys of a node are searched with dependent loads: ask for all of
 * their cache lines at once, so that a cold node costs one miss, not four. */
static inline void prefetch_keys(const struct node *nd, size_t len)
{
	const char *p = (const char *)nd;

	for (size_t off = 0; off < offsetof(struct node, u) + len; off += 64)
		__builtin_prefetch(p + off);
}

/* A leaf with a plausible entry count, or NULL. */
static inline const struct node *leaf_at(const struct hipsvm_itree *t, uint32_t idx, unsigned *n)
{
	const struct node *nd = node_at(t, idx);

	if (!nd || !LD(nd->leaf))
		return NULL;
	*n = LD(nd->n);
	return *n && *n <= LEAF_MAX ? nd : NULL;
}

/* itree.c: the descent towards s (path may be NULL), the first interval
 * after s from a leaf position, and the exact lookup used by writers. */
int hipsvm_itree_descend(const struct hipsvm_itree *t, uintptr_t s, struct path *p,
			 const struct node **leafp, unsigned *np);
int hipsvm_itree_successor(const struct hipsvm_itree *t, const struct node *leaf, unsigned n,
			   unsigned pos, uintptr_t s, struct hipsvm_ival *out);
int hipsvm_itree_find_exact(const struct hipsvm_itree *t, uintptr_t start, struct path *p,
			    unsigned *pos);

#endif
