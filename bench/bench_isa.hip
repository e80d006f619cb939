// bench_isa: the simulator's kernel interpreter against the same loops in C.
// Ten kernels (saxpy: streaming global memory; reduce: LDS and barriers;
// matmul: a tiled 256x256 f32 product in LDS; histogram: global atomics;
// alu: arithmetic with no memory; and four shapes of hip-tests' slow cases:
// tail64, each work-item from its index to the end with a 64-bit index into
// managed memory; reverse, a 64-bit index counting down, device memory to
// pinned host memory, repeated; lane1, one work-item's loop of powf and
// sqrt; scale, Unit_hipGraph_SimpleGraphWithKernel's float times a double
// constant, which hipcc computes in double; stack, Unit_hipMemFaultStackAllocation's
// private array and a loop whose every lane loads and stores the same word) run on
// the simulator, each alternated with
// its loop compiled for the host, in one run; CPU time of each, their ratio's
// median and spread, and the interpreter's counters (hipsvmSimIsaStats).
//   LD_LIBRARY_PATH=build/sim build/sim/bench_isa [repeats]
//   LD_LIBRARY_PATH=build/sim build/sim/bench_isa --only NAME [launches]
// The second form runs one kernel's launches only (no C loop), for
// callgrind and strace: bench/bench_isa.sh prints the exact figures.
#include <hip/hip_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct isa_stats {
	unsigned long long dispatches, fallbacks, wave_insns, waves, ns, page_walks;
	unsigned long long mem_insns, vm_calls;
};
typedef int (*stats_fn)(struct isa_stats *);

#define N (1 << 20)
#define MM 256		// matmul size
#define TILE 16
#define BINS 1024
#define TAIL 4096	// tail64's elements: TAIL * TAIL / 128 wave-iterations
#define REV (1 << 18)	// reverse's elements
#define REV_COUNT 4	// and its repeats
#define LANE1 4096	// lane1's iterations
#define STACK_N 100000	// stack's loop, as in hipMemFaultStackAllocation.cc (hipcc unrolls it by 10)
#define GRAN (2 << 20)	// tail64's and reverse's buffers: 2 MiB each, so each starts on a 2 MiB granule

__global__ void saxpy(float a, const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

__global__ void reduce(const int *in, int *out, int n)
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

__global__ void matmul(const float *a, const float *b, float *c, int n)
{
	__shared__ float ta[TILE][TILE], tb[TILE][TILE];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
	float acc = 0.0f;

	for (int k0 = 0; k0 < n; k0 += TILE) {
		ta[ty][tx] = a[row * n + k0 + tx];
		tb[ty][tx] = b[(k0 + ty) * n + col];
		__syncthreads();
		for (int k = 0; k < TILE; k++)
			acc += ta[ty][k] * tb[k][tx];
		__syncthreads();
	}
	c[row * n + col] = acc;
}

__global__ void histogram(const unsigned *in, unsigned *bins, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(&bins[in[i] & (BINS - 1)], 1u);
}

__global__ void alu(float *out, int iters)
{
	float a = threadIdx.x, b = 1.0f;
	for (int k = 0; k < iters; k++) {
		a = a * 0.999f + b;
		b = b * 1.001f - 0.5f;
	}
	out[blockIdx.x * blockDim.x + threadIdx.x] = a + b;
}

// hip-tests' KrnlWth2MemTypes (unit/memory/hipMallocMngdMultiThread.cc)
__global__ void tail64(int *out, const int *in, size_t n)
{
	size_t index = blockIdx.x * blockDim.x + threadIdx.x;
	for (size_t i = index; i < n; i++)
		out[i] = in[i] + 10;
}

// hip-tests' HipTest::addCountReverse (Unit_hipEvent)
__global__ void reverse(const int *a, int *c, long n, int count)
{
	size_t offset = blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = blockDim.x * gridDim.x;
	for (int k = 0; k < count; k++)
		for (long i = n - stride + offset; i >= 0; i -= stride)
			c[i] = a[i] + count;
}

// Unit_hipMultiStream_sameDevice's kernel: one lane's loop
__global__ void lane1(float *x, int n)
{
	if (threadIdx.x < 1)
		for (int i = 0; i < n; i++)
			x[i] = sqrtf(powf(3.14159f, (float)i));
}

// hip-tests' simpleKernel (hipSimpleGraphWithKernel.cc): 5.34 is a double
__global__ void scale(float *out, const float *in)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		out[i] = 5.34 * in[i];
}

