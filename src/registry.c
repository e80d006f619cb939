/* SPDX-License-Identifier: MIT */
/*
 * registry.c - live allocations: an interval tree behind a seqlock, and a
 * granule filter in front of it for the unmap hot path (see registry.h).
 *
 * Writers serialise on a mutex and make the sequence counter odd while they
 * change the piece tree. Readers never write shared memory: they read the
 * tree with the torn-tolerant _ro calls and retry when the counter moved.
 *
 * The granule filter counts, for every 2 MiB granule of the 48-bit address
 * space, the live pieces that touch it, once for all kinds and once for the
 * kinds other than device memory (so that a query for the SVM kinds is not
 * sent to the tree just because device allocations sit nearby). A piece that
 * covers a whole 32 GiB leaf is counted once in full[] instead of 16384
 * times, and pieces at or above 2^48 (no user mapping lives there today)
 * only in hi[]. Writers add a piece's counts before it enters the tree and
 * take them away after it has left: the counts over-approximate at every
 * instant, so "all zero" proves that nothing is tracked there.
 *
 * An origin tree (writers only) maps each allocation's origin to its size
 * and live piece count, so that a free finds its pieces even when the first
 * byte was punched away, and an unknown pointer costs one lookup.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "itree.h"
#include "registry.h"

#define GRAN_SHIFT	21
#define VA_BITS		48
#define VA_LIMIT	((uintptr_t)1 << VA_BITS)
#define GLEAF_SHIFT	14			/* granules per leaf: 32 GiB */
#define GLEAF_N		(1u << GLEAF_SHIFT)
#define LSPAN_SHIFT	(GRAN_SHIFT + GLEAF_SHIFT)
#define TOP_N		(1u << (VA_BITS - LSPAN_SHIFT))
#define SPINS		256	/* seqlock spins before yielding the CPU */
#define CHECK_EVERY	64	/* iteration steps between seqlock re-checks */
#define HINT_MAX	16	/* granules of a piece that get a leaf hint */

enum { CLS_ALL, CLS_NONDEV, NCLS };

#define LD(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define ST(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* Per granule: the counts, and a hint to the tree leaf that last received a
 * piece here (so that a lookup usually reads one tree leaf, not a path). */
struct gslot {
	uint32_t cnt[NCLS];
	uint32_t hint;
	uint32_t pad;
};

struct gleaf {
	uint32_t sum[NCLS];
	struct gslot g[GLEAF_N];
};

struct hipsvm_registry {
	pthread_mutex_t lock;
	uint32_t seq;
	struct hipsvm_itree *pieces;	/* seqlock readers read this one */
	struct hipsvm_itree *origins;	/* [origin, origin]: size, pieces */
	uint32_t hi[NCLS];
	uint32_t full[NCLS][TOP_N];
	struct gleaf *top[TOP_N];
};

/* The registry this thread is writing, if any (initial-exec: no allocation
 * on first access, so safe in a signal handler). */
static __thread const struct hipsvm_registry *tl_writing
	__attribute__((tls_model("initial-exec")));

static void *map_mem(size_t len)
{
	int saved = errno;
	long p = syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	errno = saved;
	return p == -1 ? NULL : (void *)p;
}

