// isa_faults: the simulator's interpreter raises the faults of the addresses a
// kernel really touches. Checks (exit 0 when all hold, 2 otherwise):
//   precise   a kernel touching one page in four of a managed buffer maps
//             exactly those pages (the buffer-touch model would map them all)
//   unmapped  a kernel reading memory the program has munmapped ends with
//             hipErrorIllegalAddress
//   malloc    a kernel reading plain malloc memory (not GPU-accessible) too
//   atomic    an atomic on a page the GPU has mapped but the program has
//             munmapped (without the shim the GPU keeps its mapping): the
//             host atomic is guarded, the kernel ends with hipErrorIllegalAddress
//   rows      loads and stores of a wave in four rows of 16 consecutive lanes
//             (a tile's rows: the guard's one-copy-a-row path) a page or more
//             apart, in order, reversed and on one address: the values as
//             lane by lane (a later lane's store wins), exactly the rows'
//             pages mapped, a row on a munmapped page hipErrorIllegalAddress
//   straddle  a whole wave's 64 consecutive dwords across a page line (the
//             one-run path): loads and stores map exactly the two pages and
//             move the right values; with the second page munmapped the load
//             and the store end with hipErrorIllegalAddress and the store
//             writes nothing on the first page
//   uniform   every lane of a wave walks the same words (the loop of
//             hip-tests' hipMemFaultStackAllocation: one address a wave, the
//             one-lane path), through a scalar base and through 64-bit lane
//             addresses, dwords and dwordx4, across a page line: the values
//             as lane by lane (the last lane's store wins), exactly the pages
//             walked mapped, and with the page after the line munmapped
//             hipErrorIllegalAddress, every word before the line stored
//   race      a host thread munmaps pieces of a managed range while kernels
//             load, store and add atomically on it: each ends with success or
//             hipErrorIllegalAddress, and the process survives
//   handler   the program puts its own SIGSEGV handler in after the
//             interpreter's guard: a load from a page the GPU has mapped but
//             the program has munmapped still ends with hipErrorIllegalAddress
//             (the copies take process_vm_readv; with the shim the GPU has
//             lost the page first), and the program's handler is not called
// Run on the simulator (LD_LIBRARY_PATH=build/sim), with or without the shim.
#include <hip/hip_runtime.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "hipsvm_sim.h"

#define CHECK(call)                                                          \
	do {                                                                 \
		hipError_t e_ = (call);                                      \
		if (e_ != hipSuccess) {                                      \
			printf("%s=%s\n", #call, hipGetErrorName(e_));       \
			exit(1);                                             \
		}                                                            \
	} while (0)

__global__ void every_nth_page(int *p, int pages, int nth)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < pages && i % nth == 0)
		p[(size_t)i * 1024] += 1;
}

__global__ void read_one(const int *p, int *out)
{
	out[threadIdx.x] = p[threadIdx.x];
}

__global__ void store_one(int *p)
{
	p[threadIdx.x] = 1;
}

__global__ void churn(int *p, size_t n, unsigned *sum, int rounds)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (int r = 0; r < rounds; r++)
		for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
			p[i] += 1;
			if ((i & 1023) == 0)
				atomicAdd(sum, (unsigned)p[i]);
		}
}

// lane l: row l / 16 at p + (l / 16) * stride, column l % 16
__global__ void rows_copy(const int *src, int *dst, long stride)
{
	int l = threadIdx.x;
	long at = (long)(l / 16) * stride + l % 16;
	dst[at] = src[at] + l;
}

// every lane the same words; a lane's own value in the store, so the last wins
__global__ void walk_same(const int *src, int *dst, int n)
{
	for (int i = 0; i < n; i++)
		dst[i] = src[i] + (int)threadIdx.x;
}

// the same through 64-bit lane addresses: the compiler cannot tell that
// threadIdx.x / 64 is 0 for the whole wave, so it keeps them in VGPRs
__global__ void walk_same_lanes(const int *src, int *dst, int n)
{
	const int *s = src + threadIdx.x / 64;
	int *d = dst + threadIdx.x / 64;

	for (int i = 0; i < n; i++)
		d[i] = s[i] + (int)threadIdx.x;
}

__global__ void walk_same4(const int4 *src, int4 *dst, int n)
{
	for (int i = 0; i < n; i++) {
		int4 v = src[i];

		v.w += (int)threadIdx.x;
		dst[i] = v;
	}
}

