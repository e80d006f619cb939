// SPDX-License-Identifier: MIT
// isa_resident.hip - workgroups of one launch run at once, as on a GPU
// (the simulator keeps several resident on each of its threads:
// sim/isa/dispatch.c), and the two clocks tick at the rates the device
// reports. Exit 0 right, 2 wrong, 1 a HIP error.
//
//   delay: GROUPS groups each spin DELAY_MS of clock64() (ticks of
//     hipDeviceAttributeClockRate kHz, as hip-tests' delay kernels count
//     them) and record clock64() and wall_clock64() at their start and end.
//     Every group's start must come before every group's end (the intervals
//     overlap: one group after another per thread cannot give that, however
//     fast or slow the machine is); each group waited its DELAY_MS; its
//     clock64 and wall_clock64 (100 MHz) intervals agree within 2%; and the
//     launch took at least DELAY_MS by the host's events.
//   private: two-wave groups whose lanes write a private array (scratch)
//     and LDS, spin PRIVATE_MS on the clock between barriers, and read both
//     back: no word may be another group's, and the groups' spans overlap.
//   flag: every group but the last waits, with s_sleep, for a flag the last
//     group sets. A waiter gives up after GIVE_UP_MS of wall_clock64, so
//     that the program ends (and says so) where the waiters block the
//     group they wait for.
#include <hip/hip_runtime.h>
#include <stdio.h>

#define GROUPS 32
#define DELAY_MS 100
#define FLAG_GROUPS 16
#define GIVE_UP_MS 2000
#define PRIVATE_GROUPS 16
#define PRIVATE_BLOCK 128
#define PRIVATE_MS 100	// as long as the delay: admitting 16 two-wave groups takes ms under ASan
#define REALTIME_KHZ 100000ll	// s_memrealtime: MI200's 100 MHz reference clock

// wall_clock64() as the device header has it (s_memrealtime), which this
// hipcc declares only for the device side
__device__ static inline long long realtime64()
{
	return (long long)__builtin_amdgcn_s_memrealtime();
}

struct stamp {
	long long c0, w0, c1, w1;
};

__global__ void k_delay(stamp *out, long long ticks)
{
	long long c0 = clock64(), w0 = realtime64(), c;

	do
		c = clock64();
	while (c - c0 < ticks);
	if (threadIdx.x == 0) {
		long long w1 = realtime64();

		out[blockIdx.x] = stamp{ c0, w0, c, w1 };
	}
}

// Two waves a group, each lane with a private array (in scratch) and the
// group's LDS, both written before a spin on the clock and read back after,
// across barriers: resident groups must not share either.
__global__ void k_private(int *bad, long long *spans, long long ticks)
{
	__shared__ int lds[PRIVATE_BLOCK];
	volatile int priv[16];
	int id = blockIdx.x * 1000 + threadIdx.x;

	for (int i = 0; i < 16; i++)
		priv[i] = id + i;
	lds[threadIdx.x] = id;
	__syncthreads();
	long long c0 = clock64(), c;

	do
		c = clock64();
	while (c - c0 < ticks);
	__syncthreads();
	for (int i = 0; i < 16; i++)
		if (priv[i] != id + i)
			atomicAdd(bad, 1);
	if (lds[(threadIdx.x + 64) % PRIVATE_BLOCK] != blockIdx.x * 1000 + (threadIdx.x + 64) % PRIVATE_BLOCK)
		atomicAdd(bad, 1);
	if (threadIdx.x == 0) {
		spans[2 * blockIdx.x] = c0;
		spans[2 * blockIdx.x + 1] = c;
	}
}

__global__ void k_flag(int *flag, int *after, int *gave_up)
{
	if (blockIdx.x == gridDim.x - 1) {
		if (threadIdx.x == 0)
			__hip_atomic_store(flag, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
		return;
	}
	long long start = realtime64();

	while (!__hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT)) {
		if (realtime64() - start > GIVE_UP_MS * REALTIME_KHZ) {
			if (threadIdx.x == 0)
				atomicAdd(gave_up, 1);
			return;
		}
		__builtin_amdgcn_s_sleep(2);
	}
	if (threadIdx.x == 0)
		atomicAdd(after, 1);
}

