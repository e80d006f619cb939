/* SPDX-License-Identifier: MIT */
/*
 * registry.c - live allocations: an interval tree behind a seqlock, and a
 * granule filter in front of it for the unmap hot path (see registry.h).
 *
 * Writers serialise on a mutex and make the sequence counter odd while they
 * change the piece tree. Readers never write shared memory: they read the
 * tree with the torn-tolerant _ro calls and retry when the counter moved.
 *
 * The granule filter (gfilter.h) counts the live pieces per 2 MiB granule.
 * Writers add a piece's counts before it enters the tree and take them away
 * after it has left: the counts over-approximate at every instant, so "all
 * zero" proves that nothing is tracked there, without the seqlock. Its
 * per-granule leaf hints let a lookup skip most of the tree's descent.
 *
 * An origin tree (writers only) maps each allocation's origin to its size
 * and live piece count, so that a free finds its pieces even when the first
 * byte was punched away, and an unknown pointer costs one lookup. When an
 * unmap takes an allocation's last piece, its origin entry stays behind as a
 * tombstone (no pieces, the last piece's attributes) until the allocation is
 * freed or a new allocation covers that address: a later free of memory the
 * program unmapped itself is then told apart from a free of a pointer that
 * was never allocated.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include "shim/gfilter.h"
#include "shim/itree.h"
#include "shim/registry.h"
#include "shim/sysmem.h"
#include "shim/testing.h"

#define SPINS		256	/* seqlock spins before yielding the CPU */
#define CHECK_EVERY	64	/* iteration steps between seqlock re-checks */

#define LD(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define ST(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

struct hipsvm_registry {
	pthread_mutex_t lock;
	uint32_t seq;
	struct hipsvm_itree *pieces;	/* seqlock readers read this one */
	struct hipsvm_itree *origins;	/* [origin, origin]: size, pieces */
	struct hipsvm_gfilter gf;	/* in front of the tree */
};

/* The registry this thread is writing, if any (initial-exec: no allocation
 * on first access, so safe in a signal handler). */
