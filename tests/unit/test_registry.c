/* SPDX-License-Identifier: MIT */
/* test_registry.c - the allocation registry (src/registry.c): semantics, a
 * byte-range model, a million entries, concurrent readers, signal re-entry. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "registry.h"

#define KB ((uintptr_t)1 << 10)
#define MB ((uintptr_t)1 << 20)
#define GB ((uintptr_t)1 << 30)
#define ALL_KINDS ((1u << HIPSVM_KIND_COUNT) - 1)
#define SVM_KINDS (ALL_KINDS & ~(1u << HIPSVM_KIND_DEVICE))
#define BIT(k) (1u << (k))

static uint64_t test_seed(uint64_t def)
{
	const char *s = getenv("HIPSVM_TEST_SEED");

	return s && *s ? strtoull(s, NULL, 0) : def;
}

/* xorshift64*: reproducible from the printed seed on every libc. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

static struct hipsvm_registry *r;

static void setup(void)
{
	cr_assert_eq(hipsvm_reg_create(&r), 0);
}

static void teardown(void)
{
	hipsvm_reg_destroy(r);
}

static struct hipsvm_alloc mk(uintptr_t start, uintptr_t size, uint32_t kind)
{
	struct hipsvm_alloc a = {
		.start = start, .last = start + size - 1, .origin = start, .origin_size = size,
		.kind = kind, .ctx = kind == HIPSVM_KIND_DEVICE ? 1 : HIPSVM_CTX_HOST,
		.device = 1, .flags = 0x5, .route = 7, .api = HIPSVM_API_MALLOC_MANAGED,
	};

	return a;
}

static int add(uintptr_t start, uintptr_t size, uint32_t kind)
{
	struct hipsvm_alloc a = mk(start, size, kind);

	return hipsvm_reg_insert(r, &a);
}

TestSuite(registry, .init = setup, .fini = teardown);

Test(registry, insert_find_remove)
{
	struct hipsvm_alloc a, got;
	uint64_t bytes = 0;

	a = mk(0x7f0000100000, 1 * MB, HIPSVM_KIND_MANAGED);
	a.device = -1;
	a.ctx = 3;
	a.flags = 0xdeadbeef;
	a.route = 0xfffffff0;
	cr_assert_eq(hipsvm_reg_insert(r, &a), 0);
	cr_assert_eq(hipsvm_reg_insert(r, &a), -EEXIST);
	cr_assert_eq(add(0x7f0000100000 + MB - 1, 10, HIPSVM_KIND_HOST), -EEXIST);
	cr_assert_eq(add(0x7f0000100000 + MB, 10, HIPSVM_KIND_HOST), 0, "adjacent");
	cr_assert_eq(hipsvm_reg_count(r), 2);
	cr_assert_eq(hipsvm_reg_find(r, 0x7f0000100000 + 12345, &got), 0);
	cr_assert(!memcmp(&got, &a, sizeof(a)), "every field survives the round trip");
	cr_assert_eq(hipsvm_reg_find(r, 0x7f0000100000 - 1, &got), -ENOENT);
	cr_assert_eq(hipsvm_reg_remove_origin(r, 0x7f0000100000 + 5, NULL, NULL), -ENOENT);
	cr_assert_eq(hipsvm_reg_remove_origin(r, 0x7f0000100000, &got, &bytes), 0);
	cr_assert_eq(bytes, MB);
	cr_assert_eq(got.start, 0x7f0000100000);
	cr_assert_eq(hipsvm_reg_find(r, 0x7f0000100000, &got), -ENOENT);
	cr_assert_eq(hipsvm_reg_count(r), 1);
	a.last = a.start - 1;
	cr_assert_eq(hipsvm_reg_insert(r, &a), -EINVAL);
	a = mk(0x1000, 10, HIPSVM_KIND_COUNT);
	cr_assert_eq(hipsvm_reg_insert(r, &a), -EINVAL);
}

struct pieces {
	unsigned n;
	struct hipsvm_alloc p[16];
};

static void collect(void *arg, const struct hipsvm_alloc *a)
{
	struct pieces *ps = arg;

	if (ps->n < 16)
		ps->p[ps->n] = *a;
	ps->n++;
}

#define B 0x7f1000000000

Test(registry, punch_cases)
{
	struct pieces ps = { 0 };
	struct hipsvm_alloc o[8];
	uint64_t bytes;

	/* head: the hole covers the start of the entry */
	cr_assert_eq(add(B, 100, HIPSVM_KIND_MANAGED), 0);
	cr_assert_eq(hipsvm_reg_punch(r, B - 10, 30, collect, &ps), 1);
	cr_assert(ps.p[0].start == B && ps.p[0].last == B + 19 && ps.p[0].origin == B);
	cr_assert_eq(hipsvm_reg_overlaps(r, B - 100, 1000, o, 8), 1);
	cr_assert(o[0].start == B + 20 && o[0].last == B + 99 && o[0].origin == B &&
		  o[0].origin_size == 100);
	/* tail */
	ps.n = 0;
	cr_assert_eq(hipsvm_reg_punch(r, B + 90, 1000, collect, &ps), 1);
	cr_assert(ps.p[0].start == B + 90 && ps.p[0].last == B + 99);
	cr_assert_eq(hipsvm_reg_overlaps(r, B, 1000, o, 8), 1);
	cr_assert(o[0].start == B + 20 && o[0].last == B + 89);
	/* middle hole: head and tail stay, same attributes */
	ps.n = 0;
	cr_assert_eq(hipsvm_reg_punch(r, B + 40, 10, collect, &ps), 1);
	cr_assert(ps.p[0].start == B + 40 && ps.p[0].last == B + 49);
	cr_assert_eq(hipsvm_reg_overlaps(r, B, 1000, o, 8), 2);
	cr_assert(o[0].start == B + 20 && o[0].last == B + 39);
	cr_assert(o[1].start == B + 50 && o[1].last == B + 89);
	cr_assert(o[1].kind == HIPSVM_KIND_MANAGED && o[1].origin == B && o[1].route == 7);
	cr_assert_eq(hipsvm_reg_touches(r, B + 40, 10, ALL_KINDS), 0);
	cr_assert_eq(hipsvm_reg_touches(r, B + 39, 2, ALL_KINDS), 1);
	/* touching boundaries: a hole that ends right before or starts right
	 * after an entry changes nothing */
	ps.n = 0;
	cr_assert_eq(hipsvm_reg_punch(r, B + 40, 10, collect, &ps), 0);
	cr_assert_eq(hipsvm_reg_punch(r, B, 20, collect, &ps), 0);
	cr_assert_eq(hipsvm_reg_punch(r, B + 90, 10, collect, &ps), 0);
	cr_assert_eq(ps.n, 0);
	cr_assert_eq(hipsvm_reg_count(r), 2);
	/* spanning several: other allocation in the hole, then one hole over all */
	cr_assert_eq(add(B + 42, 4, HIPSVM_KIND_HOST), 0);
	ps.n = 0;
	cr_assert_eq(hipsvm_reg_punch(r, B + 30, 40, collect, &ps), 3);
	cr_assert(ps.p[0].start == B + 30 && ps.p[0].last == B + 39);
	cr_assert(ps.p[1].start == B + 42 && ps.p[1].last == B + 45 && ps.p[1].origin == B + 42);
	cr_assert(ps.p[2].start == B + 50 && ps.p[2].last == B + 69);
	cr_assert_eq(hipsvm_reg_overlaps(r, 0, SIZE_MAX, o, 8), 2);
	cr_assert(o[0].start == B + 20 && o[0].last == B + 29);
	cr_assert(o[1].start == B + 70 && o[1].last == B + 89);
	/* the origin is still known, and the free still finds both pieces */
	cr_assert_eq(hipsvm_reg_find_origin(r, B, &o[2]), 0);
	cr_assert(o[2].start == B + 20 && o[2].origin == B && o[2].origin_size == 100);
	cr_assert_eq(hipsvm_reg_find_origin(r, B + 20, &o[2]), -ENOENT);
	cr_assert_eq(hipsvm_reg_remove_origin(r, B, NULL, &bytes), 0);
	cr_assert_eq(bytes, 30);
	cr_assert_eq(hipsvm_reg_count(r), 0);
	/* exact cover */
	cr_assert_eq(add(B, 100, HIPSVM_KIND_HOST), 0);
	ps.n = 0;
	cr_assert_eq(hipsvm_reg_punch(r, B, 100, collect, &ps), 1);
	cr_assert(ps.p[0].start == B && ps.p[0].last == B + 99);
	cr_assert_eq(hipsvm_reg_count(r), 0);
	cr_assert_eq(hipsvm_reg_remove_origin(r, B, NULL, NULL), -ENOENT, "origin is gone");
	cr_assert_eq(hipsvm_reg_punch(r, B, 0, collect, &ps), 0);
	cr_assert_eq(hipsvm_reg_check(r), 0);
}

