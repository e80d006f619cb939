// isa_subword: kernels whose gfx90a code uses DPP lane moves, SDWA sub-dword
// operands, 16-bit integer and half-precision arithmetic, and LDS
// compare-and-store, each checked against a CPU reference (exit 2 on a
// mismatch, 1 on an API failure): a rocPRIM-style warp scan built from DPP
// row shifts and broadcasts, every DPP lane pattern, a byte histogram and a
// byte sum (SDWA byte selects), packed and scalar half precision (fma,
// add, mul, compares, conversions), 16-bit integer min/max/add/mad, and an
// LDS lock-free maximum with atomicCAS (ds_cmpst_rtn_b32). The half
// references are computed exactly in long double and rounded once with the
// host's _Float16, so they are the correctly rounded results.
// Options: a test name runs only that test; none runs them all.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                          \
	do {                                                                 \
		hipError_t e_ = (call);                                      \
		if (e_ != hipSuccess) {                                      \
			printf("%s=%d (%s)\n", #call, (int)e_, hipGetErrorString(e_)); \
			exit(1);                                             \
		}                                                            \
	} while (0)

// ---- DPP ----

// An inclusive scan of each wave's 64 values as rocPRIM's warp_scan_dpp
// does it: row shifts by 1, 2, 4 and 8 (banks masked off where the value is
// already complete), then the last lane of each row broadcast to the next
// row and lane 31 to the upper half. A lane that is not written keeps the
// old value 0, the identity.
template <int ctrl, int row_mask, int bank_mask>
__device__ int dpp0(int v)
{
	return __builtin_amdgcn_update_dpp(0, v, ctrl, row_mask, bank_mask, false);
}

__global__ void k_dpp_scan(const int *in, int *out)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	int x = in[t];

	x += dpp0<0x111, 0xf, 0xf>(x);
	x += dpp0<0x112, 0xf, 0xf>(x);
	x += dpp0<0x114, 0xf, 0xe>(x);
	x += dpp0<0x118, 0xf, 0xc>(x);
	x += dpp0<0x142, 0xa, 0xf>(x);
	x += dpp0<0x143, 0xc, 0xf>(x);
	out[t] = x;
}

// Every DPP lane pattern once, with bound_ctrl (out of range reads 0).
#define DPP_CTRLS(X) X(0x1b) X(0xb1) X(0x103) X(0x115) X(0x127) X(0x130) X(0x134) \
	X(0x138) X(0x13c) X(0x140) X(0x141) X(0x142) X(0x143)

__global__ void k_dpp_moves(const int *in, int *out)
{
	int t = threadIdx.x, x = in[t], k = 0;
#define ONE(c) out[64 * k++ + t] = __builtin_amdgcn_update_dpp(-1, x, c, 0xf, 0xf, true);
	DPP_CTRLS(ONE)
#undef ONE
}

// The source lane of lane l, or -1 (out of range), for the CPU reference:
// from the ISA's definitions of the patterns.
static int dpp_from(int ctrl, int l)
{
	int row = l & ~15, r = l & 15;

	if (ctrl < 0x100)
		return (l & ~3) | ((ctrl >> (2 * (l & 3))) & 3);
	if (ctrl > 0x100 && ctrl < 0x110)
		return r + (ctrl & 15) < 16 ? l + (ctrl & 15) : -1;
	if (ctrl > 0x110 && ctrl < 0x120)
		return r >= (ctrl & 15) ? l - (ctrl & 15) : -1;
	if (ctrl > 0x120 && ctrl < 0x130)
		return row | ((r - (ctrl & 15)) & 15);
	switch (ctrl) {
	case 0x130: return l < 63 ? l + 1 : -1;
	case 0x134: return (l + 1) & 63;
	case 0x138: return l > 0 ? l - 1 : -1;
	case 0x13c: return (l + 63) & 63;
	case 0x140: return row | (15 - r);
	case 0x141: return (l & ~7) | (7 - (l & 7));
	case 0x142: return l >= 16 ? row - 1 : -1;
	default: return l >= 32 ? 31 : -1;
	}
}

// ---- SDWA: bytes ----