// hip-tests' MyKernelConstSize (hipMemFaultStackAllocation.cc): every lane
// walks the whole array, so each load and store has one address for 64 lanes
__global__ void stack(int *c, const int *a)
{
	int a1[1024];

	for (int i = 0; i < 1024; i++)
		a1[i] = i;
	for (int i = 0; i < STACK_N; i++)
		c[i] = a[i] + a1[i % 1024];
}

// ---- the same loops on the host (the hipcc host compiler, -O3) ----

static void c_saxpy(float a, const float *x, float *y, int n)
{
	for (int i = 0; i < n; i++)
		y[i] = a * x[i] + y[i];
}

static void c_reduce(const int *in, int *out, int n)
{
	for (int g = 0; g < n / 256; g++) {
		int s = 0;
		for (int t = 0; t < 256; t++)
			s += in[g * 256 + t];
		out[g] = s;
	}
}

static void c_matmul(const float *a, const float *b, float *c, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			float acc = 0.0f;
			for (int k = 0; k < n; k++)
				acc += a[i * n + k] * b[k * n + j];
			c[i * n + j] = acc;
		}
}

static void c_histogram(const unsigned *in, unsigned *bins, int n)
{
	for (int i = 0; i < n; i++)
		__atomic_fetch_add(&bins[in[i] & (BINS - 1)], 1u, __ATOMIC_RELAXED);
}

static void c_alu(float *out, int iters)
{
	for (int t = 0; t < 64 * 256; t++) {
		float a = t % 256, b = 1.0f;
		for (int k = 0; k < iters; k++) {
			a = a * 0.999f + b;
			b = b * 1.001f - 0.5f;
		}
		out[t] = a + b;
	}
}

static void c_tail64(int *out, const int *in, size_t n)
{
	for (size_t t = 0; t < n; t++)
		for (size_t i = t; i < n; i++)
			out[i] = in[i] + 10;
}

static void c_reverse(const int *a, int *c, long n, int count)
{
	for (int k = 0; k < count; k++)
		for (long i = n - 1; i >= 0; i--)
			c[i] = a[i] + count;
}

static void c_lane1(float *x, int n)
{
	for (int i = 0; i < n; i++)
		x[i] = sqrtf(powf(3.14159f, (float)i));
}

static void c_scale(float *out, const float *in)
{
	for (int i = 0; i < N; i++)
		out[i] = 5.34 * in[i];
}

static void c_stack(int *c, const int *a)
{
	for (int t = 0; t < 64; t++)	// one wave's lanes, each the whole loop
		for (int i = 0; i < STACK_N; i++)
			c[i] = a[i] + i % 1024;
}

#define CHECK(c) do { if ((c) != hipSuccess) { printf("%s failed\n", #c); exit(1); } } while (0)

static stats_fn get_stats;
static float *x, *y, *ma, *mb, *mc, *hx, *hy, *hma, *hmb, *hmc;
static int *in, *out, *hin, *hout;
static unsigned *hist_in, *bins, *hhist_in, *hbins;
static int *tail_in, *tail_out, *rev_a, *rev_c, *htail_in, *htail_out, *hrev_a, *hrev_c;
static float *lane_x, *hlane_x;
static int *stack_a, *stack_c, *hstack_a, *hstack_c;
static volatile float sink;