Test(registry, punch_across_leaves)
{
	/* Pieces larger than the filter's 32 GiB leaves, punched apart. */
	uintptr_t base = (uintptr_t)3 << 35;
	struct hipsvm_alloc o[4];

	cr_assert_eq(add(base - 1 * MB, 100 * GB, HIPSVM_KIND_MANAGED), 0);
	cr_assert_eq(hipsvm_reg_punch(r, base + 40 * GB, 8 * GB, NULL, NULL), 1);
	cr_assert_eq(hipsvm_reg_overlaps(r, 0, SIZE_MAX, o, 4), 2);
	cr_assert_eq(hipsvm_reg_touches(r, base + 40 * GB, 8 * GB, ALL_KINDS), 0);
	cr_assert_eq(hipsvm_reg_touches(r, base + 41 * GB, 4 * KB, SVM_KINDS), 0);
	cr_assert_eq(hipsvm_reg_touches(r, base + 40 * GB - 1, 1, SVM_KINDS), 1);
	cr_assert_eq(hipsvm_reg_touches(r, base + 48 * GB, 1, SVM_KINDS), 1);
	cr_assert_eq(hipsvm_reg_touches(r, base + 80 * GB, 4 * KB, SVM_KINDS), 1);
	cr_assert_eq(hipsvm_reg_punch(r, base - 1 * MB, 100 * GB, NULL, NULL), 2);
	cr_assert_eq(hipsvm_reg_touches(r, 0, SIZE_MAX, ALL_KINDS), 0);
	/* and at the top of the address space */
	cr_assert_eq(add(UINTPTR_MAX - 4095, 4096, HIPSVM_KIND_HOST), 0);
	cr_assert_eq(hipsvm_reg_touches(r, UINTPTR_MAX, 1, ALL_KINDS), 1);
	cr_assert_eq(hipsvm_reg_touches(r, UINTPTR_MAX - 8191, 4096, ALL_KINDS), 0);
	cr_assert_eq(hipsvm_reg_touches(r, UINTPTR_MAX - 8191, SIZE_MAX, ALL_KINDS), 1);
}

