/* SPDX-License-Identifier: MIT */
/* test_itree.c - the interval map (src/shim/itree.c): cases and a brute-force model. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "shim/itree.h"
#include "test_rand.h"

static struct hipsvm_itree *t;

static void setup(void)
{
	cr_assert_eq(hipsvm_itree_create(&t), 0);
}

static void teardown(void)
{
	hipsvm_itree_destroy(t);
}

static struct hipsvm_ival mk(uintptr_t s, uintptr_t l)
{
	struct hipsvm_ival iv;

	memset(&iv, 0, sizeof(iv));
	iv.start = s;
	iv.last = l;
	/* A record derived from s, different in every field. */
	iv.v.piece.origin = s * 31;
	iv.v.piece.origin_size = s * 31 + 1;
	iv.v.at.kind = (uint32_t)(s * 31 + 2);
	iv.v.at.api = (uint32_t)(s * 31 + 3);
	iv.v.at.ctx = (int32_t)(s * 31 + 4);
	iv.v.at.device = (int32_t)(s * 31 + 5);
	iv.v.at.flags = (uint32_t)(s * 31 + 6);
	iv.v.at.route = (uint32_t)(s * 31 + 7);
	return iv;
}

static int ins(uintptr_t s, uintptr_t l)
{
	struct hipsvm_ival iv = mk(s, l);

	return hipsvm_itree_insert(t, &iv);
}

/* Collects the starts overlapping [s, l] in order. */
static unsigned query(uintptr_t s, uintptr_t l, uintptr_t *out, unsigned max)
{
	struct hipsvm_ival iv;
	unsigned n = 0;

	for (int rc = hipsvm_itree_iter_first(t, s, l, &iv); rc == 0;
	     rc = hipsvm_itree_iter_next(t, &iv, l, &iv)) {
		if (n < max)
			out[n] = iv.start;
		n++;
	}
	return n;
}

TestSuite(itree, .init = setup, .fini = teardown);

Test(itree, empty)
{
	struct hipsvm_ival iv;

	cr_assert_eq(hipsvm_itree_count(t), 0);
	cr_assert_eq(hipsvm_itree_iter_first(t, 0, UINTPTR_MAX, &iv), -ENOENT);
	cr_assert_eq(hipsvm_itree_iter_first_ro(t, 0, UINTPTR_MAX, &iv), -ENOENT);
	cr_assert_eq(hipsvm_itree_remove(t, 0, NULL), -ENOENT);
	iv = mk(1, 2);
	cr_assert_eq(hipsvm_itree_update(t, 1, &iv), -ENOENT);
}

Test(itree, insert_overlap_rules)
{
	uintptr_t got[8];

	cr_assert_eq(ins(100, 199), 0);
	cr_assert_eq(ins(200, 299), 0, "adjacent above");
	cr_assert_eq(ins(99, 99), 0, "adjacent below, single byte");
	cr_assert_eq(ins(150, 150), -EEXIST);
	cr_assert_eq(ins(0, 99), -EEXIST);
	cr_assert_eq(ins(299, 400), -EEXIST);
	cr_assert_eq(ins(0, UINTPTR_MAX), -EEXIST);
	cr_assert_eq(ins(10, 9), -EINVAL);
	cr_assert_eq(hipsvm_itree_count(t), 3);
	cr_assert_eq(query(0, UINTPTR_MAX, got, 8), 3);
	cr_assert(got[0] == 99 && got[1] == 100 && got[2] == 200);
	cr_assert_eq(query(199, 200, got, 8), 2);
	cr_assert(got[0] == 100 && got[1] == 200);
	cr_assert_eq(query(300, 1000, got, 8), 0);
	cr_assert_eq(query(0, 98, got, 8), 0);
	cr_assert_eq(query(99, 99, got, 8), 1);
}

