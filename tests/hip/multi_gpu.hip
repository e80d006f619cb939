// multi_gpu: on every device, one managed and one pinned host buffer touched by
// a kernel launched on that device. Prints one line per device; API failures
// exit 1 (also when there is no device at all).
#include <hip/hip_runtime.h>
#include <stdio.h>

#define CHECK(call)                                                          \
	do {                                                                 \
		hipError_t e_ = (call);                                      \
		if (e_ != hipSuccess) {                                      \
			printf("%s=%d (%s)\n", #call, (int)e_, hipGetErrorString(e_)); \
			return 1;                                            \
		}                                                            \
	} while (0)

#define MAX_DEV 16

__global__ void fill(int *managed, int *host, int dev, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		managed[i] = dev;
		host[i] = dev + 100;
	}
}

int main(void)
{
	const int n = 1 << 16;
	int count = 0;
	int *managed[MAX_DEV], *host[MAX_DEV];

	CHECK(hipGetDeviceCount(&count));
	printf("devices=%d\n", count);
	if (count > MAX_DEV)
		count = MAX_DEV;
	for (int d = 0; d < count; d++) {
		CHECK(hipSetDevice(d));
		CHECK(hipMallocManaged(&managed[d], n * sizeof(int), hipMemAttachGlobal));
		CHECK(hipHostMalloc(&host[d], n * sizeof(int), hipHostMallocDefault));
		hipLaunchKernelGGL(fill, dim3((n + 255) / 256), dim3(256), 0, 0, managed[d], host[d], d, n);
		CHECK(hipGetLastError());
	}
	for (int d = 0; d < count; d++) {
		CHECK(hipSetDevice(d));
		CHECK(hipDeviceSynchronize());
		printf("device %d: managed=%p host=%p managed[0]=%d host[0]=%d\n", d,
		       (void *)managed[d], (void *)host[d], managed[d][0], host[d][0]);
	}
	for (int d = 0; d < count; d++) {
		CHECK(hipFree(managed[d]));
		CHECK(hipHostFree(host[d]));
	}
	return 0;
}
