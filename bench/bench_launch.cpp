// bench_launch: what a launch costs outside the kernel's own instructions.
// Two rows, each N launches each followed by hipDeviceSynchronize:
//   empty      a kernel with no instructions but s_endpgm, one wave, from
//              this program's own small code object;
//   empty8     the same kernel in 8 workgroups of one wave (more than one
//              interpreter thread when HIPSVM_SIM_EXEC_THREADS allows);
//   rocsparse  rocsparse_sgthr of 1 nonzero: one small kernel from one of
//              librocsparse's code objects, a library that registers tens of
//              thousands of kernels (built only where librocsparse-dev is
//              installed, -DWITH_ROCSPARSE).
//   LD_LIBRARY_PATH=build/sim build/sim/bench_launch ROW N
// prints the row, the launches and the dispatches the interpreter made
// (hipsvmSimIsaStats). bench/bench_launch.sh turns two runs (N and 2N) into
// exact host instructions (callgrind) and system calls (strace -f -c) per
// launch.
#include <hip/hip_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef WITH_ROCSPARSE
#include <rocsparse/rocsparse.h>
#endif

struct isa_stats {
	unsigned long long dispatches, fallbacks, wave_insns, waves, ns, page_walks;
	unsigned long long mem_insns, vm_calls;
};
typedef int (*stats_fn)(struct isa_stats *);

#define CHECK(c) do { if ((c) != 0) { printf("%s failed\n", #c); exit(1); } } while (0)

__global__ void empty() {}

int main(int argc, char **argv)
{
	stats_fn get_stats = (stats_fn)dlsym(RTLD_DEFAULT, "hipsvmSimIsaStats");
	struct isa_stats a, b;
	int n = argc > 2 ? atoi(argv[2]) : 10;

	if (argc < 2 || n < 1 || n > 100000) {
		printf("usage: bench_launch empty|empty8|rocsparse N\n");
		return 1;
	}
	if (!get_stats) {
		printf("not on the simulator (no hipsvmSimIsaStats)\n");
		return 1;
	}
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!strcmp(argv[1], "empty") || !strcmp(argv[1], "empty8")) {
		int groups = argv[1][5] ? 8 : 1;

		// the first launch (registration, preparation) is left out of the counts
		hipLaunchKernelGGL(empty, dim3(groups), dim3(64), 0, 0);
		CHECK(hipDeviceSynchronize());
		get_stats(&a);
		for (int i = 0; i < n; i++) {
			hipLaunchKernelGGL(empty, dim3(groups), dim3(64), 0, 0);
			CHECK(hipDeviceSynchronize());
		}
		get_stats(&b);
#ifdef WITH_ROCSPARSE
	} else if (!strcmp(argv[1], "rocsparse")) {
		rocsparse_handle h;
		float *x, *y, one = 1.0f;
		int *ind, zero = 0;

		CHECK(rocsparse_create_handle(&h));
		CHECK(rocsparse_set_pointer_mode(h, rocsparse_pointer_mode_device));
		CHECK(hipMalloc(&x, sizeof(float)));
		CHECK(hipMalloc(&y, sizeof(float)));
		CHECK(hipMalloc(&ind, sizeof(int)));
		CHECK(hipMemset(x, 0, sizeof(float)));
		CHECK(hipMemcpy(y, &one, sizeof(float), hipMemcpyHostToDevice));
		CHECK(hipMemcpy(ind, &zero, sizeof(int), hipMemcpyHostToDevice));
		CHECK(rocsparse_sgthr(h, 1, y, x, ind, rocsparse_index_base_zero));
		CHECK(hipDeviceSynchronize());
		get_stats(&a);
		for (int i = 0; i < n; i++) {
			CHECK(rocsparse_sgthr(h, 1, y, x, ind, rocsparse_index_base_zero));
			CHECK(hipDeviceSynchronize());
		}
		get_stats(&b);
		one = 0.0f;
		CHECK(hipMemcpy(&one, x, sizeof(float), hipMemcpyDeviceToHost));
		if (one != 1.0f) {
			printf("rocsparse_sgthr gave %g, want 1\n", one);
			return 2;
		}
		rocsparse_destroy_handle(h);
#endif
	} else {
		printf("unknown row %s\n", argv[1]);
		return 1;
	}
	printf("%s %d launches %llu dispatches %llu fell back\n", argv[1], n,
	       b.dispatches - a.dispatches, b.fallbacks - a.fallbacks);
	return 0;
}