Test(itree, extremes)
{
	struct hipsvm_ival iv;
	uintptr_t got[4];

	cr_assert_eq(ins(0, 0), 0);
	cr_assert_eq(ins(UINTPTR_MAX, UINTPTR_MAX), 0);
	cr_assert_eq(ins(1, UINTPTR_MAX - 1), 0);
	cr_assert_eq(query(0, UINTPTR_MAX, got, 4), 3);
	cr_assert_eq(hipsvm_itree_iter_first(t, UINTPTR_MAX, UINTPTR_MAX, &iv), 0);
	cr_assert_eq(iv.start, UINTPTR_MAX);
	{
		struct hipsvm_ival want = mk(UINTPTR_MAX, UINTPTR_MAX);

		cr_assert_eq(memcmp(&iv.v, &want.v, sizeof(iv.v)), 0, "the record comes back whole");
		cr_assert_eq(iv.v.org.pieces, (uint64_t)UINTPTR_MAX * 31 + 1,
			     "the origin view reads the same words");
	}
	cr_assert_eq(hipsvm_itree_remove(t, 1, &iv), 0);
	cr_assert_eq(iv.last, UINTPTR_MAX - 1);
	cr_assert_eq(query(1, UINTPTR_MAX - 1, got, 4), 0);
	cr_assert_eq(query(0, 1, got, 4), 1);
}

Test(itree, update)
{
	struct hipsvm_ival iv, o;

	cr_assert_eq(ins(100, 199), 0);
	cr_assert_eq(ins(300, 399), 0);
	iv = mk(120, 180);
	cr_assert_eq(hipsvm_itree_update(t, 100, &iv), 0, "shrink in place");
	cr_assert_eq(hipsvm_itree_iter_first(t, 100, 119, &o), -ENOENT);
	cr_assert_eq(hipsvm_itree_iter_first(t, 150, 150, &o), 0);
	cr_assert_eq(o.start, 120);
	iv = mk(50, 299);
	cr_assert_eq(hipsvm_itree_update(t, 120, &iv), 0, "grow to the neighbour");
	iv = mk(50, 300);
	cr_assert_eq(hipsvm_itree_update(t, 50, &iv), -EEXIST);
	iv = mk(500, 600);
	cr_assert_eq(hipsvm_itree_update(t, 50, &iv), 0, "move past a neighbour");
	cr_assert_eq(hipsvm_itree_iter_first(t, 0, 299, &o), -ENOENT);
	cr_assert_eq(hipsvm_itree_iter_first(t, 400, UINTPTR_MAX, &o), 0);
	cr_assert_eq(o.start, 500);
	cr_assert_eq(hipsvm_itree_count(t), 2);
	iv = mk(5, 4);
	cr_assert_eq(hipsvm_itree_update(t, 500, &iv), -EINVAL);
}

Test(itree, many_sequential_then_churn)
{
	enum { N = 50000 };
	struct hipsvm_ival iv;

	for (uintptr_t i = 0; i < N; i++)
		cr_assert_eq(ins(i * 10, i * 10 + 4), 0);
	cr_assert_eq(hipsvm_itree_count(t), N);
	for (uintptr_t i = 0; i < N; i++) {
		cr_assert_eq(hipsvm_itree_iter_first_ro(t, i * 10 + 2, i * 10 + 7, &iv), 0);
		cr_assert_eq(iv.start, i * 10);
		cr_assert_eq(hipsvm_itree_iter_first(t, i * 10 + 5, i * 10 + 9, &iv), -ENOENT);
	}
	/* Remove every other one, then the rest, in the opposite order. */
	for (uintptr_t i = 0; i < N; i += 2)
		cr_assert_eq(hipsvm_itree_remove(t, i * 10, NULL), 0);
	for (uintptr_t i = N - 1; i < N; i -= 2)
		cr_assert_eq(hipsvm_itree_remove(t, i * 10, NULL), 0);
	cr_assert_eq(hipsvm_itree_count(t), 0);
	cr_assert_eq(hipsvm_itree_iter_first(t, 0, UINTPTR_MAX, &iv), -ENOENT);
	/* Churn: the pool must recycle nodes rather than grow. */
	for (unsigned round = 0; round < 20; round++) {
		for (uintptr_t i = 0; i < 5000; i++)
			cr_assert_eq(ins(i * 3, i * 3 + 1), 0);
		for (uintptr_t i = 0; i < 5000; i++)
			cr_assert_eq(hipsvm_itree_remove(t, i * 3, NULL), 0);
	}
	cr_assert_eq(hipsvm_itree_count(t), 0);
}

