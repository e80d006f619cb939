/* SPDX-License-Identifier: MIT */
/*
 * itree.c - the interval map as a B+tree over a pool of nodes (see itree.h).
 *
 * The intervals do not overlap, so ordering them by start also orders them by
 * last: an overlap query is "the predecessor of start, else its successor",
 * which a B+tree with linked leaves answers in one descent.
 *
 * Nodes are named by 32-bit indices into a pool whose chunks (64 << k nodes
 * for chunk k) are mapped on demand and stay mapped while the tree lives, so
 * a reader holding a stale index still reads mapped memory. Every field that
 * a reader may look at is written with a relaxed atomic store and read with a
 * relaxed atomic load: a torn view is a wrong answer (rejected by the
 * caller's seqlock), never undefined behaviour, and ThreadSanitizer agrees.
 *
 * Deletion rebalances (merge or borrow below a quarter full), so every node
 * but the root holds at least LEAF_MIN entries or INNER_MIN children and the
 * depth stays logarithmic however the tree is churned.
 *
 * Memory comes from the mmap system call directly: inside the preload module
 * a call to mmap()/munmap() would enter our own hooks.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "itree.h"

#define LEAF_MAX	16
#define LEAF_MIN	4
#define INNER_MAX	32
#define INNER_MIN	8
#define MAX_DEPTH	24	/* inner levels; INNER_MIN^23 is far beyond 2^32 nodes */
#define NDATA		5
#define POOL_SHIFT	6	/* chunk k holds 64 << k nodes */
#define POOL_BASE	(1u << POOL_SHIFT)
#define POOL_CHUNKS	26	/* 64 * (2^26 - 1) nodes: every 32-bit index */

#define HUGE_MIN	((size_t)4 << 20)

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
			uint64_t data[LEAF_MAX][NDATA];
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

static void *map_mem(size_t len)
{
	int saved = errno;
	long p = syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	/* Big pools are walked at random: fewer TLB misses with huge pages. */
	if (p != -1 && len >= HUGE_MIN)
		syscall(SYS_madvise, (void *)p, len, MADV_HUGEPAGE);
	errno = saved;
	return p == -1 ? NULL : (void *)p;
}

static void unmap_mem(void *p, size_t len)
{
	int saved = errno;

	syscall(SYS_munmap, p, len);
	errno = saved;
}

/* ---- the pool ---- */

static struct node *node_at(const struct hipsvm_itree *t, uint32_t idx)
{
	uint64_t v = (uint64_t)idx + POOL_BASE;
	unsigned k = 63 - __builtin_clzll(v) - POOL_SHIFT;
	struct node *c;

	if (idx == 0 || idx >= LD(t->nalloc) || k >= POOL_CHUNKS)
		return NULL;
	c = __atomic_load_n(&t->chunk[k], __ATOMIC_ACQUIRE);
	return c ? &c[v - ((uint64_t)POOL_BASE << k)] : NULL;
}

static int pool_reserve(struct hipsvm_itree *t, uint64_t need)
{
	while ((uint64_t)t->nfree + t->nmapped < need + t->nalloc) {
		unsigned k = t->nchunks;
		size_t nodes = (size_t)POOL_BASE << k;
		struct node *c;

		if (k >= POOL_CHUNKS)
			return -ENOMEM;
		c = map_mem(nodes * sizeof(*c));
		if (!c)
			return -ENOMEM;
		__atomic_store_n(&t->chunk[k], c, __ATOMIC_RELEASE);
		t->nchunks = k + 1;
		t->nmapped = (uint32_t)(POOL_BASE * ((2ull << k) - 1));
	}
	return 0;
}

/* Only after pool_reserve(): cannot fail. */
static uint32_t node_new(struct hipsvm_itree *t, uint32_t leaf)
{
	uint32_t idx = t->free_head;
	struct node *nd;

	if (idx) {
		nd = node_at(t, idx);
		t->free_head = nd->next;
		t->nfree--;
	} else {
		idx = t->nalloc;
		ST(t->nalloc, idx + 1);
		nd = node_at(t, idx);
	}
	ST(nd->leaf, leaf);
	ST(nd->n, 0);
	ST(nd->prev, 0);
	ST(nd->next, 0);
	return idx;
}

