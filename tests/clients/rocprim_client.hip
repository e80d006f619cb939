// rocprim_client: rocPRIM (Debian's header-only librocprim-dev) as a real
// client of the simulator: device reduce, inclusive scan and radix sort
// (keys, and key-value pairs) over sizes that need several workgroups and
// a partial last one, each compared with a CPU reference. Exit 0: every
// result right; 2: a wrong result; 1: an API failure. Prints the wall time
// of each part. An argument (reduce, scan, sort) runs one part.
#include <hip/hip_runtime.h>
#include <rocprim/rocprim.hpp>

#include <algorithm>
#include <chrono>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#define CHECK(call)                                                             \
	do {                                                                    \
		hipError_t e_ = (call);                                         \
		if (e_ != hipSuccess) {                                         \
			printf("%s: %s\n", #call, hipGetErrorString(e_));       \
			exit(1);                                                \
		}                                                               \
	} while (0)

static unsigned long long rng = 0x2545f4914f6cdd1dULL;	/* fixed seed */

static unsigned rnd(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(rng >> 33);
}

template <class T> static T *dev(const std::vector<T> &h)
{
	T *d;
	CHECK(hipMalloc(&d, h.size() * sizeof(T) + 1));
	CHECK(hipMemcpy(d, h.data(), h.size() * sizeof(T), hipMemcpyHostToDevice));
	return d;
}

template <class T> static std::vector<T> back(const T *d, size_t n)
{
	std::vector<T> h(n);
	CHECK(hipMemcpy(h.data(), d, n * sizeof(T), hipMemcpyDeviceToHost));
	return h;
}

static double now(void)
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static int reduce(size_t n)
{
	std::vector<int> h(n);
	long long want = 0;
	for (auto &x : h) {
		x = (int)(rnd() % 2001) - 1000;
		want += x;
	}
	int *in = dev(h), *out;
	CHECK(hipMalloc(&out, sizeof(int)));
	size_t tb = 0;
	void *tmp = nullptr;
	CHECK(rocprim::reduce(tmp, tb, in, out, n, rocprim::plus<int>()));
	CHECK(hipMalloc(&tmp, tb + 1));
	CHECK(rocprim::reduce(tmp, tb, in, out, n, rocprim::plus<int>()));
	int got = back(out, 1)[0];
	/* and a maximum, which takes another operator through the same kernels */
	int *mx;
	CHECK(hipMalloc(&mx, sizeof(int)));
	CHECK(rocprim::reduce(tmp, tb, in, mx, std::numeric_limits<int>::min(), n,
			      rocprim::maximum<int>()));
	int gotmax = back(mx, 1)[0];
	int wantmax = *std::max_element(h.begin(), h.end());
	CHECK(hipFree(in));
	CHECK(hipFree(out));
	CHECK(hipFree(mx));
	CHECK(hipFree(tmp));
	if (got != (int)want || gotmax != wantmax) {
		printf("reduce n=%zu: sum %d want %lld, max %d want %d\n", n, got, want, gotmax, wantmax);
		return 2;
	}
	return 0;
}

static int scan(size_t n)
{
	std::vector<int> h(n);
	for (auto &x : h)
		x = (int)(rnd() % 201) - 100;
	int *in = dev(h), *out;
	CHECK(hipMalloc(&out, n * sizeof(int)));
	size_t tb = 0;
	void *tmp = nullptr;
	CHECK(rocprim::inclusive_scan(tmp, tb, in, out, n, rocprim::plus<int>()));
	CHECK(hipMalloc(&tmp, tb + 1));
	CHECK(rocprim::inclusive_scan(tmp, tb, in, out, n, rocprim::plus<int>()));
	std::vector<int> got = back(out, n);
	CHECK(hipFree(in));
	CHECK(hipFree(out));
	CHECK(hipFree(tmp));
	int acc = 0;
	for (size_t i = 0; i < n; i++) {
		acc += h[i];
		if (got[i] != acc) {
			printf("inclusive_scan n=%zu: [%zu] = %d, want %d\n", n, i, got[i], acc);
			return 2;
		}
	}
	return 0;
}

static int sort(size_t n)
{
	std::vector<unsigned> keys(n), vals(n);
	for (size_t i = 0; i < n; i++) {
		keys[i] = rnd() ^ (rnd() << 16);
		vals[i] = (unsigned)i;
	}
	unsigned *kin = dev(keys), *vin = dev(vals), *kout, *vout;
	CHECK(hipMalloc(&kout, n * sizeof(unsigned)));
	CHECK(hipMalloc(&vout, n * sizeof(unsigned)));
	size_t tb = 0;
	void *tmp = nullptr;
	CHECK(rocprim::radix_sort_pairs(tmp, tb, kin, kout, vin, vout, n));
	CHECK(hipMalloc(&tmp, tb + 1));
	CHECK(rocprim::radix_sort_pairs(tmp, tb, kin, kout, vin, vout, n));
	std::vector<unsigned> gk = back(kout, n), gv = back(vout, n);
	CHECK(hipFree(kin));
	CHECK(hipFree(vin));
	CHECK(hipFree(kout));
	CHECK(hipFree(vout));
	CHECK(hipFree(tmp));
	/* the CPU reference: a stable sort of (key, index) */
	std::vector<unsigned> order(n);
	for (size_t i = 0; i < n; i++)
		order[i] = (unsigned)i;
	std::stable_sort(order.begin(), order.end(),
			 [&](unsigned a, unsigned b) { return keys[a] < keys[b]; });
	for (size_t i = 0; i < n; i++)
		if (gk[i] != keys[order[i]] || gv[i] != order[i]) {
			printf("radix_sort_pairs n=%zu: [%zu] = (%u, %u), want (%u, %u)\n", n, i, gk[i],
			       gv[i], keys[order[i]], order[i]);
			return 2;
		}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(size_t);
		size_t n[3];
	} parts[] = {
		{ "reduce", reduce, { 1, 1000, 300001 } },
		{ "scan", scan, { 1, 4097, 200003 } },
		{ "sort", sort, { 7, 5000, 70001 } },
	};
	int bad = 0, ran = 0;

	printf("seed 0x%llx\n", rng);
	for (auto &p : parts) {
		if (argc > 1 && strcmp(argv[1], p.name))
			continue;
		double t0 = now();
		int b = 0;
		for (size_t n : p.n)
			b |= p.fn(n);
		CHECK(hipDeviceSynchronize());
		printf("%s %s (%.2f s)\n", b ? "FAIL" : "ok", p.name, now() - t0);
		bad |= b;
		ran++;
	}
	if (!ran) {
		printf("no part named %s\n", argv[1]);
		return 1;
	}
	return bad ? 2 : 0;
}
