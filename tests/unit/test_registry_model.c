/* SPDX-License-Identifier: MIT */
/*
 * test_registry_model.c - the registry (src/shim/registry.c) against a brute-force
 * model of cells over a hundred thousand seeded random operations, then at a
 * million live entries: the case tests in test_registry.c cannot reach the
 * tree and filter shapes that only many operations build. The seed is printed
 * and HIPSVM_TEST_SEED replays it.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "registry_fixture.h"

TestSuite(registry, .init = setup, .fini = teardown);

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
	bool tomb[NCELL];		/* origin cell -> a punch took its last piece */
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
	unsigned ntomb = 0;

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
				for (unsigned c = c0; c <= c1; c++) {
					md.cell[c] = p;
					md.tomb[c] = false;	/* buried */
				}
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
			static unsigned hit[NCELL];
			unsigned nhit = 0;

			for (unsigned c = c0; c <= c1; c++) {
				if (md.cell[c])
					hit[nhit++] = md.piece_alloc[md.cell[c]];
				md.cell[c] = 0;
			}
			/* an allocation with no cell left leaves a tombstone */
			for (unsigned k = 0; k < nhit; k++) {
				bool left = false;

				for (unsigned c = 0; c < NCELL && !left; c++)
					left = md.cell[c] && md.piece_alloc[md.cell[c]] == hit[k];
				if (!left)
					md.tomb[(md.alloc_origin[hit[k]] - MB0) / CELL] = true;
			}
		} else if (what < 55) {
			/* free the allocation that owns a cell (or an unknown origin) */
			unsigned p = md.cell[c0], al = p ? md.piece_alloc[p] : 0;
			/* an empty cell: a tombstone's origin if there is one there */
			uintptr_t origin = al ? md.alloc_origin[al] :
					   md.tomb[c0] ? cell_addr(c0) : cell_addr(c0) + 4096;
			unsigned oc = (unsigned)((origin - MB0) / CELL);
			bool at_cell = origin == cell_addr(oc);
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
			bool tomb = at_cell && md.tomb[oc];

			if (at_cell)
				md.tomb[oc] = false;
			ntomb += tomb;
			cr_assert_eq(hipsvm_reg_remove_origin(r, origin, NULL, &bytes),
				     want ? 0 : tomb ? -ESTALE : -ENOENT, "seed %#llx op %u: free %#lx",
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
	/* the tombstone path must have been taken, or the model proves nothing */
	cr_assert_gt(ntomb, 100, "seed %#llx: %u frees of tombstones", (unsigned long long)seed, ntomb);
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
