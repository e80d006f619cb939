/* SPDX-License-Identifier: MIT */
/*
 * conf_errors.c - error names, API names and the other small services,
 * against ROCm 5.2.3 (hip_error.cpp, hip_intercept.cpp, hiprtc.cpp).
 */
#include "conf.h"

#include <dlfcn.h>
#include <hip/amd_detail/hip_prof_str.h>
#include <hip/hiprtc.h>
#include <math.h>
#include <stdio.h>

/*
 * The names come from ROCm 5.2.3 itself: Debian's libamdhip64.so.5 (which
 * libamdhip64-dev, in scripts/packages.txt, brings) answers hipGetErrorName
 * and hipGetErrorString with no GPU, so every value is checked against the
 * real runtime rather than against a copy of the simulator's table. It is
 * opened by its path, beside the simulator that bears its soname.
 */
#define REAL_HIP "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5"

typedef const char *(*name_fn)(hipError_t);

static void real_names(name_fn *name, name_fn *str)
{
	void *h = dlopen(REAL_HIP, RTLD_NOW | RTLD_LOCAL);

	cr_assert_not_null(h, "the real runtime: %s", dlerror());
	*name = (name_fn)dlsym(h, "hipGetErrorName");
	*str = (name_fn)dlsym(h, "hipGetErrorString");
	cr_assert(*name && *str, "the real runtime has no hipGetErrorName/String");
	cr_assert_neq((void *)*name, (void *)hipGetErrorName, "the real runtime is the simulator");
}

/* Every value a code can have (hipError_t's lie in 0..1054) and more. */
#define FIRST_VALUE (-64)
#define LAST_VALUE 1200

/* hipGetErrorName: the enumerator's name for every code, as ROCm's. */
Test(conf_errors, hipGetErrorName_every_code)
{
	name_fn name, str;
	int v, named = 0;

	real_names(&name, &str);
	for (v = FIRST_VALUE; v <= LAST_VALUE; v++) {
		const char *want = name((hipError_t)v);

		cr_expect_str_eq(hipGetErrorName((hipError_t)v), want, "value %d", v);
		named += strcmp(want, "hipErrorUnknown") != 0;
	}
	cr_log_info("%d values have a name of their own in ROCm 5.2.3", named);
}

/* hipGetErrorString: ROCm 5.2 answers the name too. */
Test(conf_errors, hipGetErrorString_is_the_name)
{
	name_fn name, str;
	int v;

	real_names(&name, &str);
	for (v = FIRST_VALUE; v <= LAST_VALUE; v++) {
		cr_expect_str_eq(hipGetErrorString((hipError_t)v), name((hipError_t)v), "value %d", v);
		cr_expect_str_eq(hipGetErrorString((hipError_t)v), str((hipError_t)v), "value %d", v);
	}
}

/* hipGetErrorName: a value that is no code is "hipErrorUnknown". */
Test(conf_errors, hipGetErrorName_unknown_value)
{
	cr_expect_str_eq(hipGetErrorName((hipError_t)12345), "hipErrorUnknown");
	cr_expect_str_eq(hipGetErrorString((hipError_t)-3), "hipErrorUnknown");
}

/* hipApiName: the profiler's API names; "unknown" out of range. */
Test(conf_errors, hipApiName)
{
	cr_expect_str_eq(hipApiName(HIP_API_ID_hipMalloc), "hipMalloc");
	cr_expect_str_eq(hipApiName(HIP_API_ID_hipStreamAddCallback), "hipStreamAddCallback");
	cr_expect_str_eq(hipApiName(HIP_API_ID_LAST + 100), "unknown");
}

/* hipRegisterApiCallback / hipRemoveApiCallback: an id out of range is
 * hipErrorInvalidValue; a valid one is recorded. */
Test(conf_errors, hipRegisterApiCallback_range)
{
	EXPECT_HIP(hipRegisterApiCallback(HIP_API_ID_hipMalloc, (void *)1, NULL), hipSuccess);
	EXPECT_HIP(hipRemoveApiCallback(HIP_API_ID_hipMalloc), hipSuccess);
	EXPECT_HIP(hipRegisterApiCallback(HIP_API_ID_LAST + 1, (void *)1, NULL),
		   hipErrorInvalidValue);
	EXPECT_HIP(hipRegisterActivityCallback(HIP_API_ID_hipFree, (void *)1, NULL), hipSuccess);
	EXPECT_HIP(hipRemoveActivityCallback(HIP_API_ID_LAST + 1), hipErrorInvalidValue);
}

/* hiprtcGetErrorString: the enumerator's name; NULL for an unknown code. */
Test(conf_errors, hiprtcGetErrorString)
{
	cr_expect_str_eq(hiprtcGetErrorString(HIPRTC_SUCCESS), "HIPRTC_SUCCESS");
	cr_expect_str_eq(hiprtcGetErrorString(HIPRTC_ERROR_INTERNAL_ERROR),
			 "HIPRTC_ERROR_INTERNAL_ERROR");
	cr_expect_null(hiprtcGetErrorString((hiprtcResult)99));
}

/* hiprtcVersion: 9.0 in ROCm 5.2. */
Test(conf_errors, hiprtcVersion)
{
	int ma = 0, mi = 1;

	cr_expect_eq(hiprtcVersion(&ma, &mi), HIPRTC_SUCCESS);
	cr_expect_eq(ma, 9);
	cr_expect_eq(mi, 0);
	cr_expect_eq(hiprtcVersion(NULL, &mi), HIPRTC_ERROR_INVALID_INPUT);
}

