// unmap_race: munmap a managed range while kernels on two GPUs keep faulting on it.
//
// This is the race the checkpoint exists for. GPU page faults are written into an
// interrupt ring and served later; when the CPU unmaps a range, faults that were
// raised on the old mapping may still be in the ring. Served after the unmap, they
// would look like accesses to a hole (or, worse, map a page that now belongs to
// someone else). The shim sees the munmap, sets a checkpoint on every GPU of the
// owning context, lets the unmap proceed, drains the ring and clears the checkpoint:
// faults raised before the checkpoint are dropped, later ones are handled normally
// (and are real errors when they hit the hole).
//
//   hipsvm run -- ./unmap_race
//
// The report shows 4 coordinated unmaps of live SVM memory (16 MiB in all) in
// host_context, drains on GPUs 0 and 1 and checkpoints set on the GPUs that had
// faults in flight, dropped faults (how many depends on timing), and real faults
// from the accesses that came after the unmaps.
//
// On a real GPU the kernels that touch the hole end in a memory access fault: this
// program demonstrates a bug class, it is not something to do. The simulator runs
// the kernels' code: their faults are on the addresses they really touch, and a
// kernel that reaches the hole ends with hipErrorIllegalAddress, as on a GPU (when
// the simulator offers them, "agents" also keep both GPUs faulting across the
// unmap). The program runs to the end either way.
#include "example.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

__global__ void sweep(int *p, size_t n, int rounds)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (int r = 0; r < rounds; r++)
		for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
			p[i] += 1;
}

// The simulator's agents: a thread per GPU that keeps touching a range (hipsvm_sim.h).
typedef int (*agent_start_fn)(int, void *, size_t, int, void **);
struct agent_result {
	unsigned long long rounds, accesses, real_faults;
};
typedef int (*agent_stop_fn)(void *, struct agent_result *);

int main(void)
{
	const size_t size = 32u << 20, n = size / sizeof(int);
	agent_start_fn start = (agent_start_fn)sim_symbol("hipsvmSimAgentStart");
	agent_stop_fn stop = (agent_stop_fn)sim_symbol("hipsvmSimAgentStop");
	void *agent[2] = { NULL, NULL };
	hipStream_t stream[2];
	int ndev = 0, use, *p;

	CHECK(hipGetDeviceCount(&ndev));
	use = ndev < 2 ? ndev : 2;
	if (use < 2)
		printf("note: only %d GPU; the race needs two to show fully\n", ndev);

	CHECK(hipMallocManaged((void **)&p, size, hipMemAttachGlobal));
	memset(p, 0, size);
	printf("managed range %p, %zu MiB\n", (void *)p, size >> 20);

	for (int d = 0; d < use; d++) {
		CHECK(hipSetDevice(d));
		CHECK(hipStreamCreate(&stream[d]));
		hipLaunchKernelGGL(sweep, dim3(64), dim3(256), 0, stream[d], p, n, 8);
		CHECK(hipGetLastError());
		if (start && stop && start(d, p, size, 1, &agent[d]) != 0)
			agent[d] = NULL;
	}
	usleep(20000);		// let the GPUs fault on the whole range

	// The race: the upper half goes away, a quarter at a time, while both GPUs
	// still touch it. Each munmap is one coordinated unmap; the GPUs keep
	// faulting on the hole left by the earlier ones, so faults are in flight.
	const size_t piece = size / 8;
	int unmapped = 0;

	for (int k = 0; k < 4; k++) {
		if (munmap((char *)p + size / 2 + k * piece, piece) != 0)
			perror("munmap");
		else
			unmapped++;
		usleep(5000);
	}
	printf("unmapped the upper %zu MiB in %d pieces while %d GPUs were using it\n", size >> 21,
	       unmapped, use);

	usleep(20000);		// GPUs keep going: accesses to the hole are now real faults
	for (int d = 0; d < use; d++) {
		struct agent_result res = { 0, 0, 0 };

		if (agent[d] && stop(agent[d], &res) == 0)
			printf("GPU %d agent: %llu passes, %llu page accesses, %llu hit the hole\n", d,
			       res.rounds, res.accesses, res.real_faults);
		CHECK(hipSetDevice(d));
		hipError_t e = hipStreamSynchronize(stream[d]);
		if (e != hipSuccess)
			printf("GPU %d: kernel ended with %s (expected: it touched unmapped memory)\n", d,
			       hipGetErrorName(e));
		(void)hipGetLastError();
		CHECK(hipStreamDestroy(stream[d]));
	}
	// hipFree of a range whose upper half is gone: the runtime frees the rest.
	hipError_t e = hipFree(p);
	printf("hipFree: %s\n", hipGetErrorName(e));
	return 0;
}