/* Allocation-like order (ascending and descending runs, as mmap hands out
 * addresses) splits at the ends of nodes; then random removals must keep
 * the tree valid and compact. Checked after every operation. */
Test(itree, ordered_runs_then_random_removal, .timeout = 300)
{
	uint64_t seed = test_seed(0x04de5eed), s = seed;
	enum { RUN = 3000 };
	static uintptr_t starts[4 * RUN];
	unsigned n = 0;

	cr_log_info("itree ordered_runs seed %#llx", (unsigned long long)seed);
	for (uintptr_t i = 0; i < RUN; i++) {	/* up, down, up with gaps, down */
		starts[n++] = 0x100000 + i * 16;
		starts[n++] = 0x900000 - i * 16;
		starts[n++] = 0x1000000 + i * 64;
		starts[n++] = 0x2000000 - i * 64;
	}
	for (unsigned i = 0; i < n; i++) {
		cr_assert_eq(ins(starts[i], starts[i] + 7), 0);
		if (i % 31 == 0)
			cr_assert_eq(hipsvm_itree_check(t), 0, "insert %u", i);
	}
	cr_assert_eq(hipsvm_itree_check(t), 0);
	for (unsigned i = n - 1; i > 0; i--) {	/* shuffle, then remove all */
		unsigned j = (unsigned)(rnd(&s) % (i + 1));
		uintptr_t x = starts[i];

		starts[i] = starts[j];
		starts[j] = x;
	}
	for (unsigned i = 0; i < n; i++) {
		cr_assert_eq(hipsvm_itree_remove(t, starts[i], NULL), 0);
		cr_assert_eq(hipsvm_itree_check(t), 0, "seed %#llx: remove %u",
			     (unsigned long long)seed, i);
	}
	cr_assert_eq(hipsvm_itree_count(t), 0);
}

/* ---- randomised cross-check against a sorted array ---- */

#define MODEL_MAX 20000

struct model {
	unsigned n;
	struct hipsvm_ival v[MODEL_MAX];
};

static struct model m;

static bool model_overlaps(uintptr_t s, uintptr_t l)
{
	for (unsigned i = 0; i < m.n; i++)
		if (m.v[i].start <= l && s <= m.v[i].last)
			return true;
	return false;
}

static int model_find(uintptr_t start)
{
	for (unsigned i = 0; i < m.n; i++)
		if (m.v[i].start == start)
			return (int)i;
	return -1;
}

static void model_insert(const struct hipsvm_ival *iv)
{
	unsigned i = m.n;

	while (i > 0 && m.v[i - 1].start > iv->start) {
		m.v[i] = m.v[i - 1];
		i--;
	}
	m.v[i] = *iv;
	m.n++;
}

static void model_remove(unsigned i)
{
	memmove(&m.v[i], &m.v[i + 1], (m.n - i - 1) * sizeof(m.v[0]));
	m.n--;
}

/* A random address in one of three windows: near 0, in the middle, near the top. */
static uintptr_t rnd_addr(uint64_t *s)
{
	uint64_t r = rnd(s);
	uintptr_t off = (uintptr_t)(r >> 20) & 0x3ffff;

	switch (r % 3) {
	case 0:
		return off;
	case 1:
		return ((uintptr_t)1 << 40) + off;
	default:
		return UINTPTR_MAX - off;
	}
}

static void rnd_range(uint64_t *s, uintptr_t *a, uintptr_t *b)
{
	uintptr_t x = rnd_addr(s), len;
	uint64_t r = rnd(s);

	switch (r % 8) {
	case 0:
		len = 0;			/* [x, x] */
		break;
	case 1:
		len = (uintptr_t)(r >> 8) % 4096;
		break;
	default:
		len = (uintptr_t)(r >> 8) % 64;
		break;
	}
	*a = x;
	*b = x + len < x ? UINTPTR_MAX : x + len;
}

