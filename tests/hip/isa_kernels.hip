// isa_kernels: kernels the simulator's gfx90a interpreter runs, each checked
// against a CPU reference (exit 2 on a mismatch, 1 on an API failure): the
// project's patterns (vector add, saxpy, grid-stride, 2-D, LDS reduction,
// atomics, shuffles, double) and common ones (tiled matrix multiply, LDS
// histogram, float4, 64-bit integer division, the float math library, scan,
// transpose, ballot/any/all, half precision, every atomic, a private array in
// scratch).
// Options: a kernel name runs only that kernel; none runs them all.
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

__global__ void k_vadd(float *c, const float *a, const float *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}

__global__ void k_saxpy(float a, const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

__global__ void k_stride(int *p, size_t n, int by)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] = p[i] * 3 + by;
}

__global__ void k_2d(float *out, const float *in, int w, int h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x < w && y < h)
		out[x * h + y] = in[y * w + x] * 0.5f - (float)y;
}

__global__ void k_reduce(const int *in, int *out, int n)
{
	__shared__ int s[256];
	int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
	s[t] = i < n ? in[i] : 0;
	__syncthreads();
	for (int k = blockDim.x / 2; k > 0; k >>= 1) {
		if (t < k)
			s[t] += s[t + k];
		__syncthreads();
	}
	if (t == 0)
		out[blockIdx.x] = s[0];
}

__global__ void k_atomic(const int *in, int *hist, unsigned *total, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		atomicAdd(&hist[in[i] & 15], 1);
		atomicAdd(total, (unsigned)in[i]);
	}
}

__global__ void k_shfl(const int *in, int *out)
{
	int t = threadIdx.x;
	int v = in[blockIdx.x * blockDim.x + t];
	for (int d = 32; d > 0; d >>= 1)
		v += __shfl_down(v, d);
	int r = __shfl(v, (t + 5) & 63);
	out[blockIdx.x * blockDim.x + t] = r + (t == 0 ? v : 0) * 0;
}

__global__ void k_double(const double *x, double *y, double a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + sqrt(fabs(x[i])) - y[i] / (x[i] + 3.0) + sin(x[i]) * cos(x[i] * 1e3);
}

__global__ void k_math(const float *x, float *y, int *z, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = v / (1.0f + fabsf(v)) + fminf(v, 2.0f) * fmaxf(v, -1.0f);
		z[i] = (int)v % 7 + ((int)v >> 2) - (int)(v * 3.0f) / 5 + (unsigned)i % 11u;
	}
}

__global__ void k_dynshared(const int *in, int *out)
{
	extern __shared__ int dyn[];
	int t = threadIdx.x, base = blockIdx.x * blockDim.x;
	dyn[t] = in[base + t];
	__syncthreads();
	out[base + t] = dyn[blockDim.x - 1 - t] * 2;
}


__global__ void k_mm(const float *a, const float *b, float *c, int n)
{
	__shared__ float ta[16][16], tb[16][16];
	int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
	float acc = 0;
	for (int k = 0; k < n; k += 16) {
		ta[ty][tx] = a[row * n + k + tx];
		tb[ty][tx] = b[(k + ty) * n + col];
		__syncthreads();
		for (int j = 0; j < 16; j++)
			acc += ta[ty][j] * tb[j][tx];
		__syncthreads();
	}
	c[row * n + col] = acc;
}

__global__ void k_hist(const unsigned char *in, unsigned *h, int n)
{
	__shared__ unsigned sh[256];
	sh[threadIdx.x] = 0;
	__syncthreads();
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		atomicAdd(&sh[in[i]], 1u);
	__syncthreads();
	atomicAdd(&h[threadIdx.x], sh[threadIdx.x]);
}

__global__ void k_f4(const float4 *a, float4 *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float4 v = a[i];
		b[i] = make_float4(v.w, v.z * 2, v.y, v.x);
	}
}

__global__ void k_i64(const long long *a, unsigned long long *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		b[i] = (unsigned long long)a[i] / (unsigned long long)(i + 3) + a[i] % 7 + (a[i] >> 5) * a[i];
}

