/* SPDX-License-Identifier: MIT */
/*
 * nohip.c - a program not linked with HIP, for the seam's cases:
 *   none      hipMalloc reached through the shim with no runtime loaded
 *   local     a library using HIP loaded with dlopen(RTLD_LOCAL)
 *   procaddr  hipGetProcAddress of a runtime that has it (the fake)
 *   bundled   a runtime under a name of its own, loaded RTLD_LOCAL by path
 *   two       the system runtime (RTLD_GLOBAL) and a bundled copy (RTLD_LOCAL)
 *   inner     hipMemPoolTrimTo of the fake, which allocates inside the call
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int (*malloc_t)(void **, size_t);
typedef int (*free_t)(void *);
typedef int (*gpa_t)(const char *, void **, int, uint64_t, void *);

static int none(void)
{
	malloc_t m = (malloc_t)dlsym(RTLD_DEFAULT, "hipMalloc");
	void *p = NULL;

	if (!m) {
		printf("no hipMalloc\n");
		return 0;
	}
	printf("hipMalloc %d\n", m(&p, 4096));
	printf("hipMalloc again %d\n", m(&p, 4096));
	return 0;
}

static int local(const char *lib)
{
	void *h = dlopen(lib, RTLD_LOCAL | RTLD_NOW);
	int (*run)(void);

	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return 2;
	}
	run = (int (*)(void))dlsym(h, "pl_local_run");
	return run ? run() : 3;
}

static int procaddr(void)
{
	void *h = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_GLOBAL);
	gpa_t gpa = (gpa_t)dlsym(RTLD_DEFAULT, "hipGetProcAddress");
	malloc_t m = NULL;
	free_t f = NULL;
	void *p = NULL;

	if (!h || !gpa) {
		printf("no runtime or no hipGetProcAddress\n");
		return 2;
	}
	printf("hipGetProcAddress(hipMalloc) %d\n", gpa("hipMalloc", (void **)&m, 600, 0, NULL));
	printf("hipGetProcAddress(hipFree) %d\n", gpa("hipFree", (void **)&f, 600, 0, NULL));
	printf("hipGetProcAddress(nosuch) %d\n", gpa("hipNoSuch", (void **)&f, 600, 0, NULL));
	printf("is the shim's %d\n", m && (void *)m == dlsym(RTLD_DEFAULT, "hipMalloc"));
	printf("is the runtime's %d\n", m && (void *)m == dlsym(h, "hipMalloc"));
	gpa("hipFree", (void **)&f, 600, 0, NULL);
	if (m && f) {
		printf("(*hipMalloc) %d\n", m(&p, 4096));
		printf("(*hipFree) %d\n", f(p));
	}
	return 0;
}

static int bundled(const char *path)
{
	void *h = dlopen(path, RTLD_LOCAL | RTLD_NOW);
	malloc_t m = (malloc_t)dlsym(RTLD_DEFAULT, "hipMalloc");
	free_t f = (free_t)dlsym(RTLD_DEFAULT, "hipFree");
	void *p = NULL;

	if (!h || !m || !f) {
		printf("no runtime or no hipMalloc\n");
		return 2;
	}
	printf("hipMalloc %d\n", m(&p, 4096));
	printf("hipFree %d\n", f(p));
	return 0;
}

static int two(const char *path)
{
	void *sys = dlopen("libamdhip64.so.5", RTLD_GLOBAL | RTLD_NOW);

	if (!sys) {
		printf("no system runtime\n");
		return 2;
	}
	return bundled(path);
}

static int inner(void)
{
	void *h = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_GLOBAL);
	int (*trim)(void *, size_t) = (int (*)(void *, size_t))dlsym(RTLD_DEFAULT,
								     "hipMemPoolTrimTo");
	malloc_t m = (malloc_t)dlsym(RTLD_DEFAULT, "hipMalloc");
	void *p = NULL;

	if (!h || !trim || !m) {
		printf("no runtime\n");
		return 2;
	}
	printf("hipMemPoolTrimTo %d\n", trim(NULL, 0));
	printf("hipMalloc %d\n", m(&p, 4096));
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "none"))
		return none();
	if (argc > 2 && !strcmp(argv[1], "local"))
		return local(argv[2]);
	if (argc > 1 && !strcmp(argv[1], "procaddr"))
		return procaddr();
	if (argc > 2 && !strcmp(argv[1], "bundled"))
		return bundled(argv[2]);
	if (argc > 2 && !strcmp(argv[1], "two"))
		return two(argv[2]);
	if (argc > 1 && !strcmp(argv[1], "inner"))
		return inner();
	return 64;
}