typedef int (*stats_fn)(int, struct hipsvm_sim_stats *);
static stats_fn get_stats;
static int bad;

static void expect(bool ok, const char *what)
{
	printf("%s %s\n", ok ? "ok" : "FAIL", what);
	if (!ok)
		bad = 1;
}

static void t_precise(void)
{
	const int pages = 64;
	struct hipsvm_sim_stats a, b;
	int *p;

	CHECK(hipSetDevice(1));
	CHECK(hipMallocManaged((void **)&p, pages * 4096, hipMemAttachGlobal));
	get_stats(1, &a);
	hipLaunchKernelGGL(every_nth_page, dim3(1), dim3(64), 0, 0, p, pages, 4);
	CHECK(hipDeviceSynchronize());
	get_stats(1, &b);
	printf("# faults mapped on GPU 1: %llu\n", (unsigned long long)(b.faults_mapped - a.faults_mapped));
	expect(b.faults_mapped - a.faults_mapped == pages / 4, "precise: one page in four mapped");
	expect(p[0] == 1 && p[1024] == 0 && p[4096] == 1, "precise: values");
	CHECK(hipFree(p));
	CHECK(hipSetDevice(0));
}

static void t_unmapped(void)
{
	int *p, *out;

	CHECK(hipSetDevice(2));
	CHECK(hipMallocManaged((void **)&p, 8 * 4096, hipMemAttachGlobal));
	CHECK(hipMalloc((void **)&out, 4096));
	// the last page goes away behind the runtime's back
	if (munmap((char *)p + 7 * 4096, 4096) != 0)
		exit(1);
	hipLaunchKernelGGL(read_one, dim3(1), dim3(64), 0, 0, p + 7 * 1024, out);
	hipError_t e = hipDeviceSynchronize();
	printf("# unmapped: %s\n", hipGetErrorName(e));
	expect(e == hipErrorIllegalAddress, "unmapped: hipErrorIllegalAddress");
	(void)hipGetLastError();
	hipLaunchKernelGGL(read_one, dim3(1), dim3(64), 0, 0, p, out);
	expect(hipDeviceSynchronize() == hipSuccess, "unmapped: the next kernel runs");
	CHECK(hipFree(out));
	CHECK(hipSetDevice(0));
	// p is not freed: its last page may hold another mapping by now
}

/* A kernel's fault is served only where the page's protection allows the
 * access (the kernel's svm_fault_allowed): a PROT_NONE page, or a store to
 * a read-only one, is a real fault, counted as such and mapped on no GPU. */
static void t_protected(void)
{
	struct hipsvm_sim_stats a, b;
	struct utsname u;
	int maj = 0, min = 0, *p, *out;
	hipError_t e;

	if (uname(&u) == 0)
		sscanf(u.release, "%d.%d", &maj, &min);
	if (maj < 6 || (maj == 6 && min < 11)) {
		printf("ok protected: skipped, kernel %s has no PROCMAP_QUERY\n", u.release);
		return;
	}
	CHECK(hipSetDevice(2));
	CHECK(hipMallocManaged((void **)&p, 3 * 4096, hipMemAttachGlobal));
	CHECK(hipMalloc((void **)&out, 4096));
	p[1024] = 7;
	if (mprotect(p, 4096, PROT_NONE) || mprotect(p + 1024, 4096, PROT_READ))
		exit(1);
	get_stats(2, &a);
	hipLaunchKernelGGL(read_one, dim3(1), dim3(64), 0, 0, p, out);
	e = hipDeviceSynchronize();
	expect(e == hipErrorIllegalAddress, "protected: a load from PROT_NONE faults");
	(void)hipGetLastError();
	hipLaunchKernelGGL(store_one, dim3(1), dim3(64), 0, 0, p + 1024);
	e = hipDeviceSynchronize();
	expect(e == hipErrorIllegalAddress && p[1024] == 7, "protected: a store to PROT_READ faults");
	(void)hipGetLastError();
	get_stats(2, &b);
	printf("# protected: %llu real, %llu mapped\n",
	       (unsigned long long)(b.faults_real - a.faults_real),
	       (unsigned long long)(b.faults_mapped - a.faults_mapped));
	expect(b.faults_real - a.faults_real == 2, "protected: two real faults");
	expect(b.faults_mapped == a.faults_mapped, "protected: nothing mapped");
	hipLaunchKernelGGL(read_one, dim3(1), dim3(64), 0, 0, p + 1024, out);
	expect(hipDeviceSynchronize() == hipSuccess && out[0] == 7,
	       "protected: a load from PROT_READ is served");
	if (mprotect(p, 2 * 4096, PROT_READ | PROT_WRITE))
		exit(1);
	hipLaunchKernelGGL(read_one, dim3(1), dim3(64), 0, 0, p + 1024, p);
	expect(hipDeviceSynchronize() == hipSuccess && p[0] == 7,
	       "protected: given back read-write, the page is served");
	CHECK(hipFree(out));
	CHECK(hipFree(p));
	CHECK(hipSetDevice(0));
}