Test(registry, touches_kind_mask)
{
	cr_assert_eq(add(B, 64 * KB, HIPSVM_KIND_DEVICE), 0);
	cr_assert_eq(add(B + 1 * MB, 64 * KB, HIPSVM_KIND_MANAGED), 0);
	cr_assert_eq(hipsvm_reg_touches(r, B, 4 * KB, ALL_KINDS), 1);
	cr_assert_eq(hipsvm_reg_touches(r, B, 4 * KB, SVM_KINDS), 0, "device memory only");
	cr_assert_eq(hipsvm_reg_touches(r, B, 4 * KB, BIT(HIPSVM_KIND_DEVICE)), 1);
	cr_assert_eq(hipsvm_reg_touches(r, B, 2 * MB, SVM_KINDS), 1);
	cr_assert_eq(hipsvm_reg_touches(r, B, 2 * MB, BIT(HIPSVM_KIND_HOST)), 0);
	cr_assert_eq(hipsvm_reg_touches(r, B, 2 * MB, BIT(HIPSVM_KIND_MANAGED)), 1);
	cr_assert_eq(hipsvm_reg_touches(r, B, 2 * MB, 0), 0);
	cr_assert_eq(hipsvm_reg_touches(r, B + 64 * KB, 1 * MB - 64 * KB, ALL_KINDS), 0, "gap");
	cr_assert_eq(hipsvm_reg_touches(r, B, 0, ALL_KINDS), 0, "empty range");
	cr_assert_eq(hipsvm_reg_touches(r, 0x1000, 4 * KB, ALL_KINDS), 0, "far away");
}