#define CHECK(x)                                                                   \
	do {                                                                       \
		hipError_t e_ = (x);                                               \
		if (e_ != hipSuccess) {                                            \
			printf("%s: %s\n", #x, hipGetErrorName(e_));               \
			return 1;                                                  \
		}                                                                  \
	} while (0)

static int bad;

static void expect(bool ok, const char *what)
{
	if (!ok) {
		printf("wrong: %s\n", what);
		bad++;
	}
}

int main()
{
	stamp *d_st, st[GROUPS];
	int khz, *d_flag, counts[3];
	hipEvent_t e0, e1;
	float ms = 0;

	CHECK(hipDeviceGetAttribute(&khz, hipDeviceAttributeClockRate, 0));
	CHECK(hipMalloc(&d_st, sizeof(st)));
	CHECK(hipMemset(d_st, 0, sizeof(st)));
	CHECK(hipEventCreate(&e0));
	CHECK(hipEventCreate(&e1));
	CHECK(hipEventRecord(e0, 0));
	hipLaunchKernelGGL(k_delay, dim3(GROUPS), dim3(64), 0, 0, d_st, (long long)khz * DELAY_MS);
	CHECK(hipGetLastError());
	CHECK(hipEventRecord(e1, 0));
	CHECK(hipEventSynchronize(e1));
	CHECK(hipEventElapsedTime(&ms, e0, e1));
	CHECK(hipMemcpy(st, d_st, sizeof(st), hipMemcpyDeviceToHost));
	long long last_start = st[0].c0, first_end = st[0].c1;
	bool waited = true, rates = true;

	for (int i = 0; i < GROUPS; i++) {
		double dc = (double)(st[i].c1 - st[i].c0) / khz;
		double dw = (double)(st[i].w1 - st[i].w0) / REALTIME_KHZ;

		if (st[i].c0 > last_start)
			last_start = st[i].c0;
		if (st[i].c1 < first_end)
			first_end = st[i].c1;
		if (dc < DELAY_MS)
			waited = false;
		if (dw < dc * 0.98 || dw > dc * 1.02) {
			printf("group %d: %.3f ms by clock64, %.3f ms by wall_clock64\n", i, dc, dw);
			rates = false;
		}
	}
	printf("delay: %d groups of %d ms: latest start %+.3f ms, earliest end %+.3f ms "
	       "(from the first start), %.1f ms by the events (clockRate %d kHz)\n",
	       GROUPS, DELAY_MS, (double)(last_start - st[0].c0) / khz,
	       (double)(first_end - st[0].c0) / khz, ms, khz);
	expect(last_start < first_end, "every group starts before any ends (run at once)");
	expect(waited, "each group waited DELAY_MS of clock64 ticks");
	expect(rates, "clock64 at clockRate and wall_clock64 at 100 MHz agree");
	expect(ms >= DELAY_MS * 0.99f, "the launch took at least DELAY_MS by the events");

	{
		long long *d_spans, spans[2 * PRIVATE_GROUPS], last = 0, first = -1;
		int *d_bad, nbad = -1;

		CHECK(hipMalloc(&d_spans, sizeof(spans)));
		CHECK(hipMalloc(&d_bad, sizeof(int)));
		CHECK(hipMemset(d_bad, 0, sizeof(int)));
		hipLaunchKernelGGL(k_private, dim3(PRIVATE_GROUPS), dim3(PRIVATE_BLOCK), 0, 0, d_bad,
				   d_spans, (long long)khz * PRIVATE_MS);
		CHECK(hipGetLastError());
		CHECK(hipMemcpy(spans, d_spans, sizeof(spans), hipMemcpyDeviceToHost));
		CHECK(hipMemcpy(&nbad, d_bad, sizeof(int), hipMemcpyDeviceToHost));
		for (int i = 0; i < PRIVATE_GROUPS; i++) {
			if (spans[2 * i] > last)
				last = spans[2 * i];
			if (first < 0 || spans[2 * i + 1] < first)
				first = spans[2 * i + 1];
		}
		printf("private: %d wrong private or LDS words in %d groups of 2 waves, "
		       "spans %s\n", nbad, PRIVATE_GROUPS, last < first ? "overlap" : "apart");
		expect(nbad == 0, "resident groups keep their own scratch and LDS across barriers");
		expect(last < first, "the two-wave groups were resident together");
		CHECK(hipFree(d_spans));
		CHECK(hipFree(d_bad));
	}

	CHECK(hipMalloc(&d_flag, sizeof(counts)));
	CHECK(hipMemset(d_flag, 0, sizeof(counts)));
	hipLaunchKernelGGL(k_flag, dim3(FLAG_GROUPS), dim3(64), 0, 0, d_flag, d_flag + 1, d_flag + 2);
	CHECK(hipGetLastError());
	CHECK(hipMemcpy(counts, d_flag, sizeof(counts), hipMemcpyDeviceToHost));
	printf("flag: %d of %d waiters saw the flag, %d gave up\n", counts[1], FLAG_GROUPS - 1,
	       counts[2]);
	expect(counts[0] == 1 && counts[1] == FLAG_GROUPS - 1 && counts[2] == 0,
	       "every waiter saw the flag a later group set");
	CHECK(hipFree(d_st));
	CHECK(hipFree(d_flag));
	return bad ? 2 : 0;
}