__global__ void k_bytehist(const unsigned *in, unsigned *hist, int n)
{
	__shared__ unsigned h[256];
	int t = threadIdx.x;

	h[t] = 0;
	__syncthreads();
	for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) {
		unsigned w = in[i];

		atomicAdd(&h[w & 0xff], 1u);
		atomicAdd(&h[(w >> 8) & 0xff], 1u);
		atomicAdd(&h[(w >> 16) & 0xff], 1u);
		atomicAdd(&h[w >> 24], 1u);
	}
	__syncthreads();
	atomicAdd(&hist[t], h[t]);
}

// Sums of the bytes and of the 16-bit halves of each word, and a byte
// product into a short.
__global__ void k_bytesum(const unsigned *in, unsigned *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n) {
		unsigned w = in[i];
		unsigned char b0 = w, b1 = w >> 8, b2 = w >> 16, b3 = w >> 24;
		unsigned short lo = w, hi = w >> 16;

		out[3 * i] = (unsigned)b0 + b1 + b2 + b3;
		out[3 * i + 1] = (unsigned)(unsigned short)(lo + hi) | ((unsigned)(b1 * b3) << 16);
		out[3 * i + 2] = (signed char)b2 < (signed char)b0 ? (unsigned)(signed char)b2 : b1;
	}
}

// ---- 16-bit integers ----

__global__ void k_i16(const short *a, const short *b, const unsigned short *c,
		      const unsigned short *d, short *out, unsigned short *uout, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n) {
		short x = a[i], y = b[i];
		unsigned short u = c[i], v = d[i];

		out[4 * i] = x > y ? x : y;
		out[4 * i + 1] = x < y ? x : y;
		out[4 * i + 2] = (short)(x + y);
		short m = x > y ? x : y;
		out[4 * i + 3] = m > (short)u ? m : (short)u;
		uout[3 * i] = u < v ? u : v;
		uout[3 * i + 1] = (unsigned short)(u * v + (unsigned short)x);
		uout[3 * i + 2] = (unsigned short)(u - v);
	}
}

// ---- half precision ----

__global__ void k_half2(const __half2 *a, const __half2 *b, const __half2 *c, __half2 *out,
			unsigned *flags, float *f, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n) {
		__half2 x = a[i], y = b[i], z = c[i];

		out[3 * i] = __hfma2(x, y, z);
		out[3 * i + 1] = __hadd2(x, y);
		out[3 * i + 2] = __hmul2(x, z);
		__half xl = __low2half(x), yh = __high2half(y);
		flags[i] = (unsigned)__hlt(xl, yh) | (unsigned)__hge(__high2half(x), __low2half(z)) << 1 |
			   (unsigned)__heq(xl, __low2half(y)) << 2 | (unsigned)__hisnan(yh) << 3;
		f[2 * i] = __half2float(xl) + __half2float(__high2half(z));
		f[2 * i + 1] = __half2float(__hfma(xl, yh, __low2half(z)));
	}
}

// ---- LDS compare-and-store ----

// The maximum of each block's values through an atomicCAS loop on LDS.
__global__ void k_cas_max(const int *in, int *out)
{
	__shared__ int m;
	int t = threadIdx.x, v = in[blockIdx.x * blockDim.x + t];

	if (t == 0)
		m = INT_MIN;
	__syncthreads();
	int old = m;
	while (old < v) {
		int seen = atomicCAS(&m, old, v);

		if (seen == old)
			break;
		old = seen;
	}
	__syncthreads();
	if (t == 0)
		out[blockIdx.x] = m;
}

// ---- host side ----

static unsigned long long rng = 0x5eedf00dULL;	/* fixed seed, printed */

static unsigned rnd(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(rng >> 33);
}

static int fail(const char *k, int i, double got, double want)
{
	printf("%s: mismatch at %d: got %.17g (0x%llx) want %.17g\n", k, i, got,
	       (unsigned long long)got, want);
	return 1;
}

template <typename T> static T *dev(const T *h, size_t n)
{
	T *d;
	CHECK(hipMalloc(&d, n * sizeof(T)));
	if (h)
		CHECK(hipMemcpy(d, h, n * sizeof(T), hipMemcpyHostToDevice));
	else
		CHECK(hipMemset(d, 0, n * sizeof(T)));
	return d;
}

template <typename T> static void back(T *h, const T *d, size_t n)
{
	CHECK(hipMemcpy(h, d, n * sizeof(T), hipMemcpyDeviceToHost));
}