Test(registry, foreach_count_and_fork)
{
	unsigned n = 0;
	pid_t pid;
	int st;

	for (unsigned i = 0; i < 100; i++)
		cr_assert_eq(add(B + i * 8 * KB, 4 * KB, HIPSVM_KIND_HOST), 0);
	cr_assert_eq(hipsvm_reg_count(r), 100);
	{
		struct pieces ps = { 0 };

		hipsvm_reg_foreach(r, collect, &ps);
		n = ps.n;
		cr_assert(ps.p[0].start == B && ps.p[15].start == B + 15 * 8 * KB, "ascending");
	}
	cr_assert_eq(n, 100);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		struct hipsvm_alloc got;

		hipsvm_reg_atfork_child(r);
		if (hipsvm_reg_find(r, B + 8 * KB, &got) || add(B + 4 * KB, 4 * KB,
							       HIPSVM_KIND_HOST) ||
		    hipsvm_reg_count(r) != 101)
			_exit(1);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* ---- randomised cross-check against a model of cells ---- */

/* The model: NCELL cells of CELL bytes from MB0; each cell holds the id of
 * the piece that covers it (0: none). Pieces and allocations are tables. */
#define NCELL	2048
#define CELL	((uintptr_t)512 * KB)
#define MB0	(((uintptr_t)3 << 35) - 256 * MB)	/* crosses a filter leaf */
#define MAXP	(NCELL * 4)

static struct {
	unsigned cell[NCELL];
	unsigned piece_alloc[MAXP];	/* piece id -> allocation id */
	uintptr_t alloc_origin[MAXP];
	uint64_t alloc_size[MAXP];
	uint32_t alloc_kind[MAXP];
	unsigned npieces, next_piece, next_alloc;
} md;

static uintptr_t cell_addr(unsigned c)
{
	return MB0 + c * CELL;
}

/* Byte range [a, a+len) to the cells it touches, clipped to the model. */
static bool cells_of(uintptr_t a, uintptr_t len, unsigned *c0, unsigned *c1)
{
	uintptr_t l = a + len - 1;

	if (len == 0 || l < MB0 || a >= cell_addr(NCELL))
		return false;
	*c0 = a < MB0 ? 0 : (unsigned)((a - MB0) / CELL);
	*c1 = l >= cell_addr(NCELL) ? NCELL - 1 : (unsigned)((l - MB0) / CELL);
	return true;
}

static unsigned model_count(void)
{
	unsigned n = 0;

	for (unsigned c = 0; c < NCELL; c++)
		if (md.cell[c] && (c == 0 || md.cell[c - 1] != md.cell[c]))
			n++;
	return n;
}

static void check_overlaps(uintptr_t a, uintptr_t len, uint64_t seed, unsigned op)
{
	static struct hipsvm_alloc got[NCELL];
	unsigned c0, c1, k = 0;
	int n = hipsvm_reg_overlaps(r, a, len, got, NCELL);

	if (!cells_of(a, len, &c0, &c1)) {
		cr_assert_eq(n, 0, "seed %#llx op %u", (unsigned long long)seed, op);
		return;
	}
	for (unsigned c = c0; c <= c1; c++) {
		unsigned p = md.cell[c], e = c, al;

		if (!p || (c > c0 && md.cell[c - 1] == p))
			continue;
		while (e + 1 < NCELL && md.cell[e + 1] == p)
			e++;
		al = md.piece_alloc[p];
		cr_assert((unsigned)n > k, "seed %#llx op %u: missing piece at cell %u",
			  (unsigned long long)seed, op, c);
		/* the piece may start before c0: find its real start */
		unsigned s = c;

		while (s > 0 && md.cell[s - 1] == p)
			s--;
		cr_assert(got[k].start == cell_addr(s) && got[k].last == cell_addr(e + 1) - 1 &&
			  got[k].origin == md.alloc_origin[al] &&
			  got[k].origin_size == md.alloc_size[al] &&
			  got[k].kind == md.alloc_kind[al],
			  "seed %#llx op %u: piece %u: got [%#lx, %#lx]", (unsigned long long)seed,
			  op, k, (unsigned long)got[k].start, (unsigned long)got[k].last);
		k++;
	}
	cr_assert_eq((unsigned)n, k, "seed %#llx op %u", (unsigned long long)seed, op);
}

Test(registry, random_vs_model, .timeout = 300)
{
	uint64_t seed = test_seed(0x4e915eed), s = seed;
	enum { OPS = 100000 };

	cr_log_info("registry random_vs_model seed %#llx (HIPSVM_TEST_SEED)",
		    (unsigned long long)seed);
	memset(&md, 0, sizeof(md));
	md.next_piece = md.next_alloc = 1;
	for (unsigned op = 0; op < OPS; op++) {
		uint64_t x = rnd(&s);
		unsigned what = (unsigned)(x % 100);
		unsigned c0 = (unsigned)((x >> 8) % NCELL);
		unsigned w = 1 + (unsigned)((x >> 24) % ((x >> 50) % 4 == 0 ? 200 : 12));
		unsigned c1 = c0 + w - 1 < NCELL ? c0 + w - 1 : NCELL - 1;
		/* byte-level jitter for the queries: cell edges +- a little */
		uintptr_t ja = (x >> 40) % 3 == 0 ? (uintptr_t)((x >> 42) % CELL) : 0;
		uintptr_t qa = cell_addr(c0) + ja, qlen = cell_addr(c1 + 1) - qa;

		if ((x >> 44) % 5 == 0)
			qlen -= (uintptr_t)((x >> 46) % (qlen - 1 ? qlen - 1 : 1));

		if (what < 30 && md.next_piece < MAXP - 4 && md.next_alloc < MAXP) {
			bool busy = false;
			uint32_t kind = (uint32_t)((x >> 56) % HIPSVM_KIND_COUNT);
			int want;

			for (unsigned c = c0; c <= c1; c++)
				busy |= md.cell[c] != 0;
			want = busy ? -EEXIST : 0;
			cr_assert_eq(add(cell_addr(c0), cell_addr(c1 + 1) - cell_addr(c0), kind),
				     want, "seed %#llx op %u: insert cells %u..%u",
				     (unsigned long long)seed, op, c0, c1);
			if (!want) {
				unsigned p = md.next_piece++, al = md.next_alloc++;

				md.piece_alloc[p] = al;
				md.alloc_origin[al] = cell_addr(c0);
				md.alloc_size[al] = cell_addr(c1 + 1) - cell_addr(c0);
				md.alloc_kind[al] = kind;
				for (unsigned c = c0; c <= c1; c++)
					md.cell[c] = p;
			}
		} else if (what < 45 && md.next_piece < MAXP - 4) {
			/* punch cells c0..c1 exactly (pieces are cell-aligned) */
			unsigned want = 0;

			for (unsigned c = c0; c <= c1; c++)
				if (md.cell[c] && (c == c0 || md.cell[c - 1] != md.cell[c]))
					want++;
			cr_assert_eq(hipsvm_reg_punch(r, cell_addr(c0),
						      cell_addr(c1 + 1) - cell_addr(c0), NULL, NULL),
				     (int)want, "seed %#llx op %u: punch cells %u..%u",
				     (unsigned long long)seed, op, c0, c1);
			/* a piece cut in two: its tail gets a new id */
			if (c0 > 0 && c1 + 1 < NCELL && md.cell[c0 - 1] &&
			    md.cell[c0 - 1] == md.cell[c1 + 1]) {
				unsigned old = md.cell[c1 + 1], np = md.next_piece++;

				md.piece_alloc[np] = md.piece_alloc[old];
				for (unsigned c = c1 + 1; c < NCELL && md.cell[c] == old; c++)
					md.cell[c] = np;
			}
			for (unsigned c = c0; c <= c1; c++)
				md.cell[c] = 0;
		} else if (what < 55) {
			/* free the allocation that owns a cell (or an unknown origin) */
			unsigned p = md.cell[c0], al = p ? md.piece_alloc[p] : 0;
			uintptr_t origin = al ? md.alloc_origin[al] : cell_addr(c0) + 4096;
			uint64_t want = 0, bytes = 0;
			struct hipsvm_alloc lo;
			int lowest = -1;

			for (unsigned c = 0; c < NCELL; c++) {
				unsigned a2 = md.cell[c] ? md.piece_alloc[md.cell[c]] : 0;

				if (a2 && md.alloc_origin[a2] == origin) {
					if (lowest < 0)
						lowest = (int)c;
					want += CELL;
				}
			}
			cr_assert_eq(hipsvm_reg_find_origin(r, origin, &lo), want ? 0 : -ENOENT,
				     "seed %#llx op %u: find_origin %#lx", (unsigned long long)seed,
				     op, (unsigned long)origin);
			if (want)
				cr_assert_eq(lo.start, cell_addr((unsigned)lowest),
					     "seed %#llx op %u", (unsigned long long)seed, op);
			for (unsigned c = 0; c < NCELL; c++) {
				unsigned a2 = md.cell[c] ? md.piece_alloc[md.cell[c]] : 0;

				if (a2 && md.alloc_origin[a2] == origin)
					md.cell[c] = 0;
			}
			cr_assert_eq(hipsvm_reg_remove_origin(r, origin, NULL, &bytes),
				     want ? 0 : -ENOENT, "seed %#llx op %u: free %#lx",
				     (unsigned long long)seed, op, (unsigned long)origin);
			if (want)
				cr_assert_eq(bytes, want, "seed %#llx op %u", (unsigned long long)seed,
					     op);
		} else if (what < 80) {
			uint32_t mask = (uint32_t)((x >> 52) % 4 == 0 ? SVM_KINDS :
						   (x >> 52) % 4 == 1 ? ALL_KINDS : (x >> 54) & 31);
			int want = 0;
			unsigned a0, a1;

			if ((x >> 30) % 64 == 0)
				qa = 0, qlen = SIZE_MAX;
			if (cells_of(qa, qlen, &a0, &a1))
				for (unsigned c = a0; c <= a1; c++)
					if (md.cell[c] &&
					    (mask >> md.alloc_kind[md.piece_alloc[md.cell[c]]] & 1))
						want = 1;
			cr_assert_eq(hipsvm_reg_touches(r, qa, qlen, mask), want,
				     "seed %#llx op %u: touches [%#lx +%#lx) mask %#x",
				     (unsigned long long)seed, op, (unsigned long)qa,
				     (unsigned long)qlen, mask);
		} else if (what < 90) {
			struct hipsvm_alloc got;
			unsigned p = md.cell[c0];
			int rc = hipsvm_reg_find(r, qa, &got);

			cr_assert_eq(rc, p ? 0 : -ENOENT, "seed %#llx op %u: find %#lx",
				     (unsigned long long)seed, op, (unsigned long)qa);
			if (p)
				cr_assert_eq(got.origin, md.alloc_origin[md.piece_alloc[p]]);
		} else {
			check_overlaps(qa, qlen, seed, op);
		}
		if (op % 64 == 0)
			cr_assert_eq(hipsvm_reg_count(r), model_count(), "seed %#llx op %u",
				     (unsigned long long)seed, op);
		if (op % 512 == 0)
			cr_assert_eq(hipsvm_reg_check(r), 0, "seed %#llx op %u",
				     (unsigned long long)seed, op);
	}
	check_overlaps(0, SIZE_MAX, seed, OPS);
	cr_assert_eq(hipsvm_reg_check(r), 0, "seed %#llx", (unsigned long long)seed);
}

/* ---- a million live entries ---- */

Test(registry, million_entries, .timeout = 600)
{
	enum { N = 1000000 };
	const uintptr_t base = 0x7e0000000000;
	uint64_t seed = test_seed(0x1eed), s = seed;
	struct hipsvm_alloc got;
	uint64_t bytes;

	cr_log_info("registry million_entries seed %#llx", (unsigned long long)seed);
	/* 4 KiB entries 12 KiB apart: every granule is busy, gaps everywhere. */
	for (uintptr_t i = 0; i < N; i++)
		cr_assert_eq(add(base + i * 12 * KB, 4 * KB, (uint32_t)(i % HIPSVM_KIND_COUNT)), 0,
			     "insert %lu", (unsigned long)i);
	cr_assert_eq(hipsvm_reg_count(r), N);
	cr_assert_eq(hipsvm_reg_check(r), 0);
	for (unsigned k = 0; k < 300000; k++) {
		uintptr_t i = (uintptr_t)(rnd(&s) % N), a = base + i * 12 * KB;
		uintptr_t off = (uintptr_t)(rnd(&s) % (4 * KB));

		cr_assert_eq(hipsvm_reg_find(r, a + off, &got), 0, "seed %#llx", (unsigned long long)seed);
		cr_assert_eq(got.start, a);
		cr_assert_eq(hipsvm_reg_touches(r, a + off, 1, ALL_KINDS), 1);
		cr_assert_eq(hipsvm_reg_touches(r, a + 4 * KB + off, 8 * KB - off, ALL_KINDS), 0,
			     "gap after %#lx", (unsigned long)a);
		cr_assert_eq(hipsvm_reg_find(r, a + 4 * KB + off, &got), -ENOENT);
		cr_assert_eq(hipsvm_reg_touches(r, a, 4 * KB, BIT(i % HIPSVM_KIND_COUNT)), 1);
		cr_assert_eq(hipsvm_reg_touches(r, a, 4 * KB,
						ALL_KINDS & ~BIT(i % HIPSVM_KIND_COUNT)), 0);
	}
	cr_assert_eq(hipsvm_reg_touches(r, 0x1000, 1 * GB, ALL_KINDS), 0);
	cr_assert_eq(hipsvm_reg_touches(r, base - 1 * GB, 1 * GB, ALL_KINDS), 0);
	cr_assert_eq(hipsvm_reg_touches(r, base + N * 12 * KB, 1 * GB, ALL_KINDS), 0);
	cr_assert_eq(hipsvm_reg_overlaps(r, base, 12 * KB * 1000, &got, 1), 1000);
	for (uintptr_t i = 0; i < N; i++) {
		cr_assert_eq(hipsvm_reg_remove_origin(r, base + i * 12 * KB, NULL, &bytes), 0);
		cr_assert_eq(bytes, 4 * KB);
	}
	cr_assert_eq(hipsvm_reg_count(r), 0);
	cr_assert_eq(hipsvm_reg_touches(r, 0, SIZE_MAX, ALL_KINDS), 0);
}

/* ---- concurrent readers against a writer ---- */

/* Groups of 16 cells of 64 KiB: cell 0 is a permanent entry, cell 1 is never
 * tracked, cells 2..15 churn. */
#define NGROUP	512
#define GCELL	((uintptr_t)64 * KB)
#define CB0	((uintptr_t)0x7d0000000000)

static uintptr_t gaddr(unsigned g, unsigned c)
{
	return CB0 + ((uintptr_t)g * 16 + c) * GCELL;
}

static int stop_readers;

static void *reader(void *arg)
{
	uint64_t s = (uintptr_t)arg;
	uintptr_t bad = 0;

	while (!__atomic_load_n(&stop_readers, __ATOMIC_ACQUIRE)) {
		unsigned g = (unsigned)(rnd(&s) % NGROUP);
		uintptr_t off = (uintptr_t)(rnd(&s) % GCELL);
		struct hipsvm_alloc got;

		if (hipsvm_reg_touches(r, gaddr(g, 0) + off, 1, SVM_KINDS) != 1)
			bad++;
		if (hipsvm_reg_find(r, gaddr(g, 0) + off, &got) != 0 ||
		    got.start != gaddr(g, 0) || got.last != gaddr(g, 1) - 1 || got.route != 7)
			bad++;
		if (hipsvm_reg_touches(r, gaddr(g, 1) + off, GCELL - off, ALL_KINDS) != 0)
			bad++;
		if (hipsvm_reg_find(r, gaddr(g, 1) + off, &got) != -ENOENT)
			bad++;
	}
	return (void *)bad;
}

Test(registry, concurrent_readers, .timeout = 300)
{
	uint64_t seed = test_seed(0xc0c0a), s = seed;
	pthread_t th[2];

	cr_log_info("registry concurrent_readers seed %#llx", (unsigned long long)seed);
	for (unsigned g = 0; g < NGROUP; g++)
		cr_assert_eq(add(gaddr(g, 0), GCELL, HIPSVM_KIND_MANAGED), 0);
	stop_readers = 0;
	for (unsigned i = 0; i < 2; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, reader,
					    (void *)(uintptr_t)(seed * 3 + i + 1)), 0);
	for (unsigned op = 0; op < 200000; op++) {
		uint64_t x = rnd(&s);
		unsigned g = (unsigned)(x % NGROUP), c0 = 2 + (unsigned)((x >> 16) % 14);
		unsigned w = 1 + (unsigned)((x >> 24) % (16 - c0));

		switch ((x >> 40) % 3) {
		case 0:
			add(gaddr(g, c0), w * GCELL, (uint32_t)((x >> 48) % HIPSVM_KIND_COUNT));
			break;
		case 1:
			hipsvm_reg_punch(r, gaddr(g, c0) + (x >> 50) % 4096,
					 w * GCELL - (x >> 50) % 4096, NULL, NULL);
			break;
		default:
			hipsvm_reg_remove_origin(r, gaddr(g, c0), NULL, NULL);
			break;
		}
	}
	__atomic_store_n(&stop_readers, 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < 2; i++) {
		void *bad;

		cr_assert_eq(pthread_join(th[i], &bad), 0);
		cr_assert_eq((uintptr_t)bad, 0, "seed %#llx: reader %u saw %lu wrong answers",
			     (unsigned long long)seed, i, (unsigned long)(uintptr_t)bad);
	}
	cr_assert_eq(hipsvm_reg_check(r), 0);
}