static void g_saxpy() { hipLaunchKernelGGL(saxpy, dim3(N / 256), dim3(256), 0, 0, 2.0f, x, y, N); }
static void g_reduce() { hipLaunchKernelGGL(reduce, dim3(N / 256), dim3(256), 0, 0, in, out, N); }
static void g_matmul() { hipLaunchKernelGGL(matmul, dim3(MM / TILE, MM / TILE), dim3(TILE, TILE), 0, 0, ma, mb, mc, MM); }
static void g_histogram() { hipLaunchKernelGGL(histogram, dim3(N / 256), dim3(256), 0, 0, hist_in, bins, N); }
static void g_alu() { hipLaunchKernelGGL(alu, dim3(64), dim3(256), 0, 0, y, 1000); }
static void g_tail64() { hipLaunchKernelGGL(tail64, dim3(TAIL / 64), dim3(64), 0, 0, tail_out, tail_in, (size_t)TAIL); }
static void g_reverse() { hipLaunchKernelGGL(reverse, dim3(REV / 256), dim3(256), 0, 0, rev_a, rev_c, (long)REV, REV_COUNT); }
static void g_scale() { hipLaunchKernelGGL(scale, dim3(N / 512), dim3(512), 0, 0, y, x); }
static void g_stack() { hipLaunchKernelGGL(stack, dim3(1), dim3(64), 0, 0, stack_c, stack_a); }
static void g_lane1() { hipLaunchKernelGGL(lane1, dim3(1), dim3(1), 0, 0, lane_x, LANE1); }
static void h_saxpy() { c_saxpy(2.0f, hx, hy, N); sink = hy[N / 2]; }
static void h_reduce() { c_reduce(hin, hout, N); sink = (float)hout[7]; }
static void h_matmul() { c_matmul(hma, hmb, hmc, MM); sink = hmc[77]; }
static void h_histogram() { c_histogram(hhist_in, hbins, N); sink = (float)hbins[3]; }
static void h_alu() { c_alu(hy, 1000); sink = hy[5]; }
static void h_tail64() { c_tail64(htail_out, htail_in, TAIL); sink = (float)htail_out[9]; }
static void h_reverse() { c_reverse(hrev_a, hrev_c, REV, REV_COUNT); sink = (float)hrev_c[9]; }
static void h_scale() { c_scale(hy, hx); sink = hy[N / 3]; }
static void h_stack() { c_stack(hstack_c, hstack_a); sink = (float)hstack_c[9]; }
static void h_lane1() { c_lane1(hlane_x, LANE1); sink = hlane_x[9]; }

static const struct {
	const char *name;
	void (*gpu)();
	void (*cpu)();
} rows[] = {
	{ "saxpy", g_saxpy, h_saxpy },
	{ "reduce", g_reduce, h_reduce },
	{ "matmul", g_matmul, h_matmul },
	{ "histogram", g_histogram, h_histogram },
	{ "alu", g_alu, h_alu },
	{ "tail64", g_tail64, h_tail64 },
	{ "reverse", g_reverse, h_reverse },
	{ "lane1", g_lane1, h_lane1 },
	{ "scale", g_scale, h_scale },
	{ "stack", g_stack, h_stack },
};

