/* SPDX-License-Identifier: MIT */
/* test_ts.c - 48-bit timestamp comparison (src/shared/ts.h), vectors and a model. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdlib.h>

#include "shared/ts.h"
#include "test_rand.h"

#define M HIPSVM_TS_MASK
#define HALF (UINT64_C(1) << 47)

/*
 * The model: the forward distance from t1 to t2 modulo 2^48, in 128-bit
 * arithmetic so that nothing wraps by accident. t2 is after t1 when it is
 * 1 .. 2^47-1 steps ahead; exactly 2^47 apart is "before" (the sign bit).
 */
static int model_cmp(uint64_t t1, uint64_t t2)
{
	unsigned __int128 mod = (unsigned __int128)1 << 48;
	unsigned __int128 d = ((unsigned __int128)(t2 & M) + mod - (t1 & M)) % mod;

	if (d == 0)
		return 0;
	return d < ((unsigned __int128)1 << 47) ? 1 : -1;
}

struct vec {
	uint64_t t1, t2;
	bool after, after_or_equal;
};

static const struct vec vectors[] = {
	{ 0, 0, false, true },
	{ 1, 1, false, true },
	{ M, M, false, true },
	{ 0x1000, 0x2000, true, true },
	{ 0x2000, 0x1000, false, false },
	/* across the wrap: 2^48-1 is followed by 0 */
	{ M, 0, true, true },
	{ 0, M, false, false },
	{ M - 5, 3, true, true },
	{ 3, M - 5, false, false },
	{ M, 1, true, true },
	/* the largest distance that still compares correctly */
	{ 0, HALF - 1, true, true },
	{ HALF - 1, 0, false, false },
	{ M, HALF - 2, true, true },	/* M + (2^47-1) wraps to 2^47-2 */
	{ HALF - 2, M, false, false },
	{ 5, 5 + HALF - 1, true, true },
	/* exactly 2^47 apart: the sign bit; neither is "after" */
	{ 0, HALF, false, false },
	{ HALF, 0, false, false },
	/* just past 2^47: reads as behind */
	{ 0, HALF + 1, false, false },
	{ HALF + 1, 0, true, true },
	/* adjacent values everywhere */
	{ HALF - 1, HALF, true, true },
	{ HALF, HALF - 1, false, false },
	{ M - 1, M, true, true },
};

Test(ts, vectors)
{
	size_t i;

	for (i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		const struct vec *v = &vectors[i];

		cr_expect_eq(hipsvm_ts_after(v->t1, v->t2), v->after,
			     "ts_after(0x%llx, 0x%llx) should be %d", (unsigned long long)v->t1,
			     (unsigned long long)v->t2, v->after);
		cr_expect_eq(hipsvm_ts_after_or_equal(v->t1, v->t2), v->after_or_equal,
			     "ts_after_or_equal(0x%llx, 0x%llx) should be %d",
			     (unsigned long long)v->t1, (unsigned long long)v->t2, v->after_or_equal);
	}
}

Test(ts, argument_order)
{
	/* The question is whether the SECOND argument is after the first. */
	cr_assert(hipsvm_ts_after(100, 200));
	cr_assert_not(hipsvm_ts_after(200, 100));
	cr_assert(hipsvm_ts_after_or_equal(100, 200));
	cr_assert_not(hipsvm_ts_after_or_equal(200, 100));
	cr_assert(hipsvm_ts_after_or_equal(100, 100));
	cr_assert_not(hipsvm_ts_after(100, 100));
}

Test(ts, high_bits_ignored)
{
	/* Bits above 47 are shifted out: they never change the answer. */
	cr_assert(hipsvm_ts_after(UINT64_C(0xffff000000000001), 2));
	cr_assert(hipsvm_ts_after_or_equal(UINT64_C(0xabcd000000000007), 7));
	cr_assert_not(hipsvm_ts_after(7, UINT64_C(0x1230000000000007)));
	cr_assert_eq(hipsvm_ts_diff(1, 2), (int64_t)1 << 16);
}

Test(ts, add_wraps)
{
	cr_assert_eq(hipsvm_ts_add(M, 1), 0);
	cr_assert_eq(hipsvm_ts_add(M - 1, 3), 1);
	cr_assert_eq(hipsvm_ts_add(5, 7), 12);
	cr_assert(hipsvm_ts_after(M - 1, hipsvm_ts_add(M - 1, 3)));
}

static void check_pair(uint64_t t1, uint64_t t2, uint64_t seed, unsigned i)
{
	int m = model_cmp(t1, t2);

	cr_assert_eq(hipsvm_ts_after(t1, t2), m > 0,
		     "seed %llu pair %u: ts_after(0x%llx, 0x%llx), model %d",
		     (unsigned long long)seed, i, (unsigned long long)t1,
		     (unsigned long long)t2, m);
	cr_assert_eq(hipsvm_ts_after_or_equal(t1, t2), m >= 0,
		     "seed %llu pair %u: ts_after_or_equal(0x%llx, 0x%llx), model %d",
		     (unsigned long long)seed, i, (unsigned long long)t1,
		     (unsigned long long)t2, m);
}

Test(ts, random_against_model)
{
	uint64_t seed = test_seed(0x5eed7517), s = seed | 1;
	unsigned i;

	cr_log_info("ts random cross-check: seed %llu (HIPSVM_TEST_SEED overrides)",
		    (unsigned long long)seed);
	for (i = 0; i < 200000; i++) {
		uint64_t t1 = rnd(&s) & M, t2;

		/* Half the pairs anywhere, half close to each other, to the wrap
		 * or to the 2^47 boundary, where the mistakes live. */
		switch (i % 4) {
		case 0:
			t2 = rnd(&s) & M;
			break;
		case 1:
			t2 = (t1 + (rnd(&s) % 64) - 32) & M;
			break;
		case 2:
			t1 = (M - (rnd(&s) % 16)) & M;
			t2 = (rnd(&s) % 32) & M;
			if (rnd(&s) & 1) {
				uint64_t t = t1;

				t1 = t2;
				t2 = t;
			}
			break;
		default:
			t2 = (t1 + HALF + (rnd(&s) % 8) - 4) & M;
			break;
		}
		check_pair(t1, t2, seed, i);
	}
}