/* fork() while another thread writes: with the prepare/parent/child
 * handlers the child's copy is consistent and usable. */
static void *churn(void *arg)
{
	uint64_t s = 0x3u;

	while (!__atomic_load_n(&stop_readers, __ATOMIC_ACQUIRE)) {
		uint64_t x = rnd(&s);
		unsigned g = (unsigned)(x % NGROUP), c0 = 2 + (unsigned)((x >> 16) % 14);

		if ((x >> 40) % 2)
			add(gaddr(g, c0), GCELL, HIPSVM_KIND_HOST);
		else
			hipsvm_reg_punch(r, gaddr(g, c0), GCELL, NULL, NULL);
	}
	return NULL;
}

Test(registry, fork_during_writes, .timeout = 120)
{
	static struct hipsvm_alloc o[NGROUP * 16];
	pthread_t th;

	for (unsigned g = 0; g < NGROUP; g++)
		cr_assert_eq(add(gaddr(g, 0), GCELL, HIPSVM_KIND_MANAGED), 0);
	stop_readers = 0;
	cr_assert_eq(pthread_create(&th, NULL, churn, NULL), 0);
	for (unsigned k = 0; k < 20; k++) {
		pid_t pid;
		int st;

		usleep(1000);
		hipsvm_reg_atfork_prepare(r);
		pid = fork();
		if (pid == 0) {
			int n;

			hipsvm_reg_atfork_child(r);
			n = hipsvm_reg_overlaps(r, 0, SIZE_MAX, o, NGROUP * 16);
			if (n < NGROUP || n != (int)hipsvm_reg_count(r))
				_exit(2);
			for (int i = 1; i < n; i++)
				if (o[i].start <= o[i - 1].last)
					_exit(3);
			if (add(gaddr(0, 1), 4096, HIPSVM_KIND_HOST) ||
			    hipsvm_reg_punch(r, gaddr(0, 0), GCELL, NULL, NULL) != 1)
				_exit(4);
			_exit(0);
		}
		hipsvm_reg_atfork_parent(r);
		cr_assert(pid > 0);
		cr_assert_eq(waitpid(pid, &st, 0), pid);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %u: status %#x", k, st);
	}
	__atomic_store_n(&stop_readers, 1, __ATOMIC_RELEASE);
	cr_assert_eq(pthread_join(th, NULL), 0);
}