static __thread const struct hipsvm_registry *tl_writing
	__attribute__((tls_model("initial-exec")));

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause");
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* ---- a piece as the tree holds it (itree.h's .piece view) ---- */

static void to_ival(struct hipsvm_ival *iv, const struct hipsvm_alloc *a)
{
	iv->start = a->start;
	iv->last = a->last;
	iv->v.piece.origin = a->origin;
	iv->v.piece.origin_size = a->origin_size;
	iv->v.at = (struct hipsvm_attrs){
		.kind = a->kind, .api = a->api, .ctx = a->ctx,
		.device = a->device, .flags = a->flags, .route = a->route,
	};
}

static void to_alloc(struct hipsvm_alloc *a, uintptr_t start, uintptr_t last, uintptr_t origin,
		     uint64_t origin_size, const struct hipsvm_attrs *at)
{
	a->start = start;
	a->last = last;
	a->origin = origin;
	a->origin_size = origin_size;
	a->kind = at->kind;
	a->ctx = at->ctx;
	a->device = at->device;
	a->flags = at->flags;
	a->route = at->route;
	a->api = at->api;
}

static void unpack(struct hipsvm_alloc *a, const struct hipsvm_ival *iv)
{
	to_alloc(a, iv->start, iv->last, (uintptr_t)iv->v.piece.origin, iv->v.piece.origin_size,
		 &iv->v.at);
}

static uint32_t kind_of(const struct hipsvm_ival *iv)
{
	return iv->v.at.kind;
}

static uintptr_t origin_of(const struct hipsvm_ival *iv)
{
	return (uintptr_t)iv->v.piece.origin;
}

/* [addr, addr + len) as a closed range; false when empty. */
static bool range_of(uintptr_t addr, size_t len, uintptr_t *last)
{
	if (len == 0)
		return false;
	*last = addr + (len - 1) < addr ? UINTPTR_MAX : addr + (len - 1);
	return true;
}

/* ---- the seqlock ---- */

static void wr_lock(struct hipsvm_registry *r)
{
	pthread_mutex_lock(&r->lock);
	tl_writing = r;
}

static void wr_unlock(struct hipsvm_registry *r)
{
	tl_writing = NULL;
	pthread_mutex_unlock(&r->lock);
}

static void seq_begin(struct hipsvm_registry *r)
{
	ST(r->seq, r->seq + 1);
	/* Orders the odd count before the changes that follow it. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void seq_end(struct hipsvm_registry *r)
{
	__atomic_store_n(&r->seq, r->seq + 1, __ATOMIC_RELEASE);
}

static uint32_t rd_begin(const struct hipsvm_registry *r)
{
	for (unsigned spins = 0;; spins++) {
		uint32_t s = __atomic_load_n(&r->seq, __ATOMIC_ACQUIRE);

		if (!(s & 1))
			return s;
		if (spins < SPINS)
			cpu_relax();
		else
			sched_yield();
	}
}

/* True when what was read since rd_begin() returned s may be torn. */
static bool rd_retry(const struct hipsvm_registry *r, uint32_t s)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return LD(r->seq) != s;
}

/* ---- readers ---- */

/* Is a piece of a kind in mask inside [s, l]? Under the seqlock. */
static int tree_touches(const struct hipsvm_registry *r, uintptr_t s, uintptr_t l, uint32_t mask)
{
	uint32_t hint = hipsvm_gf_hint(&r->gf, s);

	for (;;) {
		uint32_t seq = rd_begin(r);
		struct hipsvm_ival iv;
		unsigned steps = 0;
		int found = 0, rc;

		for (rc = hipsvm_itree_iter_first_hint_ro(r->pieces, s, l, hint, &iv); rc == 0;
		     rc = hipsvm_itree_iter_next_ro(r->pieces, &iv, l, &iv)) {
			if (kind_of(&iv) < 32 && (mask >> kind_of(&iv) & 1)) {
				found = 1;
				break;
			}
			if (++steps % CHECK_EVERY == 0 && LD(r->seq) != seq)
				break;
		}
		if (!rd_retry(r, seq))
			return found;
	}
}

int hipsvm_reg_touches(const struct hipsvm_registry *r, uintptr_t addr, size_t len,
		       uint32_t kind_mask)
{
	unsigned c = (kind_mask & (1u << HIPSVM_KIND_DEVICE)) ? HIPSVM_GF_ALL : HIPSVM_GF_NONDEV;
	uintptr_t last;

	if (tl_writing == r)
		return -EDEADLK;
	if (!(kind_mask & ((1u << HIPSVM_KIND_COUNT) - 1)) || !range_of(addr, len, &last))
		return 0;
	if (!hipsvm_gf_hit(&r->gf, addr, last, c))
		return 0;
	return tree_touches(r, addr, last, kind_mask);
}

uint64_t *const *hipsvm_reg_svm_bits(const struct hipsvm_registry *r)
{
	return &r->gf.bits;
}

int hipsvm_reg_find(const struct hipsvm_registry *r, uintptr_t addr, struct hipsvm_alloc *out)
{
	struct hipsvm_ival iv;
	uint32_t hint;
	int rc;

	if (tl_writing == r)
		return -EDEADLK;
	if (!hipsvm_gf_hit(&r->gf, addr, addr, HIPSVM_GF_ALL))
		return -ENOENT;
	hint = hipsvm_gf_hint(&r->gf, addr);
	for (;;) {
		uint32_t seq = rd_begin(r);

		rc = hipsvm_itree_iter_first_hint_ro(r->pieces, addr, addr, hint, &iv);
		if (!rd_retry(r, seq))
			break;
	}
	if (rc)
		return -ENOENT;
	unpack(out, &iv);
	return 0;
}

int hipsvm_reg_overlaps(const struct hipsvm_registry *r, uintptr_t addr, size_t len,
			struct hipsvm_alloc *out, unsigned max)
{
	uintptr_t last;

	if (tl_writing == r)
		return -EDEADLK;
	if (!range_of(addr, len, &last))
		return 0;
	for (;;) {
		uint32_t seq = rd_begin(r);
		struct hipsvm_ival iv;
		unsigned n = 0;
		int rc;

		for (rc = hipsvm_itree_iter_first_ro(r->pieces, addr, last, &iv); rc == 0;
		     rc = hipsvm_itree_iter_next_ro(r->pieces, &iv, last, &iv)) {
			if (n < max)
				unpack(&out[n], &iv);
			n++;
			if (n % CHECK_EVERY == 0 && LD(r->seq) != seq)
				break;
		}
		if (!rd_retry(r, seq))
			return n > INT32_MAX ? INT32_MAX : (int)n;
	}
}

size_t hipsvm_reg_count(const struct hipsvm_registry *r)
{
	return hipsvm_itree_count(r->pieces);
}

/* ---- writers ---- */

/* The origin entry of origin (its .org view: the span a free searches and
 * the live piece count); a tombstone has no pieces and the attributes of
 * its last piece. */
static int origin_get(struct hipsvm_registry *r, uintptr_t origin, struct hipsvm_ival *o)
{
	return hipsvm_itree_iter_first(r->origins, origin, origin, o);
}

/* An unmap took the piece iv of its origin (cannot fail: no allocation).
 * The last piece leaves a tombstone behind. */
static void origin_put(struct hipsvm_registry *r, const struct hipsvm_ival *iv)
{
	uintptr_t origin = origin_of(iv);
	struct hipsvm_ival o;

	if (origin_get(r, origin, &o) || o.v.org.pieces == 0)
		return;
	o.v.org.pieces--;
	if (o.v.org.pieces == 0)
		o.v.at = iv->v.at;
	hipsvm_itree_update(r->origins, origin, &o);
}

/* A new piece covers [start, last]: tombstones of origins in there go (a
 * free of such an address now means the new allocation). */
static void bury_tombstones(struct hipsvm_registry *r, uintptr_t start, uintptr_t last)
{
	struct hipsvm_ival o;
	uintptr_t cur = start;

	while (hipsvm_itree_iter_first(r->origins, cur, last, &o) == 0) {
		if (o.v.org.pieces == 0)
			hipsvm_itree_remove(r->origins, o.start, NULL);
		if (o.start >= last)
			break;
		cur = o.start + 1;
	}
}

int hipsvm_reg_insert(struct hipsvm_registry *r, const struct hipsvm_alloc *a)
{
	struct hipsvm_ival iv, o;
	uint64_t span;
	int rc;

	if (a->last < a->start || a->kind >= HIPSVM_KIND_COUNT || a->origin > a->start)
		return -EINVAL;
	if (tl_writing == r)
		return -EDEADLK;
	to_ival(&iv, a);
	wr_lock(r);
	if (hipsvm_itree_iter_first(r->pieces, a->start, a->last, &o) == 0) {
		rc = -EEXIST;
		goto out;
	}
	rc = hipsvm_itree_reserve(r->pieces, 1);
	if (!rc)
		rc = hipsvm_itree_reserve(r->origins, 1);
	if (!rc)
		rc = hipsvm_gf_prepare(&r->gf, a->start, a->last);
	if (rc)
		goto out;
	hipsvm_gf_adj(&r->gf, a->start, a->last, a->kind == HIPSVM_KIND_DEVICE, 1);
	seq_begin(r);
	rc = hipsvm_itree_insert(r->pieces, &iv);
	seq_end(r);
	hipsvm_gf_set_hint(&r->gf, a->start, a->last, hipsvm_itree_leaf_of(r->pieces, a->start));
	bury_tombstones(r, a->start, a->last);
	/* The span that a free searches must cover the piece, whatever
	 * origin_size says. */
	span = a->last - a->origin + 1;
	if (span == 0 || a->origin_size > span)
		span = span == 0 ? UINT64_MAX : a->origin_size;
	if (origin_get(r, a->origin, &o) == 0 && o.v.org.pieces == 0) {
		/* a tombstone below the new piece: the allocation is new */
		o.v.org.span = span;
		o.v.org.pieces = 1;
		hipsvm_itree_update(r->origins, a->origin, &o);
	} else if (origin_get(r, a->origin, &o) == 0) {
		if (span > o.v.org.span)
			o.v.org.span = span;
		o.v.org.pieces++;
		hipsvm_itree_update(r->origins, a->origin, &o);
	} else {
		memset(&o, 0, sizeof(o));
		o.start = o.last = a->origin;
		o.v.org.span = span;
		o.v.org.pieces = 1;
		hipsvm_itree_insert(r->origins, &o);
	}
out:
	wr_unlock(r);
	return rc;
}

int hipsvm_reg_remove_origin(struct hipsvm_registry *r, uintptr_t origin,
			     struct hipsvm_alloc *first, uint64_t *bytes)
{
	struct hipsvm_ival o, iv, lo = { 0 };
	uintptr_t cur = origin, last;
	uint64_t total = 0;
	bool any = false;

	if (tl_writing == r)
		return -EDEADLK;
	wr_lock(r);
	if (origin_get(r, origin, &o)) {
		wr_unlock(r);
		return -ENOENT;
	}
	if (o.v.org.pieces == 0) {
		/* every byte was unmapped already: hand back what it was */
		hipsvm_itree_remove(r->origins, origin, NULL);
		wr_unlock(r);
		if (first)
			to_alloc(first, origin, origin, origin, o.v.org.span, &o.v.at);
		if (bytes)
			*bytes = 0;
		return -ESTALE;
	}
	if (!range_of(origin, o.v.org.span ? o.v.org.span : 1, &last))
		last = origin;
	/* Skip what lives in the holes of this allocation (other origins). */
	while (hipsvm_itree_iter_first(r->pieces, cur, last, &iv) == 0) {
		if (origin_of(&iv) == origin) {
			seq_begin(r);
			hipsvm_itree_remove(r->pieces, iv.start, NULL);
			seq_end(r);
			hipsvm_gf_adj(&r->gf, iv.start, iv.last, kind_of(&iv) == HIPSVM_KIND_DEVICE, -1);
			total += iv.last - iv.start + 1;
			if (!any)
				lo = iv;
			any = true;
		}
		if (iv.last >= last)
			break;
		cur = iv.last + 1;
	}
	hipsvm_itree_remove(r->origins, origin, NULL);
	wr_unlock(r);
	if (!any)
		return -ENOENT;
	if (first)
		unpack(first, &lo);
	if (bytes)
		*bytes = total;
	return 0;
}

/* For tests (testing.h). */
int hipsvm_reg_find_origin(struct hipsvm_registry *r, uintptr_t origin, struct hipsvm_alloc *out)
{
	struct hipsvm_ival o, iv;
	uintptr_t cur = origin, last;
	int rc = -ENOENT;

	if (tl_writing == r)
		return -EDEADLK;
	wr_lock(r);
	if (origin_get(r, origin, &o) == 0) {
		if (!range_of(origin, o.v.org.span ? o.v.org.span : 1, &last))
			last = origin;
		while (hipsvm_itree_iter_first(r->pieces, cur, last, &iv) == 0) {
			if (origin_of(&iv) == origin) {
				unpack(out, &iv);
				rc = 0;
				break;
			}
			if (iv.last >= last)
				break;
			cur = iv.last + 1;
		}
	}
	wr_unlock(r);
	return rc;
}

int hipsvm_reg_punch(struct hipsvm_registry *r, uintptr_t addr, size_t len,
		     hipsvm_reg_piece_fn cb, void *arg)
{
	struct hipsvm_ival iv, o, head, tail, hole;
	struct hipsvm_alloc piece;
	uintptr_t last, cur = addr;
	int n = 0;

	if (tl_writing == r)
		return -EDEADLK;
	if (!range_of(addr, len, &last))
		return 0;
	wr_lock(r);
	/* Everything that can fail comes first, so that nothing changes when
	 * memory is short: only a hole strictly inside one piece adds a piece,
	 * and a head or tail may count in a leaf that its piece covered whole. */
	if (hipsvm_itree_iter_first(r->pieces, addr, last, &iv) == 0) {
		int rc = 0;

		if (iv.start < addr && iv.last > last)
			rc = hipsvm_itree_reserve(r->pieces, 1);
		if (!rc && addr > 0)
			rc = hipsvm_gf_prepare(&r->gf, addr - 1, addr - 1);
		if (!rc && last < UINTPTR_MAX)
			rc = hipsvm_gf_prepare(&r->gf, last + 1, last + 1);
		if (rc) {
			wr_unlock(r);
			return rc;
		}
	}
	while (hipsvm_itree_iter_first(r->pieces, cur, last, &iv) == 0) {
		bool has_head = iv.start < addr, has_tail = iv.last > last;

		head = tail = hole = iv;
		head.last = addr - 1;
		tail.start = last + 1;
		hole.start = has_head ? addr : iv.start;
		hole.last = has_tail ? last : iv.last;
		/* Counts for what stays go up before the change, the old
		 * piece's go down after it (see the top of the file). */
		if (has_head)
			hipsvm_gf_adj(&r->gf, head.start, head.last, kind_of(&iv) == HIPSVM_KIND_DEVICE, 1);
		if (has_tail)
			hipsvm_gf_adj(&r->gf, tail.start, tail.last, kind_of(&iv) == HIPSVM_KIND_DEVICE, 1);
		seq_begin(r);
		if (has_head)
			hipsvm_itree_update(r->pieces, iv.start, &head);
		else if (has_tail)
			hipsvm_itree_update(r->pieces, iv.start, &tail);
		else
			hipsvm_itree_remove(r->pieces, iv.start, NULL);
		if (has_head && has_tail)
			hipsvm_itree_insert(r->pieces, &tail);
		seq_end(r);
		if (has_head && has_tail)
			hipsvm_gf_set_hint(&r->gf, tail.start, tail.last, hipsvm_itree_leaf_of(r->pieces, tail.start));
		hipsvm_gf_adj(&r->gf, iv.start, iv.last, kind_of(&iv) == HIPSVM_KIND_DEVICE, -1);
		if (!has_head && !has_tail) {
			origin_put(r, &iv);
		} else if (has_head && has_tail &&
			   origin_get(r, origin_of(&iv), &o) == 0) {
			o.v.org.pieces++;
			hipsvm_itree_update(r->origins, o.start, &o);
		}
		if (cb) {
			unpack(&piece, &hole);
			cb(arg, &piece);
		}
		n++;
		if (iv.last >= last)
			break;
		cur = iv.last + 1;
	}
	wr_unlock(r);
	return n;
}

/* ---- for tests (testing.h) ---- */

void hipsvm_reg_foreach(struct hipsvm_registry *r, hipsvm_reg_visit_fn fn, void *arg)
{
	struct hipsvm_ival iv;
	struct hipsvm_alloc a;
	int rc;

	if (tl_writing == r)
		return;
	wr_lock(r);
	for (rc = hipsvm_itree_iter_first(r->pieces, 0, UINTPTR_MAX, &iv); rc == 0;
	     rc = hipsvm_itree_iter_next(r->pieces, &iv, UINTPTR_MAX, &iv)) {
		unpack(&a, &iv);
		fn(arg, &a);
	}
	wr_unlock(r);
}

int hipsvm_reg_check(struct hipsvm_registry *r)
{
	struct hipsvm_ival iv, o;
	uint64_t pieces = 0;
	int rc, bad = 0;

	if (tl_writing == r)
		return -EDEADLK;
	wr_lock(r);
	if (hipsvm_itree_check(r->pieces) || hipsvm_itree_check(r->origins))
		bad = 1;
	for (rc = hipsvm_itree_iter_first(r->pieces, 0, UINTPTR_MAX, &iv); rc == 0 && !bad;
	     rc = hipsvm_itree_iter_next(r->pieces, &iv, UINTPTR_MAX, &iv))
		if (origin_get(r, origin_of(&iv), &o) ||
		    iv.last - o.start > o.v.org.span - 1 || !hipsvm_gf_hit(&r->gf, iv.start, iv.last,
			    kind_of(&iv) == HIPSVM_KIND_DEVICE ? HIPSVM_GF_ALL : HIPSVM_GF_NONDEV))
			bad = 1;
	for (rc = hipsvm_itree_iter_first(r->origins, 0, UINTPTR_MAX, &o); rc == 0 && !bad;
	     rc = hipsvm_itree_iter_next(r->origins, &o, UINTPTR_MAX, &o)) {
		uintptr_t cur = o.start, last;
		uint64_t n = 0;

		if (!range_of(o.start, o.v.org.span ? o.v.org.span : 1, &last))
			last = o.start;
		while (hipsvm_itree_iter_first(r->pieces, cur, last, &iv) == 0) {
			n += origin_of(&iv) == o.start;
			if (iv.last >= last)
				break;
			cur = iv.last + 1;
		}
		/* a tombstone says no pieces, and has none */
		if (n != o.v.org.pieces)
			bad = 1;
		pieces += n;
	}
	if (!bad && pieces != hipsvm_itree_count(r->pieces))
		bad = 1;
	wr_unlock(r);
	return bad ? -EUCLEAN : 0;
}

void hipsvm_reg_atfork_prepare(struct hipsvm_registry *r)
{
	/* fork() from inside a punch callback already holds the lock. */
	if (tl_writing != r)
		pthread_mutex_lock(&r->lock);
}

void hipsvm_reg_atfork_parent(struct hipsvm_registry *r)
{
	if (tl_writing != r)
		pthread_mutex_unlock(&r->lock);
}

/* ---- fork ---- */

void hipsvm_reg_atfork_child(struct hipsvm_registry *r)
{
	pthread_mutex_init(&r->lock, NULL);
	/* fork() from inside a punch callback: the writer still runs in the
	 * child and will unlock on its way out, so it must own the new lock. */
	if (tl_writing == r)
		pthread_mutex_lock(&r->lock);
	/* A fork in the middle of another thread's change leaves the counter
	 * odd; readers in the child must not wait for a thread that is gone. */
	if (r->seq & 1)
		seq_end(r);
}

int hipsvm_reg_create(struct hipsvm_registry **out)
{
	struct hipsvm_registry *r = hipsvm_sysmem_map(sizeof(*r));
	int rc;

	if (!r)
		return -ENOMEM;
	pthread_mutex_init(&r->lock, NULL);
	rc = hipsvm_itree_create(&r->pieces);
	if (!rc) {
		rc = hipsvm_itree_create(&r->origins);
		if (rc)
			hipsvm_itree_destroy(r->pieces);
	}
	if (rc) {
		hipsvm_sysmem_unmap(r, sizeof(*r));
		return rc;
	}
	*out = r;
	return 0;
}

void hipsvm_reg_destroy(struct hipsvm_registry *r)
{
	if (!r)
		return;
	hipsvm_itree_destroy(r->pieces);
	hipsvm_itree_destroy(r->origins);
	hipsvm_gf_destroy(&r->gf);
	pthread_mutex_destroy(&r->lock);
	hipsvm_sysmem_unmap(r, sizeof(*r));
}