static void t_malloc(void)
{
	int *h = (int *)malloc(4096), *out;

	memset(h, 0, 4096);
	CHECK(hipMalloc((void **)&out, 4096));
	hipLaunchKernelGGL(read_one, dim3(1), dim3(64), 0, 0, h, out);
	hipError_t e = hipDeviceSynchronize();
	expect(e == hipErrorIllegalAddress, "malloc: hipErrorIllegalAddress");
	(void)hipGetLastError();
	CHECK(hipFree(out));
	free(h);
}

__global__ void bump(unsigned *p)
{
	atomicAdd(&p[threadIdx.x], 1u);
}

static void t_atomic(void)
{
	unsigned *p;

	CHECK(hipSetDevice(0));
	CHECK(hipMallocManaged((void **)&p, 2 * 4096, hipMemAttachGlobal));
	hipLaunchKernelGGL(bump, dim3(1), dim3(64), 0, 0, p + 1024);
	CHECK(hipDeviceSynchronize());
	expect(p[1024] == 1 && p[1087] == 1, "atomic: the first kernel adds");
	if (munmap((char *)p + 4096, 4096) != 0)
		exit(1);
	hipLaunchKernelGGL(bump, dim3(1), dim3(64), 0, 0, p + 1024);
	hipError_t e = hipDeviceSynchronize();
	expect(e == hipErrorIllegalAddress, "atomic: hipErrorIllegalAddress after the munmap");
	(void)hipGetLastError();
}

__global__ void write_run(int *p)
{
	p[threadIdx.x] = (int)threadIdx.x + 1;
}

static void t_straddle(void)
{
	struct hipsvm_sim_stats a, b;
	int *p, *out, host[64];
	bool same = true;

	CHECK(hipSetDevice(1));
	CHECK(hipMallocManaged((void **)&p, 8 * 4096, hipMemAttachGlobal));
	CHECK(hipMalloc((void **)&out, 4096));
	for (int i = 0; i < 64; i++)
		p[3 * 1024 - 32 + i] = 100 + i;
	CHECK(hipMemAdvise(p, 8 * 4096, hipMemAdviseSetPreferredLocation, hipCpuDeviceId));
	get_stats(1, &a);
	// lanes 0..31 at the end of page 2, 32..63 at the start of page 3
	hipLaunchKernelGGL(read_one, dim3(1), dim3(64), 0, 0, p + 3 * 1024 - 32, out);
	hipLaunchKernelGGL(write_run, dim3(1), dim3(64), 0, 0, p + 5 * 1024 - 32);
	CHECK(hipDeviceSynchronize());
	get_stats(1, &b);
	CHECK(hipMemcpy(host, out, sizeof(host), hipMemcpyDeviceToHost));
	for (int i = 0; i < 64; i++)
		same &= host[i] == 100 + i && p[5 * 1024 - 32 + i] == i + 1;
	printf("# straddle: %llu pages mapped on GPU 1\n",
	       (unsigned long long)(b.faults_mapped - a.faults_mapped));
	expect(same, "straddle: a run across a page line loads and stores right");
	expect(b.faults_mapped - a.faults_mapped == 4, "straddle: exactly its two pages each");
	// the page after the line goes away behind the runtime's back
	if (munmap((char *)p + 7 * 4096, 4096) != 0)
		exit(1);
	hipLaunchKernelGGL(read_one, dim3(1), dim3(64), 0, 0, p + 7 * 1024 - 32, out);
	hipError_t e = hipDeviceSynchronize();
	(void)hipGetLastError();
	hipLaunchKernelGGL(write_run, dim3(1), dim3(64), 0, 0, p + 7 * 1024 - 32);
	hipError_t f = hipDeviceSynchronize();
	(void)hipGetLastError();
	same = true;
	for (int i = 0; i < 32; i++)
		same &= p[7 * 1024 - 32 + i] == 0;
	printf("# straddle, second page munmapped: load %s, store %s\n", hipGetErrorName(e),
	       hipGetErrorName(f));
	expect(e == hipErrorIllegalAddress && f == hipErrorIllegalAddress,
	       "straddle: a run onto a munmapped page is hipErrorIllegalAddress");
	expect(same, "straddle: the faulting store wrote nothing before the line");
	CHECK(hipFree(out));
	CHECK(hipSetDevice(0));
	// p is not freed: its last page may hold another mapping by now
}