/* ---- -ENOMEM changes nothing ---- */

static size_t vm_bytes(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return pages * (size_t)sysconf(_SC_PAGESIZE);
}

static unsigned cb_calls;

static void count_cb(void *arg, const struct hipsvm_alloc *a)
{
	cb_calls++;
}

/* With the address space capped at what is mapped now, inserts and middle
 * punches go on until the registry needs more memory; the one that gets
 * -ENOMEM must have changed nothing (and called no callback). */
Test(registry, enomem_changes_nothing, .timeout = 60)
{
	enum { MAXOPS = 200000 };
	static struct hipsvm_alloc before[4], after[4];
	struct rlimit old, lim;
	int ins_rc = 0, punch_rc = 0, nb = 0, na = 0, nbp = 0, nap = 0;
	size_t cnt_before = 0, cnt_after = 0, cnt_bp = 0, cnt_ap = 0;
	unsigned i, cb_before = 0, cb_after = 0;
	uintptr_t pa = 0;

	for (i = 0; i < 8; i++)
		cr_assert_eq(add(B + i * 64 * KB, 16 * KB, HIPSVM_KIND_MANAGED), 0);
	cr_assert_eq(getrlimit(RLIMIT_AS, &old), 0);
	lim = old;
	lim.rlim_cur = vm_bytes() + 64 * KB;
	cr_assert_eq(setrlimit(RLIMIT_AS, &lim), 0);
	/* No assertion (it could allocate) until the limit is lifted again. */
	for (i = 8; i < MAXOPS && (ins_rc == 0 || punch_rc == 0); i++) {
		uintptr_t a = B + i * 64 * KB;

		if (ins_rc == 0) {
			cnt_before = hipsvm_reg_count(r);
			nb = hipsvm_reg_overlaps(r, a - 64 * KB, 128 * KB, before, 4);
			ins_rc = add(a, 16 * KB, HIPSVM_KIND_MANAGED);
			if (ins_rc) {
				cnt_after = hipsvm_reg_count(r);
				na = hipsvm_reg_overlaps(r, a - 64 * KB, 128 * KB, after, 4);
			}
		}
		if (punch_rc == 0 && i >= 16) {
			pa = B + (i - 8) * 64 * KB;
			cnt_bp = hipsvm_reg_count(r);
			nbp = hipsvm_reg_overlaps(r, pa, 16 * KB, before + 2, 2);
			cb_before = cb_calls;
			punch_rc = hipsvm_reg_punch(r, pa + 4 * KB, 4 * KB, count_cb, NULL);
			if (punch_rc == 1)
				punch_rc = 0;
			if (punch_rc) {
				cb_after = cb_calls;
				cnt_ap = hipsvm_reg_count(r);
				nap = hipsvm_reg_overlaps(r, pa, 16 * KB, after + 2, 2);
			}
		}
	}
	cr_assert_eq(setrlimit(RLIMIT_AS, &old), 0);
	cr_log_info("enomem: insert failed at op %u with %d, punch with %d", i, ins_rc, punch_rc);
	cr_assert_eq(ins_rc, -ENOMEM);
	cr_assert_eq(punch_rc, -ENOMEM);
	cr_assert_eq(cnt_after, cnt_before);
	cr_assert_eq(na, nb);
	cr_assert(!memcmp(before, after, (size_t)nb * sizeof(before[0])));
	cr_assert_eq(cnt_ap, cnt_bp);
	cr_assert_eq(nap, nbp);
	cr_assert_eq(nap, 1);
	cr_assert(after[2].start == pa && after[2].last == pa + 16 * KB - 1);
	cr_assert_eq(cb_after, cb_before);
	/* and with memory back, the same operations work */
	cr_assert_eq(hipsvm_reg_punch(r, pa + 4 * KB, 4 * KB, NULL, NULL), 1);
}