static int t_dpp_scan(void)
{
	const int n = 256;
	int in[n], out[n], bad = 0;

	for (int i = 0; i < n; i++)
		in[i] = (int)(rnd() % 1000) - 500;
	int *di = dev(in, n), *d_o = dev<int>(NULL, n);
	hipLaunchKernelGGL(k_dpp_scan, dim3(2), dim3(128), 0, 0, di, d_o);
	back(out, d_o, n);
	for (int w = 0; w < n / 64 && !bad; w++) {
		int acc = 0;

		for (int l = 0; l < 64 && !bad; l++) {
			acc += in[64 * w + l];
			if (out[64 * w + l] != acc)
				bad = fail("dpp_scan", 64 * w + l, out[64 * w + l], acc);
		}
	}
	CHECK(hipFree(di));
	CHECK(hipFree(d_o));
	return bad;
}

static int t_dpp_moves(void)
{
	static const int ctrls[] = {
#define ONE(c) c,
		DPP_CTRLS(ONE)
#undef ONE
	};
	const int nc = sizeof(ctrls) / sizeof(ctrls[0]);
	int in[64], out[64 * nc], bad = 0;

	for (int i = 0; i < 64; i++)
		in[i] = (int)rnd();
	int *di = dev(in, 64), *d_o = dev<int>(NULL, 64 * nc);
	hipLaunchKernelGGL(k_dpp_moves, dim3(1), dim3(64), 0, 0, di, d_o);
	back(out, d_o, 64 * nc);
	for (int k = 0; k < nc && !bad; k++)
		for (int l = 0; l < 64 && !bad; l++) {
			int from = dpp_from(ctrls[k], l), want = from < 0 ? 0 : in[from];

			if (out[64 * k + l] != want) {
				printf("dpp ctrl 0x%x lane %d: ", ctrls[k], l);
				bad = fail("dpp_moves", l, out[64 * k + l], want);
			}
		}
	CHECK(hipFree(di));
	CHECK(hipFree(d_o));
	return bad;
}

static int t_bytehist(void)
{
	const int n = 5000;
	unsigned *in = new unsigned[n], hist[256], want[256] = { 0 };
	int bad = 0;

	for (int i = 0; i < n; i++) {
		/* skewed bytes, so some bins see many lanes at once */
		in[i] = rnd() & (i % 3 ? 0xffffffffu : 0x0f0f0f0fu);
		for (int b = 0; b < 4; b++)
			want[(in[i] >> (8 * b)) & 0xff]++;
	}
	unsigned *di = dev(in, n), *dh = dev<unsigned>(NULL, 256);
	hipLaunchKernelGGL(k_bytehist, dim3(7), dim3(256), 0, 0, di, dh, n);
	back(hist, dh, 256);
	for (int b = 0; b < 256 && !bad; b++)
		if (hist[b] != want[b])
			bad = fail("bytehist", b, hist[b], want[b]);
	CHECK(hipFree(di));
	CHECK(hipFree(dh));
	delete[] in;
	return bad;
}

static int t_bytesum(void)
{
	const int n = 3000;
	unsigned *in = new unsigned[n], *out = new unsigned[3 * n];
	int bad = 0;

	for (int i = 0; i < n; i++)
		in[i] = rnd() ^ (rnd() << 17);
	unsigned *di = dev(in, n), *d_o = dev<unsigned>(NULL, 3 * n);
	hipLaunchKernelGGL(k_bytesum, dim3((n + 255) / 256), dim3(256), 0, 0, di, d_o, n);
	back(out, d_o, 3 * n);
	for (int i = 0; i < n && !bad; i++) {
		unsigned w = in[i], b0 = w & 0xff, b1 = (w >> 8) & 0xff, b2 = (w >> 16) & 0xff,
			 b3 = w >> 24;
		unsigned want[3] = {
			b0 + b1 + b2 + b3,
			((w + (w >> 16)) & 0xffff) | ((b1 * b3) & 0xffff) << 16,
			(signed char)b2 < (signed char)b0 ? (unsigned)(signed char)b2 : b1,
		};

		for (int k = 0; k < 3 && !bad; k++)
			if (out[3 * i + k] != want[k])
				bad = fail("bytesum", 3 * i + k, out[3 * i + k], want[k]);
	}
	CHECK(hipFree(di));
	CHECK(hipFree(d_o));
	delete[] in;
	delete[] out;
	return bad;
}

