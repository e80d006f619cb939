// launch_touch: a HIP program built by Debian's hipcc against the real
// runtime, run on both runtimes by tests/sim/run_both.sh. On the real one
// here it gets hipErrorNoDevice; on the simulator, its kernel launch touches
// the managed buffers it is given (two of 64 pages each) on GPU 1, and it
// reads the fault counters through hipsvmSimGetStats (looked up with dlsym,
// so that the same binary runs on the real runtime). A buffer the program
// munmaps behind the runtime's back is a real fault for a GPU that touches it.
#include <hip/hip_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <sys/mman.h>
#include "hipsvm_sim.h"

__global__ void scale(float *out, const float *in, float s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = in[i] * s;
}

int main(void)
{
	typedef int (*stats_fn)(int, struct hipsvm_sim_stats *);
	const int n = 64 * 1024;	// 256 KiB: 64 pages
	struct hipsvm_sim_stats st;
	float *in, *out;
	int count = 0;
	hipError_t e = hipGetDeviceCount(&count);

	if (e != hipSuccess) {
		printf("hipGetDeviceCount=%d\n", (int)e);
		return e == hipErrorNoDevice ? 0 : 1;
	}
	if (hipSetDevice(1) != hipSuccess ||
	    hipMallocManaged((void **)&in, n * sizeof(float), hipMemAttachGlobal) != hipSuccess ||
	    hipMallocManaged((void **)&out, n * sizeof(float), hipMemAttachGlobal) != hipSuccess)
		return 1;
	hipLaunchKernelGGL(scale, dim3(n / 256), dim3(256), 0, 0, out, in, 2.0f, n);
	if (hipGetLastError() != hipSuccess || hipDeviceSynchronize() != hipSuccess)
		return 1;
	stats_fn fn = (stats_fn)dlsym(RTLD_DEFAULT, "hipsvmSimGetStats");
	if (!fn || fn(1, &st) != 0)
		return 1;
	printf("faults_mapped=%llu faults_real=%llu", (unsigned long long)st.faults_mapped,
	       (unsigned long long)st.faults_real);
	if (st.faults_mapped != 128 || st.faults_real != 0)
		return 1;
	// The program unmaps its input behind the runtime's back; a launch on
	// GPU 2, which never mapped it, faults for real: the synchronisation
	// reports it.
	if (munmap(in, n * sizeof(float)) != 0 || hipSetDevice(2) != hipSuccess)
		return 1;
	hipLaunchKernelGGL(scale, dim3(n / 256), dim3(256), 0, 0, out, in, 2.0f, n);
	e = hipDeviceSynchronize();
	printf(" after_unmap=%s\n", hipGetErrorName(e));
	// Not hipFree(in): the runtime would munmap the range again, and
	// without the hook it cannot know what has been mapped into the hole
	// since (under ASan: the bookkeeping of the GPU 2 worker thread, which
	// LeakSanitizer then faulted on at exit).
	hipFree(out);
	return e == hipErrorIllegalAddress ? 0 : 1;
}
