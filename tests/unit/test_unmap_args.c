/* SPDX-License-Identifier: MIT */
/*
 * test_unmap_args.c - the argument checks of src/shim/unmap_args.c against the
 * kernel itself: seeded random calls of munmap, mmap(MAP_FIXED), mremap and
 * madvise inside a region this test owns, each predicted first and then
 * made for real. A call predicted to go ahead must not fail with EINVAL (or
 * ENOMEM/EOVERFLOW for mmap); a call predicted refused must fail with one of
 * the argument errnos, and is then known to have changed nothing. Lengths that
 * run past the end of the address space are only ever made when refusal is
 * predicted (made otherwise, they would unmap the test itself); madvise and
 * the old length of mremap never get one, since the kernel accepts them and
 * would drop or unmap everything above the region.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test_rand.h"
#include "shim/unmap_args.h"

#define REGION	((uintptr_t)16 << 20)

static struct hipsvm_vm_limits lim;
static char *region;

static void remap_region(void)
{
	void *p = mmap(region, REGION, PROT_READ | PROT_WRITE,
		       MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	cr_assert_eq(p, (void *)region);
}

static void setup(void)
{
	void *q;

	lim.page = (uintptr_t)sysconf(_SC_PAGESIZE);
	/* the same probe as the shim's seam: a hint above 2^47 is honoured
	 * only with 5-level paging */
	q = mmap((void *)(UINT64_C(1) << 48), lim.page, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	lim.top = ((q != MAP_FAILED && (uintptr_t)q >= UINT64_C(1) << 47) ? UINT64_C(1) << 56 :
		   UINT64_C(1) << 47) - lim.page;
	if (q != MAP_FAILED)
		munmap(q, lim.page);
	region = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	cr_assert_neq(region, MAP_FAILED);
}

/* An address in or near the region: page-aligned mostly, sometimes not. */
static uintptr_t pick_addr(uint64_t x)
{
	uintptr_t a = (uintptr_t)region + (uintptr_t)((x % (REGION / 2)) & ~(lim.page - 1));

	if ((x >> 40) % 4 == 0)
		a += 1 + (x >> 20) % (lim.page - 1);
	return a;
}

/* A length: 0, a few pages (maybe unaligned), or one that runs past the
 * end of the address space or wraps. */
static size_t pick_len(uint64_t x, bool *huge)
{
	unsigned k = (unsigned)((x >> 8) % 16);

	*huge = false;
	if (k == 0)
		return 0;
	if (k == 1) {
		*huge = true;
		return SIZE_MAX - (size_t)((x >> 24) % 8192);
	}
	if (k == 2) {
		*huge = true;
		return (size_t)lim.top;	/* from inside the region: past the top */
	}
	return (size_t)(1 + (x >> 24) % (REGION / 2 - 1)) & ((x >> 50) % 2 ? ~(lim.page - 1) : SIZE_MAX);
}

static void expect(const char *what, int predicted, int rc, int err, uint64_t seed, unsigned op)
{
	/* Only whether the kernel refuses matters (the shim then makes the
	 * real call, which returns the kernel's errno): where several checks
	 * fail, which errno wins is the kernel's business. */
	if (predicted)
		cr_assert(rc == -1 && (err == EINVAL || err == ENOMEM || err == EOVERFLOW),
			  "seed %#llx op %u: %s predicted %d, kernel rc %d errno %d",
			  (unsigned long long)seed, op, what, predicted, rc, err);
	else
		cr_assert(rc == 0 || (err != EINVAL && err != EOVERFLOW),
			  "seed %#llx op %u: %s predicted to go ahead, kernel errno %d",
			  (unsigned long long)seed, op, what, err);
}