static int t_i16(void)
{
	const int n = 2000;
	short *a = new short[n], *b = new short[n], *out = new short[4 * n];
	unsigned short *c = new unsigned short[n], *d = new unsigned short[n];
	unsigned short *uout = new unsigned short[3 * n];
	int bad = 0;

	for (int i = 0; i < n; i++) {
		a[i] = (short)rnd();
		b[i] = (short)rnd();
		c[i] = (unsigned short)rnd();
		d[i] = (unsigned short)(i % 5 ? rnd() : c[i]);
	}
	short *da = dev(a, n), *db = dev(b, n), *d_o = dev<short>(NULL, 4 * n);
	unsigned short *dc = dev(c, n), *dd = dev(d, n), *du = dev<unsigned short>(NULL, 3 * n);
	hipLaunchKernelGGL(k_i16, dim3((n + 127) / 128), dim3(128), 0, 0, da, db, dc, dd, d_o, du, n);
	back(out, d_o, 4 * n);
	back(uout, du, 3 * n);
	for (int i = 0; i < n && !bad; i++) {
		short x = a[i], y = b[i], m = x > y ? x : y;
		unsigned short u = c[i], v = d[i];
		short ws[4] = { m, x < y ? x : y, (short)(x + y), m > (short)u ? m : (short)u };
		unsigned short wu[3] = { u < v ? u : v, (unsigned short)(u * v + (unsigned short)x),
					 (unsigned short)(u - v) };

		for (int k = 0; k < 4 && !bad; k++)
			if (out[4 * i + k] != ws[k])
				bad = fail("i16", 4 * i + k, out[4 * i + k], ws[k]);
		for (int k = 0; k < 3 && !bad; k++)
			if (uout[3 * i + k] != wu[k])
				bad = fail("u16", 3 * i + k, uout[3 * i + k], wu[k]);
	}
	CHECK(hipFree(da));
	CHECK(hipFree(db));
	CHECK(hipFree(dc));
	CHECK(hipFree(dd));
	CHECK(hipFree(d_o));
	CHECK(hipFree(du));
	delete[] a;
	delete[] b;
	delete[] c;
	delete[] d;
	delete[] out;
	delete[] uout;
	return bad;
}

static unsigned short hbits(_Float16 h)
{
	unsigned short v;

	memcpy(&v, &h, 2);
	return v;
}

static _Float16 hval(unsigned short v)
{
	_Float16 h;

	memcpy(&h, &v, 2);
	return h;
}

/* A random half: mostly within [2^-7, 2^5] in magnitude (every mantissa),
 * some denormals, zeroes and NaNs. */
static unsigned short rnd_half(void)
{
	unsigned r = rnd(), sign = (r & 1) << 15, m = (r >> 1) & 0x3ff;

	switch ((r >> 11) % 16) {
	case 0: return (unsigned short)(sign | m);			/* denormal or zero */
	case 1: return (unsigned short)(0x7e00 | m);			/* NaN */
	default: return (unsigned short)(sign | ((8 + (r >> 15) % 13) << 10) | m);
	}
}

static bool same_half(unsigned short got, unsigned short want)
{
	/* a NaN result: any NaN (the payload is the hardware's choice) */
	if ((want & 0x7c00) == 0x7c00 && (want & 0x3ff))
		return (got & 0x7c00) == 0x7c00 && (got & 0x3ff);
	return got == want;
}