static void t_uniform(void)
{
	struct hipsvm_sim_stats a, b;
	int *src, *dst;
	const int words = 64;	// from 32 words before a page line to 32 after
	const int at = 2 * 1024 - 32;

	CHECK(hipSetDevice(2));
	for (int kind = 0; kind < 3; kind++) {
		const char *name[] = { "scalar base", "lane addresses", "dwordx4" };
		bool same = true;

		CHECK(hipMallocManaged((void **)&src, 8 * 4096, hipMemAttachGlobal));
		CHECK(hipMallocManaged((void **)&dst, 8 * 4096, hipMemAttachGlobal));
		for (int i = 0; i < 8 * 1024; i++)
			src[i] = 7 * i + 1;
		CHECK(hipMemAdvise(src, 8 * 4096, hipMemAdviseSetPreferredLocation, hipCpuDeviceId));
		CHECK(hipMemAdvise(dst, 8 * 4096, hipMemAdviseSetPreferredLocation, hipCpuDeviceId));
		get_stats(2, &a);
		if (kind == 0)
			hipLaunchKernelGGL(walk_same, dim3(1), dim3(64), 0, 0, src + at, dst + at, words);
		else if (kind == 1)
			hipLaunchKernelGGL(walk_same_lanes, dim3(1), dim3(64), 0, 0, src + at, dst + at,
					   words);
		else
			hipLaunchKernelGGL(walk_same4, dim3(1), dim3(64), 0, 0, (const int4 *)(src + at),
					   (int4 *)(dst + at), words / 4);
		CHECK(hipDeviceSynchronize());
		get_stats(2, &b);
		for (int i = 0; i < 8 * 1024; i++) {
			int want = i >= at && i < at + words ? 7 * i + 1 : 0;

			if (want && (kind < 2 || i % 4 == 3))
				want += 63;
			same &= dst[i] == want;
		}
		printf("# uniform, %s: %llu pages mapped\n", name[kind],
		       (unsigned long long)(b.faults_mapped - a.faults_mapped));
		expect(same, "uniform: every lane's words, the last lane's store winning");
		expect(b.faults_mapped - a.faults_mapped == 4, "uniform: exactly the two pages of each");
		// the page after the line goes away behind the runtime's back
		if (munmap((char *)src + 2 * 4096, 4096) != 0)
			exit(1);
		memset(dst, 0, 2 * 4096);
		if (kind == 0)
			hipLaunchKernelGGL(walk_same, dim3(1), dim3(64), 0, 0, src + at, dst + at, words);
		else if (kind == 1)
			hipLaunchKernelGGL(walk_same_lanes, dim3(1), dim3(64), 0, 0, src + at, dst + at,
					   words);
		else
			hipLaunchKernelGGL(walk_same4, dim3(1), dim3(64), 0, 0, (const int4 *)(src + at),
					   (int4 *)(dst + at), words / 4);
		hipError_t e = hipDeviceSynchronize();
		(void)hipGetLastError();
		same = true;
		for (int i = at; i < 2 * 1024; i++)
			same &= dst[i] == 7 * i + 1 + (kind < 2 || i % 4 == 3 ? 63 : 0);
		printf("# uniform, %s, the page after the line munmapped: %s\n", name[kind],
		       hipGetErrorName(e));
		expect(e == hipErrorIllegalAddress, "uniform: a walk onto a munmapped page is hipErrorIllegalAddress");
		expect(same, "uniform: every word before the line stored");
		CHECK(hipFree(dst));
		// src is not freed: its third page may hold another mapping by now
	}
	CHECK(hipSetDevice(0));
}

static void own_segv(int sig)
{
	(void)sig;
	static const char msg[] = "FAIL handler: the program's SIGSEGV handler ran\n";
	(void)!write(1, msg, sizeof(msg) - 1);
	_exit(2);
}