static double cpu_now()
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void setup()
{
	CHECK(hipMalloc(&x, N * sizeof(float)));
	CHECK(hipMalloc(&y, N * sizeof(float)));
	CHECK(hipMalloc(&in, N * sizeof(int)));
	CHECK(hipMalloc(&out, N * sizeof(int)));
	CHECK(hipMalloc(&ma, MM * MM * sizeof(float)));
	CHECK(hipMalloc(&mb, MM * MM * sizeof(float)));
	CHECK(hipMalloc(&mc, MM * MM * sizeof(float)));
	CHECK(hipMalloc(&hist_in, N * sizeof(unsigned)));
	CHECK(hipMalloc(&bins, BINS * sizeof(unsigned)));
	hx = (float *)calloc(N, sizeof(float));
	hy = (float *)calloc(N, sizeof(float));
	hin = (int *)calloc(N, sizeof(int));
	hout = (int *)calloc(N, sizeof(int));
	hma = (float *)calloc(MM * MM, sizeof(float));
	hmb = (float *)calloc(MM * MM, sizeof(float));
	hmc = (float *)calloc(MM * MM, sizeof(float));
	hhist_in = (unsigned *)calloc(N, sizeof(unsigned));
	hbins = (unsigned *)calloc(BINS, sizeof(unsigned));
	for (int i = 0; i < N; i++) {
		hx[i] = (float)(i % 97);
		hin[i] = i % 13;
		hhist_in[i] = (unsigned)i * 2654435761u >> 8;
	}
	for (int i = 0; i < MM * MM; i++) {
		hma[i] = (float)(i % 7) * 0.5f;
		hmb[i] = (float)(i % 5) * 0.25f;
	}
	CHECK(hipMemcpy(x, hx, N * sizeof(float), hipMemcpyHostToDevice));
	CHECK(hipMemset(y, 0, N * sizeof(float)));
	CHECK(hipMemcpy(in, hin, N * sizeof(int), hipMemcpyHostToDevice));
	CHECK(hipMemcpy(ma, hma, MM * MM * sizeof(float), hipMemcpyHostToDevice));
	CHECK(hipMemcpy(mb, hmb, MM * MM * sizeof(float), hipMemcpyHostToDevice));
	CHECK(hipMemcpy(hist_in, hhist_in, N * sizeof(unsigned), hipMemcpyHostToDevice));
	CHECK(hipMemset(bins, 0, BINS * sizeof(unsigned)));
	// the memory kinds of the hip-tests cases: managed, pinned host
	CHECK(hipMalloc(&tail_in, GRAN));
	CHECK(hipMallocManaged(&tail_out, GRAN));
	CHECK(hipMalloc(&rev_a, GRAN));
	CHECK(hipHostMalloc(&rev_c, GRAN));
	CHECK(hipMalloc(&lane_x, LANE1 * sizeof(float)));
	CHECK(hipMemset(tail_in, 0, GRAN));
	CHECK(hipMemset(rev_a, 0, GRAN));
	htail_in = (int *)calloc(TAIL, sizeof(int));
	htail_out = (int *)calloc(TAIL, sizeof(int));
	hrev_a = (int *)calloc(REV, sizeof(int));
	hrev_c = (int *)calloc(REV, sizeof(int));
	hlane_x = (float *)calloc(LANE1, sizeof(float));
	CHECK(hipMallocManaged(&stack_a, STACK_N * sizeof(int)));
	CHECK(hipMallocManaged(&stack_c, STACK_N * sizeof(int)));
	hstack_a = (int *)calloc(STACK_N, sizeof(int));
	hstack_c = (int *)calloc(STACK_N, sizeof(int));
	for (int i = 0; i < STACK_N; i++)
		stack_a[i] = hstack_a[i] = i % 1024;
}

int main(int argc, char **argv)
{
	int reps = 3;
	const char *only = NULL;

	if (argc > 2 && !strcmp(argv[1], "--only")) {
		only = argv[2];
		reps = argc > 3 ? atoi(argv[3]) : 1;
	} else if (argc > 1) {
		reps = atoi(argv[1]);
	}
	if (reps < 0 || reps > 1000)
		reps = 3;
	get_stats = (stats_fn)dlsym(RTLD_DEFAULT, "hipsvmSimIsaStats");
	if (!get_stats) {
		printf("not on the simulator (no hipsvmSimIsaStats)\n");
		return 1;
	}
	setup();
	for (unsigned r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct isa_stats a, b;
		double gpu[1000], cpu[1000], ratio[1000];

		if (only && strcmp(only, rows[r].name))
			continue;
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		get_stats(&a);
		for (int k = 0; k < reps; k++) {
			double t0 = cpu_now();

			rows[r].gpu();
			CHECK(hipDeviceSynchronize());
			gpu[k] = cpu_now() - t0;
			if (only)
				continue;
			t0 = cpu_now();
			rows[r].cpu();
			cpu[k] = cpu_now() - t0;
			ratio[k] = gpu[k] / (cpu[k] > 1e-9 ? cpu[k] : 1e-9);
		}
		get_stats(&b);
		double insns = (double)(b.wave_insns - a.wave_insns);
		printf("%-9s %10.0f wave-insns %9llu mem-insns %7llu vm-calls %4llu fell back %7llu page-walks",
		       rows[r].name, insns, b.mem_insns - a.mem_insns, b.vm_calls - a.vm_calls,
		       b.fallbacks - a.fallbacks, b.page_walks - a.page_walks);
		if (!only && reps > 0) {
			qsort(gpu, reps, sizeof(double), cmp_d);
			qsort(cpu, reps, sizeof(double), cmp_d);
			qsort(ratio, reps, sizeof(double), cmp_d);
			printf("  sim %8.4f s  C %8.5f s  ratio median %7.1fx (%.1f-%.1f, %d pairs)  %6.2f M wave-insns/CPU s",
			       gpu[reps / 2], cpu[reps / 2], ratio[reps / 2], ratio[0], ratio[reps - 1], reps,
			       insns / reps / gpu[reps / 2] / 1e6);
		}
		printf("\n");
	}
	return 0;
}
