// isa_reload: what the interpreter keeps between launches must not outlive
// what it was made for.
//  - Two code objects (isa_reload_kernel.hip with RELOAD_VALUE 1 and 2)
//    loaded and unloaded in turn, eight times: each launch must run the
//    code loaded then, also when a module is loaded where the one unloaded
//    before was (the prepared-kernel cache is keyed by the code's
//    generation, not its address). The simulator's device aperture hands
//    out addresses back to back, so the program first takes that range
//    itself (PROT_NONE, as a program's own fixed mapping may): the images
//    then go where the kernel puts them, which is where the one unloaded
//    before was, and at least one such reuse is required. Then modules
//    unloaded with launches still queued: those run their own code.
//  - The helper threads (HIPSVM_SIM_EXEC_THREADS=4, set by the test): after
//    launches they stay, named hipsvm-isa, and the same ones run the next
//    launches (none made per dispatch); a fork child runs kernels with its
//    own; idle ones end (within 20 s).
// Usage: isa_reload A.co B.co. Exit 0 right, 2 wrong, 1 an API failure.
#include <hip/hip_runtime.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(call)                                                          \
	do {                                                                 \
		hipError_t e_ = (call);                                      \
		if (e_ != hipSuccess) {                                      \
			printf("%s=%s\n", #call, hipGetErrorName(e_));       \
			exit(1);                                             \
		}                                                            \
	} while (0)

#define GROUPS 16
#define N (GROUPS * 64)

__global__ void fill(int *out, int v)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	out[i] = v + i;
}

static int check(const int *got, int v, const char *what)
{
	for (int i = 0; i < N; i++)
		if (got[i] != v + i) {
			printf("FAIL %s: out[%d] = %d, want %d\n", what, i, got[i], v + i);
			return 2;
		}
	return 0;
}

static int run_fill(int *d, int v, const char *what)
{
	static int h[N];

	hipLaunchKernelGGL(fill, dim3(GROUPS), dim3(64), 0, 0, d, v);
	CHECK(hipDeviceSynchronize());
	CHECK(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
	return check(h, v, what);
}

// The tids of this process's threads named hipsvm-isa, sorted; their count.
static int helpers(long *tid, int max)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!dir)
		return -1;
	while ((e = readdir(dir)) != NULL) {
		char path[300], name[64] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f) && !strncmp(name, "hipsvm-isa", 10) && n < max)
			tid[n++] = atol(e->d_name);
		fclose(f);
	}
	closedir(dir);
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && tid[j - 1] > tid[j]; j--) {
			long t = tid[j];
			tid[j] = tid[j - 1];
			tid[j - 1] = t;
		}
	return n;
}

static int reload(const char *a, const char *b, int *d)
{
	void *last = NULL;
	int reused = 0, h[N];

	for (int k = 0; k < 8; k++) {
		int v = k % 2 ? 2 : 1;
		hipModule_t m;
		hipFunction_t f;
		hipDeviceptr_t g;
		size_t gsize;
		void *args[] = { &d };

		CHECK(hipModuleLoad(&m, k % 2 ? b : a));
		CHECK(hipModuleGetFunction(&f, m, "put"));
		CHECK(hipModuleGetGlobal(&g, &gsize, m, "marker"));
		if (last && (void *)g == last)
			reused++;
		last = (void *)g;
		CHECK(hipModuleLaunchKernel(f, GROUPS, 1, 1, 64, 1, 1, 0, 0, args, NULL));
		CHECK(hipDeviceSynchronize());
		CHECK(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
		CHECK(hipModuleUnload(m));
		if (check(h, v * 1000, k % 2 ? "B after A" : "A after B"))
			return 2;
	}
	printf("ok reload: 8 loads in turn ran their own code (%d of 7 at the address "
	       "the one before had)\n", reused);
	if (!reused) {
		printf("FAIL reload: no image was loaded where the one before had been\n");
		return 2;
	}
	// unloaded while its launches may still be queued: they run to the end
	// on the program they were queued with (the cache lets it go after)
	for (int k = 0; k < 4; k++) {
		int v = k % 2 ? 2 : 1;
		hipModule_t m;
		hipFunction_t f;
		void *args[] = { &d };

		CHECK(hipModuleLoad(&m, k % 2 ? b : a));
		CHECK(hipModuleGetFunction(&f, m, "put_plain"));
		for (int j = 0; j < 3; j++)
			CHECK(hipModuleLaunchKernel(f, GROUPS, 1, 1, 64, 1, 1, 0, 0, args, NULL));
		CHECK(hipModuleUnload(m));
		CHECK(hipDeviceSynchronize());
		CHECK(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
		if (check(h, v * 1000, "launched, then unloaded"))
			return 2;
	}
	printf("ok reload: launches queued before an unload ran their own code\n");
	return 0;
}

int main(int argc, char **argv)
{
	long t1[64], t2[64];
	const char *threads = getenv("HIPSVM_SIM_EXEC_THREADS");
	int *d, n1, n2, rc, status;
	pid_t pid;

	if (argc < 3) {
		printf("usage: isa_reload A.co B.co\n");
		return 1;
	}
	if (!threads || strcmp(threads, "4")) {
		printf("FAIL: run with HIPSVM_SIM_EXEC_THREADS=4\n");
		return 2;
	}
	// the simulator's device aperture (sim/runtime/memory.c, APER_DEVICE,
	// 8 TiB), taken before the first allocation
	if (mmap((void *)0x200000000000ull, 0x080000000000ull, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0) == MAP_FAILED)
		printf("# the device aperture could not be taken\n");
	CHECK(hipMalloc(&d, N * sizeof(int)));
	if ((rc = reload(argv[1], argv[2], d)) != 0)
		return rc;

	for (int k = 0; k < 10; k++)
		if ((rc = run_fill(d, 7 * k, "fill")) != 0)
			return rc;
	n1 = helpers(t1, 64);
	for (int k = 0; k < 50; k++)
		if ((rc = run_fill(d, 11 * k, "fill")) != 0)
			return rc;
	n2 = helpers(t2, 64);
	if (n1 < 1 || n1 > 3 || n1 != n2 || memcmp(t1, t2, n1 * sizeof(long))) {
		printf("FAIL pool: %d helper threads after 10 launches, %d after 50 more "
		       "(want 1..3, the same ones)\n", n1, n2);
		return 2;
	}
	printf("ok pool: the same %d helper threads ran 50 launches\n", n1);

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		int *dc;

		// the parent's device memory is not the child's (as on ROCm)
		if (hipMalloc(&dc, N * sizeof(int)) != hipSuccess)
			_exit(1);
		for (int k = 0; k < 5; k++)
			if (run_fill(dc, 13 * k, "fill in a fork child"))
				_exit(2);
		_exit(helpers(t2, 64) >= 1 ? 0 : 3);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("FAIL fork: the child ended with status 0x%x\n", status);
		return 2;
	}
	printf("ok fork: a child ran 5 launches on helpers of its own\n");
	if ((rc = run_fill(d, 17, "fill after the fork")) != 0)
		return rc;

	for (int s = 0; s < 200 && helpers(t2, 64) > 0; s++)
		usleep(100000);
	n2 = helpers(t2, 64);
	if (n2) {
		printf("FAIL pool: %d helper threads still there after 20 s idle\n", n2);
		return 2;
	}
	printf("ok pool: idle helpers ended\n");
	if ((rc = run_fill(d, 19, "fill after the helpers ended")) != 0)
		return rc;
	CHECK(hipFree(d));
	return 0;
}