static void check_query(uintptr_t a, uintptr_t b, uint64_t seed, unsigned op)
{
	struct hipsvm_ival iv;
	unsigned j = 0;
	int rc;

	while (j < m.n && m.v[j].last < a)
		j++;
	for (rc = hipsvm_itree_iter_first(t, a, b, &iv); rc == 0;
	     rc = hipsvm_itree_iter_next(t, &iv, b, &iv), j++) {
		cr_assert(j < m.n && m.v[j].start <= b,
			  "seed %#llx op %u: extra interval %#lx in [%#lx, %#lx]",
			  (unsigned long long)seed, op, (unsigned long)iv.start,
			  (unsigned long)a, (unsigned long)b);
		cr_assert(iv.start == m.v[j].start && iv.last == m.v[j].last &&
			  !memcmp(&iv.v, &m.v[j].v, sizeof(iv.v)),
			  "seed %#llx op %u: got [%#lx, %#lx], want [%#lx, %#lx]",
			  (unsigned long long)seed, op, (unsigned long)iv.start,
			  (unsigned long)iv.last, (unsigned long)m.v[j].start,
			  (unsigned long)m.v[j].last);
	}
	cr_assert_eq(rc, -ENOENT, "seed %#llx op %u: query [%#lx, %#lx] ended with %d after %u",
		     (unsigned long long)seed, op, (unsigned long)a, (unsigned long)b, rc, j);
	cr_assert(j >= m.n || m.v[j].start > b,
		  "seed %#llx op %u: missed [%#lx, %#lx] in [%#lx, %#lx]",
		  (unsigned long long)seed, op, (unsigned long)m.v[j].start,
		  (unsigned long)m.v[j].last, (unsigned long)a, (unsigned long)b);
	/* The torn-tolerant reader gives the same first answer on a quiet
	 * tree, and so does the hinted one whatever the hint: the leaf of a
	 * random interval, of a neighbour, or a random (maybe freed) index. */
	j = 0;
	while (j < m.n && m.v[j].last < a)
		j++;
	for (unsigned h = 0; h < 4; h++) {
		uint32_t hint = 0;

		if (h == 1 && m.n)
			hint = hipsvm_itree_leaf_of(t, m.v[(a >> 3) % m.n].start);
		else if (h == 2 && j < m.n)
			hint = hipsvm_itree_leaf_of(t, m.v[j].start);
		else if (h == 3)
			hint = (uint32_t)(a * 2654435761u) % 4096;
		rc = h == 0 ? hipsvm_itree_iter_first_ro(t, a, b, &iv) :
			      hipsvm_itree_iter_first_hint_ro(t, a, b, hint, &iv);
		if (j < m.n && m.v[j].start <= b)
			cr_assert(rc == 0 && iv.start == m.v[j].start,
				  "seed %#llx op %u (ro, hint kind %u)",
				  (unsigned long long)seed, op, h);
		else
			cr_assert_eq(rc, -ENOENT, "seed %#llx op %u (ro, hint kind %u)",
				     (unsigned long long)seed, op, h);
	}
}