Test(unmap_args, against_the_kernel, .init = setup)
{
	uint64_t seed = test_seed(0x0a4a95e5), s = seed;
	unsigned op, refused = 0, ahead = 0;

	cr_log_info("unmap_args against_the_kernel seed %#llx (HIPSVM_TEST_SEED)",
		    (unsigned long long)seed);
	for (op = 0; op < 4000; op++) {
		uint64_t x = rnd(&s), y = rnd(&s);
		uintptr_t a = pick_addr(x);
		bool huge, huge2;
		size_t len = pick_len(y, &huge), len2 = pick_len(y >> 3, &huge2);
		int pred = 0, rc = 0, err = 0;
		void *p;

		switch (x % 4) {
		case 0:
			pred = hipsvm_munmap_refusal(&lim, a, len);
			if (huge && !pred)
				cr_assert_fail("seed %#llx op %u: munmap of %#zx bytes not refused",
					       (unsigned long long)seed, op, len);
			errno = 0;
			rc = munmap((void *)a, len);
			err = errno;
			expect("munmap", pred, rc, err, seed, op);
			break;
		case 1: {
			int flags = MAP_FIXED | MAP_ANONYMOUS |
				    ((y >> 60) % 8 == 0 ? 0 : MAP_PRIVATE);
			off_t off = (y >> 56) % 8 == 0 ? 100 : 0;

			pred = hipsvm_mmap_refusal(&lim, a, len, flags, off);
			if (huge && !pred)
				cr_assert_fail("seed %#llx op %u: mmap of %#zx bytes not refused",
					       (unsigned long long)seed, op, len);
			errno = 0;
			p = mmap((void *)a, len, PROT_READ, flags, -1, off);
			rc = p == MAP_FAILED ? -1 : 0;
			err = errno;
			if (pred)
				expect("mmap", pred, rc, err, seed, op);
			else
				cr_assert(rc == 0 || (err != EINVAL && err != ENOMEM && err != EOVERFLOW),
					  "seed %#llx op %u: mmap predicted to go ahead, errno %d",
					  (unsigned long long)seed, op, err);
			break;
		}
		case 2: {
			static const int fl[] = { 0, MREMAP_MAYMOVE, MREMAP_FIXED,
						  MREMAP_MAYMOVE | MREMAP_FIXED,
						  MREMAP_MAYMOVE | MREMAP_DONTUNMAP, 0x40 };
			int flags = fl[(y >> 58) % 6];
			uintptr_t na = pick_addr(y);

			remap_region();
			if (huge)	/* a shrink would unmap what lies above */
				len = lim.page;
			pred = hipsvm_mremap_refusal(&lim, a, len, len2, flags, na);
			if (huge2 && !pred)
				cr_assert_fail("seed %#llx op %u: mremap to %#zx bytes not refused",
					       (unsigned long long)seed, op, len2);
			errno = 0;
			p = mremap((void *)a, len, len2, flags, (void *)na);
			rc = p == MAP_FAILED ? -1 : 0;
			err = errno;
			/* an old length of 0 duplicates a shared mapping and is
			 * refused for a private one (this region): that depends
			 * on the mapping, not the arguments */
			if (len != 0 || pred)
				expect("mremap", pred, rc, err, seed, op);
			if (rc == 0 && p != (void *)a && !((uintptr_t)p >= (uintptr_t)region &&
							   (uintptr_t)p < (uintptr_t)region + REGION))
				munmap(p, len2);	/* moved out of the region */
			break;
		}
		default:
			/* the kernel drops every page of a huge range it accepts */
			if (huge)
				len = lim.page;
			pred = hipsvm_madvise_refusal(&lim, a, len);
			errno = 0;
			rc = madvise((void *)a, len, MADV_DONTNEED);
			err = errno;
			expect("madvise", pred, rc, err, seed, op);
			break;
		}
		if (pred)
			refused++;
		else
			ahead++;
		remap_region();
	}
	/* both answers must have been exercised, or the test proves little */
	cr_assert_gt(refused, 400, "seed %#llx: %u refused", (unsigned long long)seed, refused);
	cr_assert_gt(ahead, 400, "seed %#llx: %u went ahead", (unsigned long long)seed, ahead);
}