__global__ void k_fmath(const float *a, float *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float x = a[i];
		b[i] = sqrtf(fabsf(x)) + expf(x * 0.01f) + logf(fabsf(x) + 1) + sinf(x) * cosf(x) +
		       powf(fabsf(x), 0.3f) + floorf(x) + rintf(x) + tanhf(x);
	}
}

__global__ void k_scan(int *d)
{
	__shared__ int s[512];
	int t = threadIdx.x;
	s[t] = d[t];
	__syncthreads();
	for (int o = 1; o < 512; o <<= 1) {
		int v = t >= o ? s[t - o] : 0;
		__syncthreads();
		s[t] += v;
		__syncthreads();
	}
	d[t] = s[t];
}

__global__ void k_transpose(const float *in, float *out, int w, int h)
{
	__shared__ float t[32][33];
	int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
	if (x < w && y < h)
		t[threadIdx.y][threadIdx.x] = in[y * w + x];
	__syncthreads();
	x = blockIdx.y * 32 + threadIdx.x;
	y = blockIdx.x * 32 + threadIdx.y;
	if (x < h && y < w)
		out[y * h + x] = t[threadIdx.x][threadIdx.y];
}

__global__ void k_warp(const int *a, int *b)
{
	int v = a[threadIdx.x];
	unsigned long long m = __ballot(v > 5);
	int any = __any(v > 100), all = __all(v >= 0);
	b[threadIdx.x] = __popcll(m) + any * 1000 + all * 10000 + __shfl_xor(v, 3) * 7 + __shfl_up(v, 1) * 3;
}

__global__ void k_half(const __half *a, __half *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		b[i] = __hadd(__hmul(a[i], __float2half(1.5f)), __float2half(0.25f));
}

__global__ void k_atomics(int *a, unsigned *u, float *f, double *d)
{
	int t = threadIdx.x + blockIdx.x * blockDim.x;
	atomicMax(a, t);
	atomicMin(a + 1, -t);
	atomicCAS(a + 3, 0, 5);
	atomicInc(u, 100u);
	atomicAnd(a + 4, ~(1 << (t % 31)));
	atomicOr(a + 5, 1 << (t % 31));
	atomicXor(a + 6, t);
	atomicAdd(f, 0.5f);
	atomicAdd(d, 0.25);
	atomicSub(a + 7, 2);
}

__global__ void k_private(const int *idx, int *out)
{
	int loc[40];	/* indexed at run time: in scratch */
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	for (int k = 0; k < 40; k++)
		loc[k] = k * t;
	out[t] = loc[idx[t] % 40] + loc[(idx[t] + 7) % 40];
}

// ---- host side: each test fills inputs with a fixed-seed generator, runs
// the kernel, and compares with the CPU. ----

static unsigned long long rng = 0x1234abcdULL;
static unsigned rnd(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(rng >> 33);
}

