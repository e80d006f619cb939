// multi_gpu_host: one allocation in host_context, touched by kernels on every GPU.
//
// hipHostMalloc and hipMallocManaged allocate through HIP's host_context, which holds
// every GPU: the same virtual address is valid on all of them. This program makes one
// pinned host buffer and one managed buffer, then, for each GPU in turn, makes it
// current with hipSetDevice and launches a kernel that reads and writes both.
//
//   hipsvm run --gpus 4 -- ./multi_gpu_host
//
// The report shows both allocations in host_context (GPUs 0-3), none in any device:N
// context, and page faults raised and handled on every GPU, not only on GPU 0.
#include "example.h"

__global__ void bump(int *p, size_t n, int by)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i] += by;
}

int main(void)
{
	const size_t n = 1 << 20;	// 4 MiB per buffer
	int ndev = 0, *host, *managed, bad = 0;

	CHECK(hipGetDeviceCount(&ndev));
	printf("%d GPUs\n", ndev);
	CHECK(hipHostMalloc((void **)&host, n * sizeof(int), hipHostMallocDefault));
	CHECK(hipMallocManaged((void **)&managed, n * sizeof(int), hipMemAttachGlobal));
	for (size_t i = 0; i < n; i++)
		host[i] = managed[i] = 0;

	for (int d = 0; d < ndev; d++) {
		CHECK(hipSetDevice(d));
		hipLaunchKernelGGL(bump, dim3((unsigned)((n + 255) / 256)), dim3(256), 0, 0, host, n, 1);
		hipLaunchKernelGGL(bump, dim3((unsigned)((n + 255) / 256)), dim3(256), 0, 0, managed, n, 1);
		CHECK(hipGetLastError());
		CHECK(hipDeviceSynchronize());
		printf("GPU %d touched both buffers\n", d);
	}
	for (size_t i = 0; i < n; i++)
		bad += (host[i] != ndev) + (managed[i] != ndev);
	int status = note_results(bad);
	CHECK(hipHostFree(host));
	CHECK(hipFree(managed));
	return status;
}