static int t_half2(void)
{
	const int n = 4096;
	unsigned *a = new unsigned[n], *b = new unsigned[n], *c = new unsigned[n];
	unsigned *out = new unsigned[3 * n], *flags = new unsigned[n];
	float *f = new float[2 * n];
	int bad = 0;

	for (int i = 0; i < n; i++) {
		a[i] = rnd_half() | (unsigned)rnd_half() << 16;
		b[i] = rnd_half() | (unsigned)rnd_half() << 16;
		c[i] = rnd_half() | (unsigned)rnd_half() << 16;
	}
	__half2 *da = (__half2 *)dev(a, n), *db = (__half2 *)dev(b, n), *dc = (__half2 *)dev(c, n);
	__half2 *d_o = (__half2 *)dev<unsigned>(NULL, 3 * n);
	unsigned *dfl = dev<unsigned>(NULL, n);
	float *df = dev<float>(NULL, 2 * n);
	hipLaunchKernelGGL(k_half2, dim3(n / 256), dim3(256), 0, 0, da, db, dc, d_o, dfl, df, n);
	back(out, (unsigned *)d_o, 3 * n);
	back(flags, dfl, n);
	back(f, df, 2 * n);
	for (int i = 0; i < n && !bad; i++) {
		for (int h = 0; h < 2 && !bad; h++) {
			long double x = hval(a[i] >> (16 * h)), y = hval(b[i] >> (16 * h)),
				    z = hval(c[i] >> (16 * h));
			unsigned short want[3] = { hbits((_Float16)(x * y + z)), hbits((_Float16)(x + y)),
						   hbits((_Float16)(x * z)) };

			for (int k = 0; k < 3 && !bad; k++) {
				unsigned short got = (unsigned short)(out[3 * i + k] >> (16 * h));

				if (!same_half(got, want[k])) {
					printf("half2 op %d half %d of 0x%08x 0x%08x 0x%08x: ", k, h, a[i],
					       b[i], c[i]);
					bad = fail("half2", 3 * i + k, got, want[k]);
				}
			}
		}
		long double xl = hval(a[i]), xh = hval(a[i] >> 16), yl = hval(b[i]), yh = hval(b[i] >> 16),
			    zl = hval(c[i]), zh = hval(c[i] >> 16);
		unsigned wf = (unsigned)(xl < yh) | (unsigned)(xh >= zl) << 1 | (unsigned)(xl == yl) << 2 |
			      (unsigned)(yh != yh) << 3;
		float f0 = (float)xl + (float)zh, f1 = (float)(_Float16)(xl * yh + zl);

		if (flags[i] != wf)
			bad = fail("half compares", i, flags[i], wf);
		else if (memcmp(&f[2 * i], &f0, 4) && !(f0 != f0 && f[2 * i] != f[2 * i]))
			bad = fail("half to float add", i, f[2 * i], f0);
		else if (memcmp(&f[2 * i + 1], &f1, 4) && !(f1 != f1 && f[2 * i + 1] != f[2 * i + 1]))
			bad = fail("half fma to float", i, f[2 * i + 1], f1);
	}
	CHECK(hipFree(da));
	CHECK(hipFree(db));
	CHECK(hipFree(dc));
	CHECK(hipFree(d_o));
	CHECK(hipFree(dfl));
	CHECK(hipFree(df));
	delete[] a;
	delete[] b;
	delete[] c;
	delete[] out;
	delete[] flags;
	delete[] f;
	return bad;
}

static int t_cas_max(void)
{
	const int blocks = 6, n = blocks * 256;
	int in[n], out[blocks], bad = 0;

	for (int i = 0; i < n; i++)
		in[i] = (int)rnd() - (1 << 30);
	int *di = dev(in, n), *d_o = dev<int>(NULL, blocks);
	hipLaunchKernelGGL(k_cas_max, dim3(blocks), dim3(256), 0, 0, di, d_o);
	back(out, d_o, blocks);
	for (int g = 0; g < blocks && !bad; g++) {
		int m = INT_MIN;

		for (int t = 0; t < 256; t++)
			m = in[256 * g + t] > m ? in[256 * g + t] : m;
		if (out[g] != m)
			bad = fail("cas_max", g, out[g], m);
	}
	CHECK(hipFree(di));
	CHECK(hipFree(d_o));
	return bad;
}

static const struct { const char *name; int (*fn)(void); } tests[] = {
	{"dpp_scan", t_dpp_scan}, {"dpp_moves", t_dpp_moves}, {"bytehist", t_bytehist},
	{"bytesum", t_bytesum}, {"i16", t_i16}, {"half2", t_half2}, {"cas_max", t_cas_max},
};

int main(int argc, char **argv)
{
	int bad = 0, ran = 0;

	printf("seed 0x%llx\n", rng);
	for (size_t t = 0; t < sizeof(tests) / sizeof(tests[0]); t++) {
		if (argc > 1 && strcmp(argv[1], tests[t].name))
			continue;
		int b = tests[t].fn();
		CHECK(hipDeviceSynchronize());
		printf("%s %s\n", b ? "FAIL" : "ok", tests[t].name);
		bad |= b;
		ran++;
	}
	if (!ran) {
		printf("no test named %s\n", argv[1]);
		return 1;
	}
	return bad ? 2 : 0;
}
