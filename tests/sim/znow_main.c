/* SPDX-License-Identifier: MIT */
/*
 * znow_main.c - a program linked with -Wl,-z,now against the real runtime,
 * calling every function it exports (gen_znow_refs.sh), started on the
 * simulator (LD_LIBRARY_PATH): the dynamic linker binds every call at start,
 * so one missing function or version would stop it before main. Checks that
 * it got this far, on the simulator (the real runtime has no device here),
 * with every call slot bound. TAP output.
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>

extern unsigned znow_count;
void znow_call(int k);

int main(int argc, char **argv)
{
	int n = 0;
	hipError_t r;

	(void)argv;
	printf("1..2\n");
	printf("%s 1 - started with %u functions bound at load time\n",
	       znow_count > 300 ? "ok" : "not ok", znow_count);
	/* never true: the calls exist only for their PLT slots */
	if (argc < 0)
		znow_call(argc);
	r = hipGetDeviceCount(&n);
	printf("%s 2 - the runtime bound is the simulator (%d devices)\n",
	       r == hipSuccess && n > 0 ? "ok" : "not ok", n);
	return 0;
}