static int fail(const char *k, int i, double got, double want)
{
	printf("%s: mismatch at %d: got %.17g want %.17g\n", k, i, got, want);
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

static int t_vadd(void)
{
	const int n = 100003;
	float *a = new float[n], *b = new float[n], *c = new float[n];
	for (int i = 0; i < n; i++) { a[i] = (float)(rnd() % 1000) / 7; b[i] = (float)(rnd() % 1000) / 3; }
	float *da = dev(a, n), *db = dev(b, n), *dc = dev<float>(NULL, n);
	hipLaunchKernelGGL(k_vadd, dim3((n + 255) / 256), dim3(256), 0, 0, dc, da, db, n);
	back(c, dc, n);
	int bad = 0;
	for (int i = 0; i < n && !bad; i++)
		if (c[i] != a[i] + b[i]) bad = fail("vadd", i, c[i], a[i] + b[i]);
	hipFree(da); hipFree(db); hipFree(dc);
	delete[] a; delete[] b; delete[] c;
	return bad;
}

static int t_saxpy(void)
{
	const int n = 5000;
	float *x = new float[n], *y = new float[n], *r = new float[n];
	for (int i = 0; i < n; i++) { x[i] = (float)(int)(rnd() % 2001 - 1000) / 16; y[i] = (float)(rnd() % 100); }
	float *dx = dev(x, n), *dy = dev(y, n);
	hipLaunchKernelGGL(k_saxpy, dim3((n + 127) / 128), dim3(128), 0, 0, 2.5f, dx, dy, n);
	back(r, dy, n);
	int bad = 0;
	for (int i = 0; i < n && !bad; i++) {
		float want = fmaf(2.5f, x[i], y[i]);
		if (r[i] != want) bad = fail("saxpy", i, r[i], want);
	}
	hipFree(dx); hipFree(dy);
	delete[] x; delete[] y; delete[] r;
	return bad;
}

static int t_stride(void)
{
	const size_t n = 70000;
	int *p = new int[n], *r = new int[n];
	for (size_t i = 0; i < n; i++) p[i] = (int)rnd();
	int *dp = dev(p, n);
	hipLaunchKernelGGL(k_stride, dim3(7), dim3(192), 0, 0, dp, n, 11);
	back(r, dp, n);
	int bad = 0;
	for (size_t i = 0; i < n && !bad; i++)
		if (r[i] != (int)((unsigned)p[i] * 3u + 11u)) bad = fail("stride", (int)i, r[i], p[i] * 3 + 11);
	hipFree(dp);
	delete[] p; delete[] r;
	return bad;
}

static int t_2d(void)
{
	const int w = 100, h = 37;
	float *in = new float[w * h], *out = new float[w * h];
	for (int i = 0; i < w * h; i++) in[i] = (float)(rnd() % 4096);
	float *di = dev(in, w * h), *d_o = dev<float>(NULL, w * h);
	hipLaunchKernelGGL(k_2d, dim3((w + 15) / 16, (h + 7) / 8), dim3(16, 8), 0, 0, d_o, di, w, h);
	back(out, d_o, w * h);
	int bad = 0;
	for (int y = 0; y < h && !bad; y++)
		for (int x = 0; x < w && !bad; x++) {
			float want = in[y * w + x] * 0.5f - (float)y;
			if (out[x * h + y] != want) bad = fail("2d", x * h + y, out[x * h + y], want);
		}
	hipFree(di); hipFree(d_o);
	delete[] in; delete[] out;
	return bad;
}

static int t_reduce(void)
{
	const int n = 10000, blocks = (n + 255) / 256;
	int *in = new int[n], out[blocks];
	for (int i = 0; i < n; i++) in[i] = (int)(rnd() % 2000) - 1000;
	int *di = dev(in, n), *d_o = dev<int>(NULL, blocks);
	hipLaunchKernelGGL(k_reduce, dim3(blocks), dim3(256), 0, 0, di, d_o, n);
	back(out, d_o, blocks);
	int bad = 0;
	for (int b = 0; b < blocks && !bad; b++) {
		int want = 0;
		for (int i = b * 256; i < n && i < (b + 1) * 256; i++) want += in[i];
		if (out[b] != want) bad = fail("reduce", b, out[b], want);
	}
	hipFree(di); hipFree(d_o);
	delete[] in;
	return bad;
}

static int t_atomic(void)
{
	const int n = 20000;
	int *in = new int[n], hist[16] = {0}, want[16] = {0};
	unsigned total = 0, want_total = 0;
	for (int i = 0; i < n; i++) { in[i] = (int)(rnd() % 1000); want[in[i] & 15]++; want_total += (unsigned)in[i]; }
	int *di = dev(in, n), *dh = dev<int>(NULL, 16);
	unsigned *dt = dev<unsigned>(NULL, 1);
	hipLaunchKernelGGL(k_atomic, dim3((n + 255) / 256), dim3(256), 0, 0, di, dh, dt, n);
	back(hist, dh, 16);
	back(&total, dt, 1);
	int bad = total != want_total ? fail("atomic total", 0, total, want_total) : 0;
	for (int b = 0; b < 16 && !bad; b++)
		if (hist[b] != want[b]) bad = fail("atomic", b, hist[b], want[b]);
	hipFree(di); hipFree(dh); hipFree(dt);
	delete[] in;
	return bad;
}

static int t_shfl(void)
{
	const int blocks = 3, n = 64 * blocks;
	int in[n], out[n];
	for (int i = 0; i < n; i++) in[i] = (int)(rnd() % 100);
	int *di = dev(in, n), *d_o = dev<int>(NULL, n);
	hipLaunchKernelGGL(k_shfl, dim3(blocks), dim3(64), 0, 0, di, d_o);
	back(out, d_o, n);
	int bad = 0;
	for (int b = 0; b < blocks && !bad; b++) {
		int v[64];
		for (int t = 0; t < 64; t++) v[t] = in[b * 64 + t];
		for (int d = 32; d > 0; d >>= 1) {
			int nv[64];
			for (int t = 0; t < 64; t++) nv[t] = v[t] + (t + d < 64 ? v[t + d] : v[t]);
			for (int t = 0; t < 64; t++) v[t] = nv[t];
		}
		for (int t = 0; t < 64 && !bad; t++)
			if (out[b * 64 + t] != v[(t + 5) & 63]) bad = fail("shfl", b * 64 + t, out[b * 64 + t], v[(t + 5) & 63]);
	}
	hipFree(di); hipFree(d_o);
	return bad;
}

static int t_double(void)
{
	const int n = 3000;
	double *x = new double[n], *y = new double[n], *r = new double[n];
	for (int i = 0; i < n; i++) { x[i] = ((double)rnd() - 2147483648.0) / 65536.0; y[i] = (double)rnd() / 3.0; }
	double *dx = dev(x, n), *dy = dev(y, n);
	hipLaunchKernelGGL(k_double, dim3((n + 63) / 64), dim3(64), 0, 0, dx, dy, 1.25, n);
	back(r, dy, n);
	int bad = 0;
	for (int i = 0; i < n && !bad; i++) {
		double want = 1.25 * x[i] + sqrt(fabs(x[i])) - y[i] / (x[i] + 3.0) + sin(x[i]) * cos(x[i] * 1e3);
		// the device fuses a*x + sqrt into an fma: allow the last bits
		if (fabs(r[i] - want) > 1e-12 * (fabs(want) + 1.0)) bad = fail("double", i, r[i], want);
	}
	hipFree(dx); hipFree(dy);
	delete[] x; delete[] y; delete[] r;
	return bad;
}

static int t_math(void)
{
	const int n = 4099;
	float *x = new float[n], *y = new float[n];
	int *z = new int[n];
	for (int i = 0; i < n; i++) x[i] = ((float)(int)(rnd() % 200001) - 100000.0f) / 37.0f;
	x[0] = 0.0f; x[1] = -1.0f; x[2] = 1e30f; x[3] = -3.5f;
	float *dx = dev(x, n), *dy = dev<float>(NULL, n);
	int *dz = dev<int>(NULL, n);
	hipLaunchKernelGGL(k_math, dim3((n + 255) / 256), dim3(256), 0, 0, dx, dy, dz, n);
	back(y, dy, n);
	back(z, dz, n);
	int bad = 0;
	for (int i = 0; i < n && !bad; i++) {
		float v = x[i];
		float wy = v / (1.0f + fabsf(v)) + fminf(v, 2.0f) * fmaxf(v, -1.0f);
		int vi = (int)v;
		if (v >= 2147483647.0f) vi = 2147483647;
		int v3 = (v * 3.0f >= 2147483647.0f) ? 2147483647 : (int)(v * 3.0f);
		int wz = (int)((unsigned)(vi % 7 + (vi >> 2) - v3 / 5) + (unsigned)i % 11u);
		if (fabsf(y[i] - wy) > 1e-6f * (fabsf(wy) + 1.0f)) bad = fail("math y", i, y[i], wy);
		else if (z[i] != wz) bad = fail("math z", i, z[i], wz);
	}
	hipFree(dx); hipFree(dy); hipFree(dz);
	delete[] x; delete[] y; delete[] z;
	return bad;
}

static int t_dynshared(void)
{
	const int block = 320, blocks = 5, n = block * blocks;
	int *in = new int[n], *out = new int[n];
	for (int i = 0; i < n; i++) in[i] = (int)rnd();
	int *di = dev(in, n), *d_o = dev<int>(NULL, n);
	hipLaunchKernelGGL(k_dynshared, dim3(blocks), dim3(block), block * sizeof(int), 0, di, d_o);
	back(out, d_o, n);
	int bad = 0;
	for (int i = 0; i < n && !bad; i++) {
		int b = i / block, t = i % block, want = (int)((unsigned)in[b * block + block - 1 - t] * 2u);
		if (out[i] != want) bad = fail("dynshared", i, out[i], want);
	}
	hipFree(di); hipFree(d_o);
	delete[] in; delete[] out;
	return bad;
}

static int t_mm(void)
{
	const int n = 64;
	float *a = new float[n * n], *b = new float[n * n], *c = new float[n * n];
	for (int i = 0; i < n * n; i++) { a[i] = (float)(int)(rnd() % 17) - 8; b[i] = (float)(int)(rnd() % 13) - 6; }
	float *da = dev(a, n * n), *db = dev(b, n * n), *dc = dev<float>(NULL, n * n);
	hipLaunchKernelGGL(k_mm, dim3(n / 16, n / 16), dim3(16, 16), 0, 0, da, db, dc, n);
	back(c, dc, n * n);
	int bad = 0;
	for (int r = 0; r < n && !bad; r++)
		for (int col = 0; col < n && !bad; col++) {
			float want = 0;	/* small integers: exact in any order */
			for (int k = 0; k < n; k++) want += a[r * n + k] * b[k * n + col];
			if (c[r * n + col] != want) bad = fail("mm", r * n + col, c[r * n + col], want);
		}
	hipFree(da); hipFree(db); hipFree(dc);
	delete[] a; delete[] b; delete[] c;
	return bad;
}

static int t_hist(void)
{
	const int n = 50000;
	unsigned char *in = new unsigned char[n];
	unsigned h[256], want[256] = {0};
	for (int i = 0; i < n; i++) { in[i] = (unsigned char)(rnd() % 256); want[in[i]]++; }
	unsigned char *di = dev(in, n);
	unsigned *dh = dev<unsigned>(NULL, 256);
	hipLaunchKernelGGL(k_hist, dim3(8), dim3(256), 0, 0, di, dh, n);
	back(h, dh, 256);
	int bad = 0;
	for (int i = 0; i < 256 && !bad; i++)
		if (h[i] != want[i]) bad = fail("hist", i, h[i], want[i]);
	hipFree(di); hipFree(dh);
	delete[] in;
	return bad;
}

static int t_f4(void)
{
	const int n = 1000;
	float4 *a = new float4[n], *b = new float4[n];
	for (int i = 0; i < n; i++) a[i] = make_float4(i, i + 0.5f, -i, i * 2.0f);
	float4 *da = dev(a, n), *db = dev<float4>(NULL, n);
	hipLaunchKernelGGL(k_f4, dim3((n + 63) / 64), dim3(64), 0, 0, da, db, n);
	back(b, db, n);
	int bad = 0;
	for (int i = 0; i < n && !bad; i++)
		if (b[i].x != a[i].w || b[i].y != a[i].z * 2 || b[i].z != a[i].y || b[i].w != a[i].x)
			bad = fail("f4", i, b[i].x, a[i].w);
	hipFree(da); hipFree(db);
	delete[] a; delete[] b;
	return bad;
}

static int t_i64(void)
{
	const int n = 3000;
	long long *a = new long long[n];
	unsigned long long *b = new unsigned long long[n];
	for (int i = 0; i < n; i++) a[i] = (long long)(((unsigned long long)rnd() << 31) ^ rnd()) - (1LL << 40);
	long long *da = dev(a, n);
	unsigned long long *db = dev<unsigned long long>(NULL, n);
	hipLaunchKernelGGL(k_i64, dim3((n + 255) / 256), dim3(256), 0, 0, da, db, n);
	back(b, db, n);
	int bad = 0;
	for (int i = 0; i < n && !bad; i++) {
		unsigned long long want = (unsigned long long)a[i] / (unsigned long long)(i + 3) + a[i] % 7 +
					  (unsigned long long)((a[i] >> 5) * a[i]);
		if (b[i] != want) bad = fail("i64", i, (double)b[i], (double)want);
	}
	hipFree(da); hipFree(db);
	delete[] a; delete[] b;
	return bad;
}

static int t_fmath(void)
{
	const int n = 4000;
	float *a = new float[n], *b = new float[n];
	for (int i = 0; i < n; i++) a[i] = ((float)(int)(rnd() % 20001) - 10000.0f) / 97.0f;
	float *da = dev(a, n), *db = dev<float>(NULL, n);
	hipLaunchKernelGGL(k_fmath, dim3((n + 255) / 256), dim3(256), 0, 0, da, db, n);
	back(b, db, n);
	int bad = 0;
	for (int i = 0; i < n && !bad; i++) {
		double x = a[i];
		double want = sqrt(fabs(x)) + exp(x * 0.01) + log(fabs(x) + 1) + sin(x) * cos(x) +
			      pow(fabs(x), 0.3) + floor(x) + rint(x) + tanh(x);
		/* the device library is accurate to a few ulp of float */
		if (fabs(b[i] - want) > 1e-5 * (fabs(want) + 1.0)) bad = fail("fmath", i, b[i], want);
	}
	hipFree(da); hipFree(db);
	delete[] a; delete[] b;
	return bad;
}

static int t_scan(void)
{
	int d[512], want[512];
	for (int i = 0; i < 512; i++) d[i] = (int)(rnd() % 100) - 50;
	want[0] = d[0];
	for (int i = 1; i < 512; i++) want[i] = want[i - 1] + d[i];
	int *dd = dev(d, 512);
	hipLaunchKernelGGL(k_scan, dim3(1), dim3(512), 0, 0, dd);
	back(d, dd, 512);
	int bad = 0;
	for (int i = 0; i < 512 && !bad; i++)
		if (d[i] != want[i]) bad = fail("scan", i, d[i], want[i]);
	hipFree(dd);
	return bad;
}

static int t_transpose(void)
{
	const int w = 70, h = 45;
	float *in = new float[w * h], *out = new float[w * h];
	for (int i = 0; i < w * h; i++) in[i] = (float)i;
	float *di = dev(in, w * h), *d_o = dev<float>(NULL, w * h);
	hipLaunchKernelGGL(k_transpose, dim3((w + 31) / 32, (h + 31) / 32), dim3(32, 32), 0, 0, di, d_o, w, h);
	back(out, d_o, w * h);
	int bad = 0;
	for (int y = 0; y < h && !bad; y++)
		for (int x = 0; x < w && !bad; x++)
			if (out[x * h + y] != in[y * w + x]) bad = fail("transpose", x * h + y, out[x * h + y], in[y * w + x]);
	hipFree(di); hipFree(d_o);
	delete[] in; delete[] out;
	return bad;
}

static int t_warp(void)
{
	int a[64], b[64];
	for (int i = 0; i < 64; i++) a[i] = (int)(rnd() % 12);
	int *da = dev(a, 64), *db = dev<int>(NULL, 64);
	hipLaunchKernelGGL(k_warp, dim3(1), dim3(64), 0, 0, da, db);
	back(b, db, 64);
	int pop = 0, bad = 0;
	for (int i = 0; i < 64; i++) pop += a[i] > 5;
	for (int t = 0; t < 64 && !bad; t++) {
		int want = pop + 0 * 1000 + 1 * 10000 + a[t ^ 3] * 7 + a[t >= 1 ? t - 1 : t] * 3;
		if (b[t] != want) bad = fail("warp", t, b[t], want);
	}
	hipFree(da); hipFree(db);
	return bad;
}

static int t_half(void)
{
	const int n = 600;
	__half *a = new __half[n], *b = new __half[n];
	for (int i = 0; i < n; i++) a[i] = __float2half((float)(i - 300) / 8.0f);
	__half *da = dev(a, n), *db = dev<__half>(NULL, n);
	hipLaunchKernelGGL(k_half, dim3((n + 127) / 128), dim3(128), 0, 0, da, db, n);
	back(b, db, n);
	int bad = 0;
	for (int i = 0; i < n && !bad; i++) {
		/* multiples of 1/16 up to 57: exact in half precision */
		float want = (float)(i - 300) / 8.0f * 1.5f + 0.25f;
		if (__half2float(b[i]) != want) bad = fail("half", i, __half2float(b[i]), want);
	}
	hipFree(da); hipFree(db);
	delete[] a; delete[] b;
	return bad;
}

static int t_atomics(void)
{
	const int threads = 4 * 256;
	int a[8] = { -5, 5, 0, 0, -1, 0, 0, 1000 };
	unsigned u = 0;
	float f = 0;
	double d = 0;
	int *da = dev(a, 8);
	unsigned *du = dev(&u, 1);
	float *df = dev(&f, 1);
	double *dd = dev(&d, 1);
	hipLaunchKernelGGL(k_atomics, dim3(4), dim3(256), 0, 0, da, du, df, dd);
	back(a, da, 8);
	back(&u, du, 1);
	back(&f, df, 1);
	back(&d, dd, 1);
	int x = 0, bad = 0;
	for (int t = 0; t < threads; t++) x ^= t;
	/* atomicInc wraps to 0 past 100: 1024 increments from 0 end at 1024 % 101 */
	if (a[0] != threads - 1) bad = fail("atomicMax", 0, a[0], threads - 1);
	else if (a[1] != -(threads - 1)) bad = fail("atomicMin", 1, a[1], -(threads - 1));
	else if (a[3] != 5) bad = fail("atomicCAS", 3, a[3], 5);
	else if (u != (unsigned)threads % 101) bad = fail("atomicInc", 0, u, threads % 101);
	else if (a[4] != (int)0x80000000) bad = fail("atomicAnd", 4, a[4], (int)0x80000000);
	else if (a[5] != 0x7fffffff) bad = fail("atomicOr", 5, a[5], 0x7fffffff);
	else if (a[6] != x) bad = fail("atomicXor", 6, a[6], x);
	else if (a[7] != 1000 - 2 * threads) bad = fail("atomicSub", 7, a[7], 1000 - 2 * threads);
	else if (f != 0.5f * threads) bad = fail("atomicAdd float", 0, f, 0.5f * threads);
	else if (d != 0.25 * threads) bad = fail("atomicAdd double", 0, d, 0.25 * threads);
	hipFree(da); hipFree(du); hipFree(df); hipFree(dd);
	return bad;
}

static int t_private(void)
{
	const int n = 512;
	int idx[n], out[n];
	for (int i = 0; i < n; i++) idx[i] = (int)(rnd() % 1000);
	int *di = dev(idx, n), *d_o = dev<int>(NULL, n);
	hipLaunchKernelGGL(k_private, dim3(n / 128), dim3(128), 0, 0, di, d_o);
	back(out, d_o, n);
	int bad = 0;
	for (int t = 0; t < n && !bad; t++) {
		int want = (idx[t] % 40) * t + ((idx[t] + 7) % 40) * t;
		if (out[t] != want) bad = fail("private", t, out[t], want);
	}
	hipFree(di); hipFree(d_o);
	return bad;
}

static const struct { const char *name; int (*fn)(void); } tests[] = {
	{"vadd", t_vadd}, {"saxpy", t_saxpy}, {"stride", t_stride}, {"2d", t_2d},
	{"reduce", t_reduce}, {"atomic", t_atomic}, {"shfl", t_shfl}, {"double", t_double},
	{"math", t_math}, {"dynshared", t_dynshared}, {"mm", t_mm}, {"hist", t_hist},
	{"f4", t_f4}, {"i64", t_i64}, {"fmath", t_fmath}, {"scan", t_scan},
	{"transpose", t_transpose}, {"warp", t_warp}, {"half", t_half}, {"atomics", t_atomics}, {"private", t_private},
};

int main(int argc, char **argv)
{
	int bad = 0, ran = 0;
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