static void t_handler(void)
{
	typedef int (*isa_stats_fn)(struct hipsvm_sim_isa_stats *);
	isa_stats_fn isa_stats = (isa_stats_fn)dlsym(RTLD_DEFAULT, "hipsvmSimIsaStats");
	struct hipsvm_sim_isa_stats a, b;
	struct sigaction sa, old;
	int *p, *out;

	CHECK(hipSetDevice(0));
	CHECK(hipMallocManaged((void **)&p, 2 * 4096, hipMemAttachGlobal));
	CHECK(hipMalloc((void **)&out, 4096));
	hipLaunchKernelGGL(read_one, dim3(1), dim3(64), 0, 0, p + 1024, out);	// maps the page
	CHECK(hipDeviceSynchronize());
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = own_segv;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old);
	if (munmap((char *)p + 4096, 4096) != 0)
		exit(1);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (isa_stats)
		isa_stats(&a);
	hipLaunchKernelGGL(read_one, dim3(1), dim3(64), 0, 0, p + 1024, out);
	hipError_t e = hipDeviceSynchronize();
	if (isa_stats)
		isa_stats(&b);
	printf("# handler: %s, %llu process_vm calls\n", hipGetErrorName(e),
	       (unsigned long long)(b.vm_calls - a.vm_calls));
	expect(e == hipErrorIllegalAddress, "handler: hipErrorIllegalAddress");
	// with the shim the munmap is coordinated: the GPU loses the page
	// first and the kernel faults on it without copying
	bool shim = dlsym(RTLD_DEFAULT, "hipsvm_active") != NULL;
	expect(b.vm_calls > a.vm_calls || shim,
	       "handler: the copy took process_vm_readv");
	(void)hipGetLastError();
	sigaction(SIGSEGV, &old, NULL);
	CHECK(hipFree(out));
}

static void t_rows(void)
{
	const int pages = 64;
	struct hipsvm_sim_stats a, b;
	int *src, *dst;

	CHECK(hipSetDevice(1));
	CHECK(hipMallocManaged((void **)&src, pages * 4096, hipMemAttachGlobal));
	CHECK(hipMallocManaged((void **)&dst, pages * 4096, hipMemAttachGlobal));
	for (int i = 0; i < pages * 1024; i++)
		src[i] = i * 3;
	CHECK(hipMemPrefetchAsync(src, pages * 4096, 1, 0));
	CHECK(hipMemPrefetchAsync(dst, pages * 4096, 1, 0));
	CHECK(hipDeviceSynchronize());
	// rows four pages apart, 40 bytes before a page's end (each row across two)
	const long stride = 4 * 1024, first = 1024 - 10;
	get_stats(1, &a);
	hipLaunchKernelGGL(rows_copy, dim3(1), dim3(64), 0, 0, src + first, dst + first, stride);
	CHECK(hipDeviceSynchronize());
	get_stats(1, &b);
	bool same = true;
	for (int l = 0; l < 64; l++) {
		long at = first + (long)(l / 16) * stride + l % 16;
		same &= dst[at] == (int)at * 3 + l;
	}
	expect(same, "rows: four rows apart, the values");
	printf("# rows: faults mapped %llu\n", (unsigned long long)(b.faults_mapped - a.faults_mapped));
	expect(b.faults_mapped == a.faults_mapped, "rows: prefetched pages raise no fault");
	// reversed rows (the highest lanes lowest)
	const long last = first + 12 * 1024;
	hipLaunchKernelGGL(rows_copy, dim3(1), dim3(64), 0, 0, src + last, dst + last, -stride);
	CHECK(hipDeviceSynchronize());
	same = true;
	for (int l = 0; l < 64; l++) {
		long at = last - (long)(l / 16) * stride + l % 16;
		same &= dst[at] == (int)at * 3 + l;
	}
	expect(same, "rows: reversed, the values");
	// every row on one address range: the last row's store wins
	hipLaunchKernelGGL(rows_copy, dim3(1), dim3(64), 0, 0, src + 40 * 1024, dst + 40 * 1024, 0L);
	CHECK(hipDeviceSynchronize());
	same = true;
	for (int c = 0; c < 16; c++)
		same &= dst[40 * 1024 + c] == (40 * 1024 + c) * 3 + 48 + c;
	expect(same, "rows: on one range, the last lane's store wins");
	CHECK(hipFree(src));
	CHECK(hipFree(dst));

	// not prefetched: the GPU maps exactly the rows' pages (8: each row
	// across two pages), in the rows' order
	CHECK(hipMallocManaged((void **)&src, pages * 4096, hipMemAttachGlobal));
	CHECK(hipMallocManaged((void **)&dst, pages * 4096, hipMemAttachGlobal));
	memset(src, 0, pages * 4096);
	memset(dst, 0, pages * 4096);
	get_stats(1, &a);
	hipLaunchKernelGGL(rows_copy, dim3(1), dim3(64), 0, 0, src + first, dst + first, stride);
	CHECK(hipDeviceSynchronize());
	get_stats(1, &b);
	printf("# rows: faults mapped %llu\n", (unsigned long long)(b.faults_mapped - a.faults_mapped));
	expect(b.faults_mapped - a.faults_mapped == 16, "rows: the rows' pages mapped, src's and dst's");
	expect(dst[first + 3 * stride + 15] == 63 && dst[first + 16] == 0, "rows: values, nothing past a row");

	// a row's first page gone behind the runtime's back (never mapped on the GPU)
	if (munmap((char *)src + 14 * 4096, 4096) != 0)
		exit(1);
	hipLaunchKernelGGL(rows_copy, dim3(1), dim3(64), 0, 0, src + first + 2 * 1024, dst + first, stride);
	hipError_t e = hipDeviceSynchronize();
	printf("# rows: munmapped %s\n", hipGetErrorName(e));
	expect(e == hipErrorIllegalAddress, "rows: a row on a munmapped page, hipErrorIllegalAddress");
	(void)hipGetLastError();
	CHECK(hipSetDevice(0));
	// src is not freed: a page of it may hold another mapping by now
}

