/* SPDX-License-Identifier: MIT */
/*
 * itree_write.c - the interval tree's pool and every change to the tree.
 * The caller serialises writers (registry.c holds a mutex and a seqlock).
 *
 * Nodes are named by 32-bit indices into a pool whose chunks (64 << k nodes
 * for chunk k) are mapped on demand and stay mapped while the tree lives, so
 * a reader holding a stale index still reads mapped memory; freed nodes go to
 * a free list. Every field that a reader may look at is written with ST().
 *
 * Deletion rebalances (merge or borrow below a quarter full) and drops empty
 * nodes, so churn does not grow the tree. Splits at the end of a node (the
 * order in which allocations usually arrive) leave the full node full.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shim/itree_node.h"
#include "shim/sysmem.h"

/* ---- the pool ---- */

static int pool_reserve(struct hipsvm_itree *t, uint64_t need)
{
	while ((uint64_t)t->nfree + t->nmapped < need + t->nalloc) {
		unsigned k = t->nchunks;
		size_t nodes = (size_t)POOL_BASE << k;
		struct node *c;

		if (k >= POOL_CHUNKS)
			return -ENOMEM;
		c = hipsvm_sysmem_map(nodes * sizeof(*c));
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

/* ---- changes ---- */

static struct node *wnode(struct hipsvm_itree *t, uint32_t idx)
{
	return node_at(t, idx);
}

static void copy_entry(struct node *dst, unsigned di, const struct node *src, unsigned si)
{
	ST(dst->u.l.start[di], src->u.l.start[si]);
	ST(dst->u.l.last[di], src->u.l.last[si]);
	val_copy(&dst->u.l.val[di], &src->u.l.val[si]);
}

static void write_entry(struct node *nd, unsigned i, const struct hipsvm_ival *iv)
{
	ST(nd->u.l.start[i], iv->start);
	ST(nd->u.l.last[i], iv->last);
	val_copy(&nd->u.l.val[i], &iv->v);
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
	if (hipsvm_itree_iter_first(t, iv->start, iv->last, &tmp) == 0)
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
	hipsvm_itree_descend(t, iv->start, &p, &cleaf, &n);
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

int hipsvm_itree_remove(struct hipsvm_itree *t, uintptr_t start, struct hipsvm_ival *out)
{
	struct path p;
	struct node *leaf;
	unsigned pos;

	if (hipsvm_itree_find_exact(t, start, &p, &pos))
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

	if (hipsvm_itree_successor(t, leaf, leaf->n, leaf->n, start, &nx))
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
	if (hipsvm_itree_find_exact(t, start, &p, &pos))
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
		    hipsvm_itree_iter_first(t, cur.last + 1, iv->last, &o) == 0)
			fits = false;
		if (fits) {
			if (iv->start > cur.start && pos + 1 == leaf->n)
				tighten_upper(t, &p, leaf, cur.start);
			write_entry(leaf, pos, iv);
			return 0;
		}
	}
	for (rc = hipsvm_itree_iter_first(t, iv->start, iv->last, &o); rc == 0;
	     rc = hipsvm_itree_iter_next(t, &o, iv->last, &o))
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
	struct hipsvm_itree *t = hipsvm_sysmem_map(sizeof(*t));

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
		hipsvm_sysmem_unmap(t->chunk[k], ((size_t)POOL_BASE << k) * sizeof(struct node));
	hipsvm_sysmem_unmap(t, sizeof(*t));
}
