/* SPDX-License-Identifier: MIT */
/*
 * suid.c - a program linked with -lhipsvm and the simulated runtime that
 * test_security.c installs setuid root and runs as nobody: in
 * secure-execution mode the HIPSVM_* variables of whoever starts it must
 * name no file it writes or binds. Its RUNPATH is absolute (a setuid
 * program's $ORIGIN is not expanded).
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <sys/auxv.h>

#include "hipsvm.h"

int main(void)
{
	void *p = NULL;
	int n = 0;

	printf("secure %lu active %d\n", getauxval(AT_SECURE), hipsvm_active());
	printf("hipGetDeviceCount %d n %d\n", (int)hipGetDeviceCount(&n), n);
	printf("hipMallocManaged %d\n", (int)hipMallocManaged(&p, 1 << 20, hipMemAttachGlobal));
	printf("hipFree %d\n", (int)hipFree(p));
	return 0;
}