/* ---- a signal handler that interrupts the writer on its own thread ---- */

static int sig_touch, sig_find, sig_over, sig_punch;

static void on_sig(int sig)
{
	struct hipsvm_alloc a;

	sig_touch = hipsvm_reg_touches(r, B, 4096, ALL_KINDS);
	sig_find = hipsvm_reg_find(r, B, &a);
	sig_over = hipsvm_reg_overlaps(r, B, 4096, &a, 1);
	sig_punch = hipsvm_reg_punch(r, B, 4096, NULL, NULL);
}

static void raise_in_cb(void *arg, const struct hipsvm_alloc *a)
{
	raise(SIGUSR1);
}

Test(registry, signal_in_writer_gets_edeadlk)
{
	struct sigaction sa = { .sa_handler = on_sig };

	cr_assert_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	cr_assert_eq(add(B, 2 * MB, HIPSVM_KIND_MANAGED), 0);
	cr_assert_eq(hipsvm_reg_punch(r, B + MB, 4096, raise_in_cb, NULL), 1);
	cr_assert_eq(sig_touch, -EDEADLK);
	cr_assert_eq(sig_find, -EDEADLK);
	cr_assert_eq(sig_over, -EDEADLK);
	cr_assert_eq(sig_punch, -EDEADLK);
	/* outside the writer the same calls answer normally */
	raise(SIGUSR1);
	cr_assert_eq(sig_touch, 1);
	cr_assert_eq(sig_find, 0);
	cr_assert_eq(sig_over, 1);
	cr_assert_eq(sig_punch, 1);
	cr_assert_eq(hipsvm_reg_count(r), 2);
}
