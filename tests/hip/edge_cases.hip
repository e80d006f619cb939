// edge_cases: the return code of each call listed in docs/hip-edges.md, one
// "name=code" per line, always exit 0. Used to compare runtimes (the real one
// with no GPU, the simulated one, either under the shim).
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <stdio.h>

#define SHOW(name, call) printf("%s=%d\n", name, (int)(call))

int main(void)
{
	int count = -1, stack_var = 0;
	void *p = (void *)&p;
	hipError_t e;

	e = hipGetDeviceCount(&count);
	SHOW("hipGetDeviceCount", e);
	printf("device_count=%d\n", count);
	SHOW("hipSetDevice_out_of_range", hipSetDevice(count < 0 ? 0 : count));
	SHOW("hipSetDevice_negative", hipSetDevice(-1));
	SHOW("hipGetLastError_after_failure", hipGetLastError());
	SHOW("hipGetLastError_again", hipGetLastError());

	SHOW("hipFree_NULL", hipFree(NULL));
	SHOW("hipFree_stack", hipFree(&stack_var));
	if (hipMalloc(&p, 4096) == hipSuccess) {
		printf("hipMalloc_align256=%d\n", ((uintptr_t)p & 255) == 0);
		SHOW("hipFree_first", hipFree(p));
		SHOW("hipFree_twice", hipFree(p));
	}
	SHOW("hipHostFree_NULL", hipHostFree(NULL));
	SHOW("hipHostFree_stack", hipHostFree(&stack_var));
	if (hipHostMalloc(&p, 4096, hipHostMallocDefault) == hipSuccess) {
		SHOW("hipHostFree_first", hipHostFree(p));
		SHOW("hipHostFree_twice", hipHostFree(p));
	}

	p = (void *)&p;
	SHOW("hipMalloc_0", hipMalloc(&p, 0));
	printf("hipMalloc_0_null=%d\n", p == NULL);
	SHOW("hipMalloc_NULL_ptr", hipMalloc((void **)NULL, 64));
	SHOW("hipMalloc_SIZE_MAX", hipMalloc(&p, SIZE_MAX));

	SHOW("hipMallocManaged_NULL_ptr", hipMallocManaged((void **)NULL, 64, hipMemAttachGlobal));
	SHOW("hipMallocManaged_0", hipMallocManaged(&p, 0, hipMemAttachGlobal));
	SHOW("hipMallocManaged_flags_0", hipMallocManaged(&p, 64, 0));
	SHOW("hipMallocManaged_flags_both",
	     hipMallocManaged(&p, 64, hipMemAttachGlobal | hipMemAttachHost));
	SHOW("hipMallocManaged_flags_unknown", hipMallocManaged(&p, 64, 0x100));
	SHOW("hipMallocManaged_SIZE_MAX", hipMallocManaged(&p, SIZE_MAX, hipMemAttachGlobal));

	SHOW("hipHostMalloc_coherent_and_noncoherent",
	     hipHostMalloc(&p, 64, hipHostMallocCoherent | hipHostMallocNonCoherent));
	SHOW("hipExtMallocWithFlags_signal_16", hipExtMallocWithFlags(&p, 16, hipMallocSignalMemory));
	SHOW("hipExtMallocWithFlags_unknown_flags", hipExtMallocWithFlags(&p, 64, 0x10000));
	e = hipExtMallocWithFlags(&p, 8, hipMallocSignalMemory);
	SHOW("hipExtMallocWithFlags_signal_8", e);
	if (e == hipSuccess)
		SHOW("hipExtMallocWithFlags_signal_free", hipFree(p));
	SHOW("hipGetLastError_final", hipGetLastError());
	return 0;
}