static void unmap_mem(void *p, size_t len)
{
	int saved = errno;

	syscall(SYS_munmap, p, len);
	errno = saved;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause");
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* ---- payload packing ---- */

static void pack(struct hipsvm_ival *iv, const struct hipsvm_alloc *a)
{
	iv->start = a->start;
	iv->last = a->last;
	iv->data[0] = a->origin;
	iv->data[1] = a->origin_size;
	iv->data[2] = a->kind | (uint64_t)a->api << 32;
	iv->data[3] = (uint32_t)a->ctx | (uint64_t)(uint32_t)a->device << 32;
	iv->data[4] = a->flags | (uint64_t)a->route << 32;
}

static void unpack(struct hipsvm_alloc *a, const struct hipsvm_ival *iv)
{
	a->start = iv->start;
	a->last = iv->last;
	a->origin = (uintptr_t)iv->data[0];
	a->origin_size = iv->data[1];
	a->kind = (uint32_t)iv->data[2];
	a->api = (uint32_t)(iv->data[2] >> 32);
	a->ctx = (int32_t)(uint32_t)iv->data[3];
	a->device = (int32_t)(uint32_t)(iv->data[3] >> 32);
	a->flags = (uint32_t)iv->data[4];
	a->route = (uint32_t)(iv->data[4] >> 32);
}

static uint32_t kind_of(const struct hipsvm_ival *iv)
{
	return (uint32_t)iv->data[2];
}

/* [addr, addr + len) as a closed range; false when empty. */
static bool range_of(uintptr_t addr, size_t len, uintptr_t *last)
{
	if (len == 0)
		return false;
	*last = addr + (len - 1) < addr ? UINTPTR_MAX : addr + (len - 1);
	return true;
}

/* ---- granule filter ---- */

/* Allocates the leaves that a piece [s, l] counts in (only the ones it does
 * not cover whole: at most the first and the last). */
static int filter_prepare(struct hipsvm_registry *r, uintptr_t s, uintptr_t l)
{
	uintptr_t ends[2] = { s, l };

	if (s >= VA_LIMIT)
		return 0;
	if (l >= VA_LIMIT)
		ends[1] = VA_LIMIT - 1;
	for (unsigned e = 0; e < 2; e++) {
		size_t li = ends[e] >> LSPAN_SHIFT;
		struct gleaf *g;

		if (r->top[li])
			continue;
		g = map_mem(sizeof(*g));
		if (!g)
			return -ENOMEM;
		__atomic_store_n(&r->top[li], g, __ATOMIC_RELEASE);
	}
	return 0;
}

static void filter_adj(struct hipsvm_registry *r, uintptr_t s, uintptr_t l, uint32_t kind,
		       int32_t d)
{
	unsigned ncls = kind == HIPSVM_KIND_DEVICE ? 1 : 2;

	if (l >= VA_LIMIT) {
		for (unsigned c = 0; c < ncls; c++)
			ST(r->hi[c], r->hi[c] + d);
		if (s >= VA_LIMIT)
			return;
		l = VA_LIMIT - 1;
	}
	for (size_t li = s >> LSPAN_SHIFT; li <= l >> LSPAN_SHIFT; li++) {
		uintptr_t ls = (uintptr_t)li << LSPAN_SHIFT;
		uintptr_t ll = ls + (((uintptr_t)1 << LSPAN_SHIFT) - 1);
		struct gleaf *g = r->top[li];
		unsigned g0, g1;

		if (s <= ls && l >= ll) {
			for (unsigned c = 0; c < ncls; c++)
				ST(r->full[c][li], r->full[c][li] + d);
			continue;
		}
		g0 = ((s > ls ? s : ls) >> GRAN_SHIFT) & (GLEAF_N - 1);
		g1 = ((l < ll ? l : ll) >> GRAN_SHIFT) & (GLEAF_N - 1);
		for (unsigned c = 0; c < ncls; c++) {
			ST(g->sum[c], g->sum[c] + d * (int32_t)(g1 - g0 + 1));
			for (unsigned i = g0; i <= g1; i++)
				ST(g->g[i].cnt[c], g->g[i].cnt[c] + d);
		}
	}
}

/* May anything of class c lie in [s, l]? Reads only, no lock. */
static bool filter_hit(const struct hipsvm_registry *r, uintptr_t s, uintptr_t l, unsigned c)
{
	if (l >= VA_LIMIT) {
		if (LD(r->hi[c]))
			return true;
		if (s >= VA_LIMIT)
			return false;
		l = VA_LIMIT - 1;
	}
	for (size_t li = s >> LSPAN_SHIFT; li <= l >> LSPAN_SHIFT; li++) {
		const struct gleaf *g;
		uintptr_t ls = (uintptr_t)li << LSPAN_SHIFT;
		uintptr_t ll = ls + (((uintptr_t)1 << LSPAN_SHIFT) - 1);
		unsigned g0, g1;

		if (LD(r->full[c][li]))
			return true;
		g = __atomic_load_n(&r->top[li], __ATOMIC_ACQUIRE);
		if (!g)
			continue;
		g0 = ((s > ls ? s : ls) >> GRAN_SHIFT) & (GLEAF_N - 1);
		g1 = ((l < ll ? l : ll) >> GRAN_SHIFT) & (GLEAF_N - 1);
		/* A leaf whose allocations are all gone costs one line. */
		if (!LD(g->sum[c]))
			continue;
		for (unsigned i = g0; i <= g1; i++)
			if (LD(g->g[i].cnt[c]))
				return true;
	}
	return false;
}

/* The leaf hint of the granule of addr, 0 if none. */
static uint32_t hint_of(const struct hipsvm_registry *r, uintptr_t addr)
{
	const struct gleaf *g;

	if (addr >= VA_LIMIT)
		return 0;
	g = __atomic_load_n(&r->top[addr >> LSPAN_SHIFT], __ATOMIC_ACQUIRE);
	return g ? LD(g->g[(addr >> GRAN_SHIFT) & (GLEAF_N - 1)].hint) : 0;
}

/* Points the granules of a new piece at its tree leaf (the first few only:
 * a hint is a shortcut, and a huge piece is found by a descent anyway). */
static void hint_set(struct hipsvm_registry *r, uintptr_t s, uintptr_t l)
{
	uint32_t leaf = hipsvm_itree_leaf_of(r->pieces, s);

	for (unsigned k = 0; k < HINT_MAX && s < VA_LIMIT && s <= l; k++) {
		struct gleaf *g = r->top[s >> LSPAN_SHIFT];
		uintptr_t next = (s | (((uintptr_t)1 << GRAN_SHIFT) - 1)) + 1;

		if (g)
			ST(g->g[(s >> GRAN_SHIFT) & (GLEAF_N - 1)].hint, leaf);
		if (next == 0)
			break;
		s = next;
	}
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
	uint32_t hint = hint_of(r, s);

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
	unsigned c = (kind_mask & (1u << HIPSVM_KIND_DEVICE)) ? CLS_ALL : CLS_NONDEV;
	uintptr_t last;

	if (tl_writing == r)
		return -EDEADLK;
	if (!(kind_mask & ((1u << HIPSVM_KIND_COUNT) - 1)) || !range_of(addr, len, &last))
		return 0;
	if (!filter_hit(r, addr, last, c))
		return 0;
	return tree_touches(r, addr, last, kind_mask);
}

int hipsvm_reg_find(const struct hipsvm_registry *r, uintptr_t addr, struct hipsvm_alloc *out)
{
	struct hipsvm_ival iv;
	uint32_t hint;
	int rc;

	if (tl_writing == r)
		return -EDEADLK;
	if (!filter_hit(r, addr, addr, CLS_ALL))
		return -ENOENT;
	hint = hint_of(r, addr);
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

/* The origin entry of origin: data[0] size, data[1] live pieces. */
static int origin_get(struct hipsvm_registry *r, uintptr_t origin, struct hipsvm_ival *o)
{
	return hipsvm_itree_iter_first(r->origins, origin, origin, o);
}

/* One piece of origin went away (cannot fail: no allocation). */
static void origin_put(struct hipsvm_registry *r, uintptr_t origin)
{
	struct hipsvm_ival o;

	if (origin_get(r, origin, &o))
		return;
	if (o.data[1] <= 1) {
		hipsvm_itree_remove(r->origins, origin, NULL);
	} else {
		o.data[1]--;
		hipsvm_itree_update(r->origins, origin, &o);
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
	pack(&iv, a);
	wr_lock(r);
	if (hipsvm_itree_iter_first(r->pieces, a->start, a->last, &o) == 0) {
		rc = -EEXIST;
		goto out;
	}
	rc = hipsvm_itree_reserve(r->pieces, 1);
	if (!rc)
		rc = hipsvm_itree_reserve(r->origins, 1);
	if (!rc)
		rc = filter_prepare(r, a->start, a->last);
	if (rc)
		goto out;
	filter_adj(r, a->start, a->last, a->kind, 1);
	seq_begin(r);
	rc = hipsvm_itree_insert(r->pieces, &iv);
	seq_end(r);
	hint_set(r, a->start, a->last);
	/* The span that a free searches must cover the piece, whatever
	 * origin_size says. */
	span = a->last - a->origin + 1;
	if (span == 0 || a->origin_size > span)
		span = span == 0 ? UINT64_MAX : a->origin_size;
	if (origin_get(r, a->origin, &o) == 0) {
		if (span > o.data[0])
			o.data[0] = span;
		o.data[1]++;
		hipsvm_itree_update(r->origins, a->origin, &o);
	} else {
		memset(&o, 0, sizeof(o));
		o.start = o.last = a->origin;
		o.data[0] = span;
		o.data[1] = 1;
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
	if (!range_of(origin, o.data[0] ? o.data[0] : 1, &last))
		last = origin;
	/* Skip what lives in the holes of this allocation (other origins). */
	while (hipsvm_itree_iter_first(r->pieces, cur, last, &iv) == 0) {
		if (iv.data[0] == origin) {
			seq_begin(r);
			hipsvm_itree_remove(r->pieces, iv.start, NULL);
			seq_end(r);
			filter_adj(r, iv.start, iv.last, kind_of(&iv), -1);
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
			rc = filter_prepare(r, addr - 1, addr - 1);
		if (!rc && last < UINTPTR_MAX)
			rc = filter_prepare(r, last + 1, last + 1);
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
			filter_adj(r, head.start, head.last, kind_of(&iv), 1);
		if (has_tail)
			filter_adj(r, tail.start, tail.last, kind_of(&iv), 1);
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
			hint_set(r, tail.start, tail.last);
		filter_adj(r, iv.start, iv.last, kind_of(&iv), -1);
		if (!has_head && !has_tail) {
			origin_put(r, (uintptr_t)iv.data[0]);
		} else if (has_head && has_tail &&
			   origin_get(r, (uintptr_t)iv.data[0], &o) == 0) {
			o.data[1]++;
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
	struct hipsvm_registry *r = map_mem(sizeof(*r));
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
		unmap_mem(r, sizeof(*r));
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
	for (size_t li = 0; li < TOP_N; li++)
		if (r->top[li])
			unmap_mem(r->top[li], sizeof(struct gleaf));
	pthread_mutex_destroy(&r->lock);
	unmap_mem(r, sizeof(*r));
}