Test(itree, random_vs_model, .timeout = 300)
{
	uint64_t seed = test_seed(0x17ee5eed), s = seed;
	enum { OPS = 150000 };

	cr_log_info("itree random_vs_model seed %#llx (HIPSVM_TEST_SEED)",
		    (unsigned long long)seed);
	m.n = 0;
	for (unsigned op = 0; op < OPS; op++) {
		uint64_t r = rnd(&s);
		/* Phases: grow for a while, then shrink, so that splits and
		 * merges both happen at several depths. */
		bool grow = (op / 20000) % 2 == 0;
		unsigned what = (unsigned)(r % 100);
		uintptr_t a, b;

		if (what < (grow ? 45u : 20u)) {
			struct hipsvm_ival iv;
			int want;

			rnd_range(&s, &a, &b);
			iv = mk(a, b);
			iv.v.piece.origin = r;
			iv.v.at.flags = (uint32_t)(r >> 32);
			want = model_overlaps(a, b) ? -EEXIST : 0;
			if (want == 0 && m.n == MODEL_MAX)
				continue;
			cr_assert_eq(hipsvm_itree_insert(t, &iv), want,
				     "seed %#llx op %u: insert [%#lx, %#lx]",
				     (unsigned long long)seed, op, (unsigned long)a,
				     (unsigned long)b);
			if (want == 0)
				model_insert(&iv);
		} else if (what < (grow ? 60u : 65u)) {
			struct hipsvm_ival out;
			int i = -1;

			if (m.n && (r >> 32) % 4)
				a = m.v[(r >> 8) % m.n].start;
			else
				a = rnd_addr(&s);
			i = model_find(a);
			cr_assert_eq(hipsvm_itree_remove(t, a, &out), i >= 0 ? 0 : -ENOENT,
				     "seed %#llx op %u: remove %#lx", (unsigned long long)seed,
				     op, (unsigned long)a);
			if (i >= 0) {
				cr_assert(out.last == m.v[i].last &&
				  !memcmp(&out.v, &m.v[i].v, sizeof(out.v)),
					  "seed %#llx op %u", (unsigned long long)seed, op);
				model_remove((unsigned)i);
			}
		} else if (what < 70 && m.n) {
			/* Shrink or move one interval. */
			unsigned i = (unsigned)((r >> 8) % m.n);
			struct hipsvm_ival old = m.v[i], iv = old;
			int want;

			if ((r >> 40) % 2 && old.last - old.start > 1) {
				iv.start++;
				iv.last--;
			} else {
				rnd_range(&s, &iv.start, &iv.last);
			}
			iv.v.piece.origin_size = r;
			iv.v.at.route = (uint32_t)r;
			model_remove(i);
			want = model_overlaps(iv.start, iv.last) ? -EEXIST : 0;
			model_insert(want ? &old : &iv);
			cr_assert_eq(hipsvm_itree_update(t, old.start, &iv), want,
				     "seed %#llx op %u: update [%#lx, %#lx] to [%#lx, %#lx]",
				     (unsigned long long)seed, op, (unsigned long)old.start,
				     (unsigned long)old.last, (unsigned long)iv.start,
				     (unsigned long)iv.last);
		} else {
			rnd_range(&s, &a, &b);
			if (r % 50 == 0) {
				a = 0;
				b = UINTPTR_MAX;
			}
			check_query(a, b, seed, op);
		}
		cr_assert_eq(hipsvm_itree_count(t), m.n, "seed %#llx op %u",
			     (unsigned long long)seed, op);
		if (op % 97 == 0)
			cr_assert_eq(hipsvm_itree_check(t), 0, "seed %#llx op %u",
				     (unsigned long long)seed, op);
	}
	check_query(0, UINTPTR_MAX, seed, OPS);
	cr_log_info("itree random_vs_model: %u intervals at the end", m.n);
}

/* ---- torn reads: readers run against a writer with no lock at all ---- */

static volatile int stop_torn;

static void *torn_reader(void *arg)
{
	uint64_t s = (uintptr_t)arg;
	unsigned long n = 0;

	while (!__atomic_load_n(&stop_torn, __ATOMIC_RELAXED)) {
		struct hipsvm_ival iv;
		uintptr_t a = (uintptr_t)(rnd(&s) % 200000);
		unsigned steps = 0;

		/* Any answer is fine; it must return, and not crash. */
		for (int rc = hipsvm_itree_iter_first_ro(t, a, a + 5000, &iv);
		     rc == 0 && steps < 100000;
		     rc = hipsvm_itree_iter_next_ro(t, &iv, a + 5000, &iv))
			steps++;
		n++;
	}
	return (void *)n;
}

Test(itree, torn_reads_never_crash, .timeout = 120)
{
	uint64_t seed = test_seed(0x70e17ead), s = seed;
	pthread_t th;

	cr_log_info("itree torn_reads seed %#llx", (unsigned long long)seed);
	stop_torn = 0;
	cr_assert_eq(pthread_create(&th, NULL, torn_reader, (void *)(uintptr_t)(seed | 1)), 0);
	for (unsigned op = 0; op < 300000; op++) {
		uintptr_t a = (uintptr_t)(rnd(&s) % 200000);

		if (rnd(&s) % 2)
			ins(a, a + (uintptr_t)(rnd(&s) % 50));
		else
			hipsvm_itree_remove(t, a, NULL);
	}
	__atomic_store_n(&stop_torn, 1, __ATOMIC_RELAXED);
	cr_assert_eq(pthread_join(th, NULL), 0);
}