static void node_free(struct hipsvm_itree *t, uint32_t idx)
{
	struct node *nd = node_at(t, idx);

	ST(nd->n, 0);
	ST(nd->next, t->free_head);
	t->free_head = idx;
	t->nfree++;
}

/* ---- reading (shared by writers and torn-tolerant readers) ---- */

/*
 * Searches count the keys <= s instead of bisecting: with at most 32 keys a
 * branch-free count is faster than four mispredicted, dependent probes, and
 * in a torn node it still returns an index within bounds.
 */

/* Number of entries with start <= s. */
static unsigned leaf_upper(const struct node *nd, unsigned n, uintptr_t s)
{
	unsigned c = 0;

	for (unsigned i = 0; i < n; i++)
		c += LD(nd->u.l.start[i]) <= s;
	return c;
}

/* The child to descend into for s: the last j with j == 0 || key[j] <= s. */
static unsigned inner_slot(const struct node *nd, unsigned n, uintptr_t s)
{
	unsigned c = 0;

	for (unsigned j = 1; j < n; j++)
		c += LD(nd->u.i.key[j]) <= s;
	return c;
}

static void read_entry(const struct node *nd, unsigned i, struct hipsvm_ival *out)
{
	out->start = LD(nd->u.l.start[i]);
	out->last = LD(nd->u.l.last[i]);
	for (unsigned d = 0; d < NDATA; d++)
		out->data[d] = LD(nd->u.l.data[i][d]);
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
static const struct node *leaf_at(const struct hipsvm_itree *t, uint32_t idx, unsigned *n)
{
	const struct node *nd = node_at(t, idx);

	if (!nd || !LD(nd->leaf))
		return NULL;
	*n = LD(nd->n);
	return *n && *n <= LEAF_MAX ? nd : NULL;
}

/* Descends towards s. 0 and the leaf (with its entry count), -ENOENT when
 * the tree is empty, -EAGAIN on an inconsistent view. */
static int descend(const struct hipsvm_itree *t, uintptr_t s, struct path *p,
		   const struct node **leafp, unsigned *np)
{
	uint32_t idx = LD(t->root);
	unsigned depth = LD(t->depth);

	if (!idx)
		return -ENOENT;
	if (depth > MAX_DEPTH)
		return -EAGAIN;
	for (unsigned lvl = 0; lvl < depth; lvl++) {
		const struct node *nd = node_at(t, idx);
		unsigned n, j;

		if (nd)
			prefetch_keys(nd, sizeof(nd->u.i.key));
		if (!nd || LD(nd->leaf))
			return -EAGAIN;
		n = LD(nd->n);
		if (n == 0 || n > INNER_MAX)
			return -EAGAIN;
		j = inner_slot(nd, n, s);
		if (p) {
			p->idx[lvl] = idx;
			p->slot[lvl] = j;
		}
		idx = LD(nd->u.i.child[j]);
	}
	if (node_at(t, idx))
		prefetch_keys(node_at(t, idx), sizeof((*leafp)->u.l.start));
	*leafp = leaf_at(t, idx, np);
	if (!*leafp)
		return -EAGAIN;
	if (p)
		p->idx[depth] = idx;
	return 0;
}

/* The first entry with start > s, looking from a leaf where upper(s) == pos. */
static int successor(const struct hipsvm_itree *t, const struct node *leaf, unsigned n,
		     unsigned pos, uintptr_t s, struct hipsvm_ival *out)
{
	if (pos >= n) {
		uint32_t next = LD(leaf->next);

		if (!next)
			return -ENOENT;
		leaf = leaf_at(t, next, &n);
		if (!leaf)
			return -EAGAIN;
		pos = 0;
	}
	read_entry(leaf, pos, out);
	return out->start > s ? 0 : -EAGAIN;
}

static int first_overlap(const struct hipsvm_itree *t, uintptr_t s, uintptr_t l,
			 struct hipsvm_ival *out)
{
	const struct node *leaf;
	struct hipsvm_ival c;
	unsigned n, pos;
	int rc;

	if (l < s)
		return -ENOENT;
	rc = descend(t, s, NULL, &leaf, &n);
	if (rc)
		return rc;
	pos = leaf_upper(leaf, n, s);
	/* Overlap of [c.start, c.last] and [s, l]: c.start <= l && s <= c.last. */
	if (pos > 0) {
		read_entry(leaf, pos - 1, &c);
	} else {
		const struct node *prev;
		uint32_t pidx = LD(leaf->prev);
		unsigned pn;

		c.start = 1;
		c.last = 0;	/* an empty stand-in: overlaps nothing */
		if (pidx) {
			prev = leaf_at(t, pidx, &pn);
			if (!prev)
				return -EAGAIN;
			read_entry(prev, pn - 1, &c);
			if (c.start > s)
				return -EAGAIN;
		}
	}
	if (c.start <= c.last && c.start <= l && s <= c.last) {
		*out = c;
		return 0;
	}
	rc = successor(t, leaf, n, pos, s, &c);
	if (rc)
		return rc;
	if (c.start > l)
		return -ENOENT;
	*out = c;
	return 0;
}

static int next_overlap(const struct hipsvm_itree *t, const struct hipsvm_ival *prev,
			uintptr_t l, struct hipsvm_ival *out)
{
	const struct node *leaf;
	struct hipsvm_ival c;
	unsigned n;
	int rc;

	/* prev overlapped the query, so everything after it reaches its start. */
	rc = descend(t, prev->start, NULL, &leaf, &n);
	if (rc)
		return rc;
	rc = successor(t, leaf, n, leaf_upper(leaf, n, prev->start), prev->start, &c);
	if (rc)
		return rc;
	if (c.start > l)
		return -ENOENT;
	*out = c;
	return 0;
}

int hipsvm_itree_iter_first(const struct hipsvm_itree *t, uintptr_t start, uintptr_t last,
			    struct hipsvm_ival *out)
{
	return first_overlap(t, start, last, out);
}

int hipsvm_itree_iter_next(const struct hipsvm_itree *t, const struct hipsvm_ival *prev,
			   uintptr_t last, struct hipsvm_ival *out)
{
	return next_overlap(t, prev, last, out);
}

int hipsvm_itree_iter_first_ro(const struct hipsvm_itree *t, uintptr_t start, uintptr_t last,
			       struct hipsvm_ival *out)
{
	return first_overlap(t, start, last, out);
}

int hipsvm_itree_iter_next_ro(const struct hipsvm_itree *t, const struct hipsvm_ival *prev,
			      uintptr_t last, struct hipsvm_ival *out)
{
	return next_overlap(t, prev, last, out);
}

/*
 * A live leaf holds a run of consecutive intervals. When its first start is
 * <= s and its last end is >= s, the first interval overlapping [s, l] is
 * the predecessor of s in this leaf, or else the next one in this leaf. A
 * freed node has n == 0 and is refused by leaf_at(); a node reused as a
 * leaf elsewhere is a live leaf again, and the span check decides.
 */
int hipsvm_itree_iter_first_hint_ro(const struct hipsvm_itree *t, uintptr_t start,
				    uintptr_t last, uint32_t hint, struct hipsvm_ival *out)
{
	const struct node *leaf;
	struct hipsvm_ival c;
	unsigned n, pos;

	if (!hint || last < start)
		return first_overlap(t, start, last, out);
	leaf = node_at(t, hint);
	if (leaf)
		prefetch_keys(leaf, sizeof(leaf->u.l.start));
	leaf = leaf_at(t, hint, &n);
	if (!leaf || LD(leaf->u.l.start[0]) > start || LD(leaf->u.l.last[n - 1]) < start)
		return first_overlap(t, start, last, out);
	pos = leaf_upper(leaf, n, start);
	if (pos > 0) {
		read_entry(leaf, pos - 1, &c);
		if (c.start <= start && start <= c.last) {
			*out = c;
			return 0;
		}
		if (pos < n) {
			read_entry(leaf, pos, &c);
			if (c.start > start) {
				if (c.start > last)
					return -ENOENT;
				*out = c;
				return 0;
			}
		}
	}
	return first_overlap(t, start, last, out);	/* torn: let the descent decide */
}

size_t hipsvm_itree_count(const struct hipsvm_itree *t)
{
	return (size_t)LD(t->count);
}

/* ---- writing (the caller serialises writers) ---- */

static struct node *wnode(struct hipsvm_itree *t, uint32_t idx)
{
	return node_at(t, idx);
}

static void copy_entry(struct node *dst, unsigned di, const struct node *src, unsigned si)
{
	ST(dst->u.l.start[di], src->u.l.start[si]);
	ST(dst->u.l.last[di], src->u.l.last[si]);
	for (unsigned d = 0; d < NDATA; d++)
		ST(dst->u.l.data[di][d], src->u.l.data[si][d]);
}

static void write_entry(struct node *nd, unsigned i, const struct hipsvm_ival *iv)
{
	ST(nd->u.l.start[i], iv->start);
	ST(nd->u.l.last[i], iv->last);
	for (unsigned d = 0; d < NDATA; d++)
		ST(nd->u.l.data[i][d], iv->data[d]);
}

static void copy_inner(struct node *dst, unsigned di, const struct node *src, unsigned si)
{
	ST(dst->u.i.key[di], src->u.i.key[si]);
	ST(dst->u.i.child[di], src->u.i.child[si]);
}

static void leaf_put(struct node *nd, unsigned pos, const struct hipsvm_ival *iv)
{
	for (unsigned i = nd->n; i > pos; i--)
		copy_entry(nd, i, nd, i - 1);
	write_entry(nd, pos, iv);
	ST(nd->n, nd->n + 1);
}

static void inner_put(struct node *nd, unsigned slot, uintptr_t key, uint32_t child)
{
	for (unsigned j = nd->n; j > slot; j--)
		copy_inner(nd, j, nd, j - 1);
	ST(nd->u.i.key[slot], key);
	ST(nd->u.i.child[slot], child);
	ST(nd->n, nd->n + 1);
}

/* Adds child (whose smallest start is >= key) right of slot path->slot[lvl]. */
static void push_up(struct hipsvm_itree *t, struct path *p, int lvl, uintptr_t key,
		    uint32_t child)
{
	for (; lvl >= 0; lvl--) {
		struct node *nd = wnode(t, p->idx[lvl]), *r;
		unsigned slot = p->slot[lvl] + 1, half = INNER_MAX / 2, n = nd->n, keep;
		uint32_t ridx;
		uintptr_t up;

		if (n < INNER_MAX) {
			inner_put(nd, slot, key, child);
			return;
		}
		ridx = node_new(t, 0);
		r = wnode(t, ridx);
		if (slot == n) {	/* appending: the new child alone on the right */
			ST(r->u.i.child[0], child);
			ST(r->n, 1);
			child = ridx;	/* key stays the separator to push up */
			continue;
		}
		keep = slot == 1 ? 1 : half;	/* descending order: keep the left small */
		for (unsigned j = keep; j < n; j++)
			copy_inner(r, j - keep, nd, j);
		up = nd->u.i.key[keep];
		ST(r->n, n - keep);
		ST(nd->n, keep);
		if (slot <= keep)
			inner_put(nd, slot, key, child);
		else
			inner_put(r, slot - keep, key, child);
		key = up;
		child = ridx;
	}
	/* The root split: a new root over the two halves. */
	uint32_t nr = node_new(t, 0);
	struct node *root = wnode(t, nr);

	ST(root->u.i.child[0], t->root);
	ST(root->u.i.key[1], key);
	ST(root->u.i.child[1], child);
	ST(root->n, 2);
	ST(t->root, nr);
	ST(t->depth, t->depth + 1);
}

int hipsvm_itree_reserve(struct hipsvm_itree *t, unsigned n)
{
	/* Each insert allocates at most one node per level plus a new root. */
	return pool_reserve(t, (uint64_t)n * (t->depth + n + 2));
}

int hipsvm_itree_insert(struct hipsvm_itree *t, const struct hipsvm_ival *iv)
{
	const struct node *cleaf;
	struct hipsvm_ival tmp;
	struct path p;
	struct node *leaf, *r;
	unsigned n, pos, keep, half = LEAF_MAX / 2;
	uint32_t ridx;
	int rc;

	if (iv->last < iv->start)
		return -EINVAL;
	if (first_overlap(t, iv->start, iv->last, &tmp) == 0)
		return -EEXIST;
	if (t->depth >= MAX_DEPTH)	/* cannot happen with >= 2^32 nodes; be sure */
		return -ENOMEM;
	rc = hipsvm_itree_reserve(t, 1);
	if (rc)
		return rc;
	if (!t->root) {
		ridx = node_new(t, 1);
		leaf_put(wnode(t, ridx), 0, iv);
		ST(t->depth, 0);
		ST(t->root, ridx);
		ST(t->count, t->count + 1);
		return 0;
	}
	descend(t, iv->start, &p, &cleaf, &n);
	leaf = wnode(t, p.idx[t->depth]);
	pos = leaf_upper(leaf, n, iv->start);
	ST(t->count, t->count + 1);
	if (n < LEAF_MAX) {
		leaf_put(leaf, pos, iv);
		return 0;
	}
	/* Allocations tend to come in address order (up or down): a split at
	 * an end leaves the full node full instead of two half-empty ones. */
	keep = pos == n ? n : pos == 0 ? 0 : half;
	ridx = node_new(t, 1);
	r = wnode(t, ridx);
	for (unsigned i = keep; i < n; i++)
		copy_entry(r, i - keep, leaf, i);
	ST(r->n, n - keep);
	ST(leaf->n, keep);
	ST(r->prev, p.idx[t->depth]);
	ST(r->next, leaf->next);
	if (leaf->next)
		ST(wnode(t, leaf->next)->prev, ridx);
	ST(leaf->next, ridx);
	if (pos < n && pos <= keep)
		leaf_put(leaf, pos, iv);
	else
		leaf_put(r, pos - keep, iv);
	push_up(t, &p, (int)t->depth - 1, r->u.l.start[0], ridx);
	return 0;
}

/* Moves entries/children between siblings l and r (r right of l, separated
 * by parent->key[rs]) until l holds want. */
static void balance(struct node *par, unsigned rs, struct node *l, struct node *r, unsigned want)
{
	if (l->leaf) {
		unsigned ln = l->n, rn = r->n;

		if (ln < want) {
			unsigned k = want - ln;

			for (unsigned i = 0; i < k; i++)
				copy_entry(l, ln + i, r, i);
			for (unsigned i = k; i < rn; i++)
				copy_entry(r, i - k, r, i);
			ST(l->n, ln + k);
			ST(r->n, rn - k);
		} else {
			unsigned k = ln - want;

			for (unsigned i = rn; i-- > 0;)
				copy_entry(r, i + k, r, i);
			for (unsigned i = 0; i < k; i++)
				copy_entry(r, i, l, want + i);
			ST(r->n, rn + k);
			ST(l->n, want);
		}
		ST(par->u.i.key[rs], r->u.l.start[0]);
		return;
	}
	while (l->n < want) {	/* rotate one child from r to l */
		unsigned ln = l->n, rn = r->n;

		ST(l->u.i.key[ln], par->u.i.key[rs]);
		ST(l->u.i.child[ln], r->u.i.child[0]);
		ST(l->n, ln + 1);
		ST(par->u.i.key[rs], r->u.i.key[1]);
		for (unsigned j = 0; j + 1 < rn; j++)
			copy_inner(r, j, r, j + 1);
		ST(r->n, rn - 1);
	}
	while (l->n > want) {	/* rotate one child from l to r */
		unsigned ln = l->n, rn = r->n;

		for (unsigned j = rn; j > 0; j--)
			copy_inner(r, j, r, j - 1);
		ST(r->u.i.key[1], par->u.i.key[rs]);
		ST(r->u.i.child[0], l->u.i.child[ln - 1]);
		ST(r->n, rn + 1);
		ST(par->u.i.key[rs], l->u.i.key[ln - 1]);
		ST(l->n, ln - 1);
	}
}

/* Drops child slot j of an inner node. */
static void drop_child(struct node *par, unsigned j)
{
	if (j == 0) {	/* child 1 moves to slot 0, its separator goes */
		ST(par->u.i.child[0], par->u.i.child[1]);
		j = 1;
	}
	for (; j + 1 < par->n; j++)
		copy_inner(par, j, par, j + 1);
	ST(par->n, par->n - 1);
}

static void unlink_leaf(struct hipsvm_itree *t, struct node *nd)
{
	if (nd->prev)
		ST(wnode(t, nd->prev)->next, nd->next);
	if (nd->next)
		ST(wnode(t, nd->next)->prev, nd->prev);
}

/* Restores the minimum fill from level lvl up after a removal. An empty
 * node leaves its parent; an underfull one merges with or borrows from a
 * sibling; one without a sibling (an append split leaves inner nodes with
 * one child) waits for its parent to be merged at the next level. */
static void rebalance(struct hipsvm_itree *t, struct path *p, int lvl)
{
	for (; lvl > 0; lvl--) {
		struct node *nd = wnode(t, p->idx[lvl]), *par, *l, *r;
		unsigned min = nd->leaf ? LEAF_MIN : INNER_MIN;
		unsigned max = nd->leaf ? LEAF_MAX : INNER_MAX;
		unsigned ps = p->slot[lvl - 1], rs;
		uint32_t lidx, ridx;

		if (nd->n >= min)
			return;
		par = wnode(t, p->idx[lvl - 1]);
		if (nd->n == 0) {
			if (nd->leaf)
				unlink_leaf(t, nd);
			drop_child(par, ps);
			node_free(t, p->idx[lvl]);
			continue;
		}
		if (par->n < 2)
			continue;
		rs = ps > 0 ? ps : 1;
		lidx = par->u.i.child[rs - 1];
		ridx = par->u.i.child[rs];
		l = wnode(t, lidx);
		r = wnode(t, ridx);
		if (l->n + r->n > max) {
			balance(par, rs, l, r, (l->n + r->n) / 2);
			return;
		}
		/* Merge r into l, then drop r from the parent. */
		if (l->leaf) {
			for (unsigned i = 0; i < r->n; i++)
				copy_entry(l, l->n + i, r, i);
			unlink_leaf(t, r);
		} else {
			ST(l->u.i.key[l->n], par->u.i.key[rs]);
			ST(l->u.i.child[l->n], r->u.i.child[0]);
			for (unsigned j = 1; j < r->n; j++)
				copy_inner(l, l->n + j, r, j);
		}
		ST(l->n, l->n + r->n);
		drop_child(par, rs);
		node_free(t, ridx);
	}
	/* The root: drop it when empty, collapse it while it has one child. */
	for (;;) {
		struct node *root = wnode(t, t->root);
		uint32_t old = t->root;

		if (root->n == 0) {
			node_free(t, old);
			ST(t->root, 0);
			ST(t->depth, 0);
			return;
		}
		if (root->leaf || root->n != 1)
			return;
		ST(t->root, root->u.i.child[0]);
		ST(t->depth, t->depth - 1);
		node_free(t, old);
	}
}

static int find_exact(const struct hipsvm_itree *t, uintptr_t start, struct path *p,
		      unsigned *pos)
{
	const struct node *leaf;
	unsigned n, up;

	if (descend(t, start, p, &leaf, &n))
		return -ENOENT;
	up = leaf_upper(leaf, n, start);
	if (up == 0 || leaf->u.l.start[up - 1] != start)
		return -ENOENT;
	*pos = up - 1;
	return 0;
}

uint32_t hipsvm_itree_leaf_of(const struct hipsvm_itree *t, uintptr_t start)
{
	struct path p;
	unsigned pos;

	if (find_exact(t, start, &p, &pos))
		return 0;
	return p.idx[t->depth];
}

int hipsvm_itree_remove(struct hipsvm_itree *t, uintptr_t start, struct hipsvm_ival *out)
{
	struct path p;
	struct node *leaf;
	unsigned pos;

	if (find_exact(t, start, &p, &pos))
		return -ENOENT;
	leaf = wnode(t, p.idx[t->depth]);
	if (out)
		read_entry(leaf, pos, out);
	for (unsigned i = pos + 1; i < leaf->n; i++)
		copy_entry(leaf, i - 1, leaf, i);
	ST(leaf->n, leaf->n - 1);
	ST(t->count, t->count - 1);
	rebalance(t, &p, (int)t->depth);
	return 0;
}

/*
 * The last entry of a leaf moves its start up (still below its successor).
 * The separator above the leaf may be lower than the successor (left stale
 * by removals) and so possibly <= the new start, which would send a descent
 * to the next leaf. The successor's start is a valid separator there: it is
 * the smallest start on the right and above everything on the left.
 */
static void tighten_upper(struct hipsvm_itree *t, const struct path *p, const struct node *leaf,
			  uintptr_t start)
{
	struct hipsvm_ival nx;

	if (successor(t, leaf, leaf->n, leaf->n, start, &nx))
		return;
	for (int lvl = (int)t->depth - 1; lvl >= 0; lvl--) {
		struct node *nd = wnode(t, p->idx[lvl]);

		if (p->slot[lvl] + 1 < nd->n) {
			ST(nd->u.i.key[p->slot[lvl] + 1], nx.start);
			return;
		}
	}
}

int hipsvm_itree_update(struct hipsvm_itree *t, uintptr_t start, const struct hipsvm_ival *iv)
{
	struct hipsvm_ival cur, o;
	struct path p;
	struct node *leaf;
	unsigned pos;
	int rc;

	if (iv->last < iv->start)
		return -EINVAL;
	if (find_exact(t, start, &p, &pos))
		return -ENOENT;
	leaf = wnode(t, p.idx[t->depth]);
	read_entry(leaf, pos, &cur);
	/* In place when it still lies between its neighbours, unless it grows
	 * below a start that a parent uses as a separator (pos == 0). */
	if (iv->start >= cur.start || pos > 0) {
		bool fits = true;

		if (iv->start < cur.start && leaf->u.l.last[pos - 1] >= iv->start)
			fits = false;
		if (iv->last > cur.last &&
		    first_overlap(t, cur.last + 1, iv->last, &o) == 0)
			fits = false;
		if (fits) {
			if (iv->start > cur.start && pos + 1 == leaf->n)
				tighten_upper(t, &p, leaf, cur.start);
			write_entry(leaf, pos, iv);
			return 0;
		}
	}
	for (rc = first_overlap(t, iv->start, iv->last, &o); rc == 0;
	     rc = next_overlap(t, &o, iv->last, &o))
		if (o.start != start)
			return -EEXIST;
	rc = hipsvm_itree_reserve(t, 1);
	if (rc)
		return rc;
	hipsvm_itree_remove(t, start, NULL);
	return hipsvm_itree_insert(t, iv);
}

int hipsvm_itree_create(struct hipsvm_itree **out)
{
	struct hipsvm_itree *t = map_mem(sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->nalloc = 1;
	*out = t;
	return 0;
}

void hipsvm_itree_destroy(struct hipsvm_itree *t)
{
	if (!t)
		return;
	for (unsigned k = 0; k < t->nchunks; k++)
		unmap_mem(t->chunk[k], ((size_t)POOL_BASE << k) * sizeof(struct node));
	unmap_mem(t, sizeof(*t));
}

/* ---- self-check (tests) ---- */

struct check {
	uint32_t prev_leaf;
	uint64_t count;
	bool bad;
};

/* Every start under node idx must lie in [lo, hi) (has_* false: unbounded). */
static void check_node(const struct hipsvm_itree *t, struct check *ck, uint32_t idx,
		       unsigned lvl, uintptr_t lo, bool has_lo, uintptr_t hi, bool has_hi)
{
	const struct node *nd = node_at(t, idx);

	if (!nd || ck->bad || lvl > MAX_DEPTH) {
		ck->bad = true;
		return;
	}
	if (lvl == t->depth) {
		if (!nd->leaf || nd->n == 0 || nd->n > LEAF_MAX || nd->prev != ck->prev_leaf ||
		    (ck->prev_leaf && node_at(t, ck->prev_leaf)->next != idx))
			ck->bad = true;
		for (unsigned i = 0; i < nd->n && !ck->bad; i++)
			ck->bad = nd->u.l.last[i] < nd->u.l.start[i] ||
				  (i && nd->u.l.start[i] <= nd->u.l.last[i - 1]) ||
				  (has_lo && nd->u.l.start[i] < lo) ||
				  (has_hi && nd->u.l.start[i] >= hi);
		ck->prev_leaf = idx;
		ck->count += nd->n;
		return;
	}
	if (nd->leaf || nd->n == 0 || nd->n > INNER_MAX) {
		ck->bad = true;
		return;
	}
	for (unsigned j = 0; j < nd->n; j++) {
		if (j > 1 && nd->u.i.key[j] <= nd->u.i.key[j - 1])
			ck->bad = true;
		check_node(t, ck, nd->u.i.child[j], lvl + 1, j ? nd->u.i.key[j] : lo,
			   j ? true : has_lo, j + 1 < nd->n ? nd->u.i.key[j + 1] : hi,
			   j + 1 < nd->n ? true : has_hi);
	}
}

int hipsvm_itree_check(const struct hipsvm_itree *t)
{
	struct check ck = { 0, 0, false };

	if (t->root) {
		check_node(t, &ck, t->root, 0, 0, false, 0, false);
		if (!ck.bad && node_at(t, ck.prev_leaf)->next)
			ck.bad = true;
	}
	if (ck.count != t->count)
		ck.bad = true;
	return ck.bad ? -EUCLEAN : 0;
}