struct race {
	char *base;
	size_t size;
};

static void *unmapper(void *arg)
{
	struct race *r = (struct race *)arg;

	usleep(2000);
	for (int k = 0; k < 4; k++) {
		munmap(r->base + r->size / 2 + k * (r->size / 8), r->size / 8);
		usleep(1000);
	}
	return NULL;
}

static void t_race(void)
{
	const size_t size = 4u << 20;
	int ok = 0, faulted = 0;

	for (int it = 0; it < 4; it++) {
		int *p;
		unsigned *sum;
		struct race r;
		pthread_t t;

		CHECK(hipMallocManaged((void **)&p, size, hipMemAttachGlobal));
		CHECK(hipMallocManaged((void **)&sum, 4096, hipMemAttachGlobal));
		memset(p, 0, size);
		r.base = (char *)p;
		r.size = size;
		hipLaunchKernelGGL(churn, dim3(32), dim3(256), 0, 0, p, size / sizeof(int), sum, 4);
		pthread_create(&t, NULL, unmapper, &r);
		hipError_t e = hipDeviceSynchronize();
		pthread_join(t, NULL);
		(void)hipGetLastError();
		if (e == hipSuccess)
			ok++;
		else if (e == hipErrorIllegalAddress)
			faulted++;
		else
			printf("# race: %s\n", hipGetErrorName(e));
		// the lower half is still ours; p itself is left (its upper half is gone)
		CHECK(hipFree(sum));
	}
	printf("# race: %d ended normally, %d with a fault\n", ok, faulted);
	expect(ok + faulted == 4, "race: every kernel ended with success or a fault");
}

int main(int argc, char **argv)
{
	int count = 0;

	get_stats = (stats_fn)dlsym(RTLD_DEFAULT, "hipsvmSimGetStats");
	if (!get_stats || hipGetDeviceCount(&count) != hipSuccess || count < 3) {
		printf("needs the simulator with 3 GPUs\n");
		return 1;
	}
	if (argc < 2 || !strcmp(argv[1], "precise"))
		t_precise();
	if (argc < 2 || !strcmp(argv[1], "unmapped"))
		t_unmapped();
	if (argc < 2 || !strcmp(argv[1], "malloc"))
		t_malloc();
	if (argc < 2 || !strcmp(argv[1], "protected"))
		t_protected();
	if (argc < 2 || !strcmp(argv[1], "atomic"))
		t_atomic();
	if (argc < 2 || !strcmp(argv[1], "rows"))
		t_rows();
	if (argc < 2 || !strcmp(argv[1], "straddle"))
		t_straddle();
	if (argc < 2 || !strcmp(argv[1], "uniform"))
		t_uniform();
	if (argc < 2 || !strcmp(argv[1], "race"))
		t_race();
	if (argc < 2 || !strcmp(argv[1], "handler"))
		t_handler();
	return bad ? 2 : 0;
}