unsigned short __gnu_f2h_ieee(float f);
float __gnu_h2f_ieee(unsigned short h);

/* The model: a half's value by its definition (exact in a double). */
static double half_value(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);

	return (h & 0x8000) ? -v : v;
}

/* The model: the nearest half by search among the 31744 finite
 * non-negative halves (ordered like their bit patterns), ties to the even
 * pattern; from 65520 up, infinity. */
static uint16_t nearest_half(float f)
{
	double a = fabs((double)f);
	uint16_t sign = signbit(f) ? 0x8000 : 0, lo = 0, hi = 0x7bff;

	if (isinf(f) || a >= 65520.0)
		return sign | 0x7c00;
	while (lo < hi) {	/* the largest half <= a */
		uint16_t mid = (uint16_t)((lo + hi + 1) / 2);

		if (half_value(mid) <= a)
			lo = mid;
		else
			hi = (uint16_t)(mid - 1);
	}
	if (lo < 0x7bff) {
		double below = a - half_value(lo), above = half_value(lo + 1) - a;

		if (above < below || (above == below && (lo & 1)))
			lo++;
	}
	return sign | lo;
}

/* __gnu_h2f_ieee: every half value, against the definition. */
Test(conf_errors, gnu_h2f_ieee_exhaustive)
{
	unsigned h;

	for (h = 0; h < 65536; h++) {
		float got = __gnu_h2f_ieee((uint16_t)h);

		if (((h >> 10) & 0x1f) == 0x1f) {
			if (h & 0x3ff)
				cr_expect(isnan(got), "h=%#x: not a NaN", h);
			else
				cr_expect(isinf(got) && !!signbit(got) == !!(h & 0x8000), "h=%#x", h);
			continue;
		}
		cr_expect_eq((double)got, half_value((uint16_t)h), "h=%#x: %a", h, got);
		if (h == 0x8000)
			cr_expect(signbit(got), "-0");
	}
}

/* __gnu_f2h_ieee: round to nearest even, against the search model on random
 * floats (seed printed), half of them drawn in the half's range. */
Test(conf_errors, gnu_f2h_ieee_random)
{
	uint64_t seed = 0x5eed0f2bULL, x = seed;
	int i;

	printf("# seed %#llx\n", (unsigned long long)seed);
	for (i = 0; i < 300000; i++) {
		uint32_t u;
		float f;
		uint16_t want, got;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		u = (uint32_t)x;
		if (i & 1)	/* exponents around the half's range */
			u = (u & 0x80000000u) | ((0x64u + (u >> 24) % 0x24u) << 23) | (u & 0x7fffffu);
		memcpy(&f, &u, 4);
		if (isnan(f))
			continue;
		want = nearest_half(f);
		got = __gnu_f2h_ieee(f);
		if (got != want)
			cr_assert_eq(got, want, "seed %#llx: f=%a (%#x): %#x, want %#x",
				     (unsigned long long)seed, f, u, got, want);
	}
}

/* __gnu_f2h_ieee: every half is a fixed point, and every midpoint between
 * two neighbours rounds to the even one. */
Test(conf_errors, gnu_f2h_ieee_midpoints)
{
	uint16_t h;

	for (h = 0; h < 0x7bff; h++) {
		float v = (float)half_value(h), mid = (float)((half_value(h) + half_value(h + 1)) / 2);

		cr_expect_eq(__gnu_f2h_ieee(v), h, "h=%#x", h);
		cr_expect_eq(__gnu_f2h_ieee(-v), h | 0x8000, "-h=%#x", h);
		cr_expect_eq(__gnu_f2h_ieee(mid), (h & 1) ? h + 1 : h, "mid above %#x", h);
	}
	cr_expect_eq(__gnu_f2h_ieee(65520.0f), 0x7c00);
	cr_expect_eq(__gnu_f2h_ieee(65519.0f), 0x7bff);
	cr_expect_eq(__gnu_f2h_ieee(1e-10f), 0);
	cr_expect(((__gnu_f2h_ieee(NAN) >> 10) & 0x1f) == 0x1f && (__gnu_f2h_ieee(NAN) & 0x3ff));
}

/* amd_dbgapi_get_build_* : ROCm 5.2.3's answers (empty, 0). */
const char *amd_dbgapi_get_build_name(void);
const char *amd_dbgapi_get_git_hash(void);
size_t amd_dbgapi_get_build_id(void);

Test(conf_errors, amd_dbgapi_build_identification)
{
	cr_expect_str_eq(amd_dbgapi_get_build_name(), "");
	cr_expect_str_eq(amd_dbgapi_get_git_hash(), "");
	cr_expect_eq(amd_dbgapi_get_build_id(), 0);
}

/* hipGetLastError: a failed call is recorded; reading resets it. */
Test(conf_errors, hipGetLastError_records_failures)
{
	int v;

	(void)hipGetLastError();
	EXPECT_HIP(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, 99), hipErrorInvalidDevice);
	EXPECT_HIP(hipPeekAtLastError(), hipErrorInvalidDevice);
	EXPECT_HIP(hipGetLastError(), hipErrorInvalidDevice);
	EXPECT_HIP(hipGetLastError(), hipSuccess);
}
