/* SPDX-License-Identifier: MIT */
/*
 * itree.c - the interval map as a B+tree over a pool of nodes (see itree.h):
 * the reading side. Changes and the pool are in itree_write.c.
 *
 * The intervals do not overlap, so ordering them by start also orders them by
 * last: an overlap query is "the predecessor of start, else its successor",
 * which a B+tree with linked leaves answers in one descent.
 *
 * Every read here tolerates a torn view (see itree.h): fields are read with
 * relaxed atomic loads, node indices are bounds-checked against a pool that
 * is never unmapped while the tree lives, entry counts are checked against
 * the node capacity and every loop is bounded. An inconsistency found on the
 * way gives -EAGAIN; one not found gives a wrong answer that the caller's
 * seqlock rejects.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "shim/itree_node.h"

/* Descends towards s. 0 and the leaf (with its entry count), -ENOENT when
 * the tree is empty, -EAGAIN on an inconsistent view. */
int hipsvm_itree_descend(const struct hipsvm_itree *t, uintptr_t s, struct path *p,
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
int hipsvm_itree_successor(const struct hipsvm_itree *t, const struct node *leaf, unsigned n,
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
	rc = hipsvm_itree_descend(t, s, NULL, &leaf, &n);
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
	rc = hipsvm_itree_successor(t, leaf, n, pos, s, &c);
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
	rc = hipsvm_itree_descend(t, prev->start, NULL, &leaf, &n);
	if (rc)
		return rc;
	rc = hipsvm_itree_successor(t, leaf, n, leaf_upper(leaf, n, prev->start), prev->start, &c);
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
		prefetch_keys(leaf, sizeof(leaf->u.l));
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

int hipsvm_itree_find_exact(const struct hipsvm_itree *t, uintptr_t start, struct path *p,
			    unsigned *pos)
{
	const struct node *leaf;
	unsigned n, up;

	if (hipsvm_itree_descend(t, start, p, &leaf, &n))
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

	if (hipsvm_itree_find_exact(t, start, &p, &pos))
		return 0;
	return p.idx[t->depth];
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
