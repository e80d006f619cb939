/* SPDX-License-Identifier: MIT */
/*
 * local_lib.c - a library that uses HIP, for a program that loads it with
 * dlopen(RTLD_LOCAL), as a Python extension is loaded: its libamdhip64 is
 * then not in the global scope, and dlsym(RTLD_NEXT) from the shim finds
 * nothing.
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>

__attribute__((visibility("default"))) int pl_local_run(void)
{
	void *p = NULL, *m = NULL;

	printf("local hipMalloc %d\n", (int)hipMalloc(&p, 1 << 20));
	printf("local hipMallocManaged %d\n", (int)hipMallocManaged(&m, 2 << 20, hipMemAttachGlobal));
	printf("local hipFree %d\n", (int)hipFree(p));
	printf("local hipFree(managed) %d\n", (int)hipFree(m));
	return 0;
}
