/* SPDX-License-Identifier: MIT */
/*
 * fake_hip.c - a few functions of a HIP runtime (a libamdhip64.so.5 stand-in
 * for the shim's tests and bench_preload): enough for the paths the
 * simulator cannot take, such as hipGetProcAddress (ROCm 5.2 and the
 * simulator lack it), or a million live allocations in a second.
 *
 * Memory comes from one big reserved, never touched arena (a bump pointer
 * per thread; frees do nothing, see FAKE_HIP_REUSE below): addresses only,
 * as a GPU's would be.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define API __attribute__((visibility("default")))
#define ARENA ((size_t)64 << 30)

static int last_error;
static char *arena;
static size_t arena_size;	/* ARENA, or less where that much cannot be reserved */
static size_t arena_used;

/* Each thread bumps in its own chunk of the arena, so that the runtime
 * itself scales with threads (bench_preload's two-thread case measures the
 * shim, not a shared counter here). */
#define CHUNK ((size_t)16 << 20)
static __thread char *t_cur, *t_end;
static __thread char *t_last;	/* this thread's last allocation */

static char *arena_get(void)
{
	char *a = __atomic_load_n(&arena, __ATOMIC_ACQUIRE);

	if (!a) {
		/* valgrind, for one, reserves no more than a few GiB */
		size_t size = ARENA;
		char *m = MAP_FAILED, *none = NULL;

		for (; m == MAP_FAILED && size >= ((size_t)1 << 30); size /= 4)
			m = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				 -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		size *= 4;
		if (!__atomic_compare_exchange_n(&arena, &none, m, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
			munmap(m, size);
		} else {
			__atomic_store_n(&arena_size, size, __ATOMIC_RELEASE);
		}
		a = __atomic_load_n(&arena, __ATOMIC_ACQUIRE);
	}
	return a;
}

static void *bump(size_t n)
{
	char *a = arena_get(), *p;
	size_t off, take;

	if (!a)
		return NULL;
	n = (n + 255) & ~(size_t)255;
	if (!t_cur || (size_t)(t_end - t_cur) < n) {
		size_t size;

		take = n > CHUNK ? n : CHUNK;
		off = __atomic_fetch_add(&arena_used, take, __ATOMIC_RELAXED);

		/* the thread that published the arena stores its size next */
		while (!(size = __atomic_load_n(&arena_size, __ATOMIC_ACQUIRE)))
			;
		if (off + take > size)
			return NULL;
		t_cur = a + off;
		t_end = t_cur + take;
	}
	p = t_cur;
	t_cur += n;
	t_last = p;
	return p;
}

static int alloc(void **p, size_t n)
{
	if (!p)
		return last_error = 1;
	if (!n) {
		*p = NULL;
		return 0;
	}
	*p = bump(n);
	return *p ? 0 : (last_error = 2);
}

API int hipMalloc(void **p, size_t n)
{
	return alloc(p, n);
}

API int hipHostMalloc(void **p, size_t n, unsigned flags)
{
	(void)flags;
	return alloc(p, n);
}

/* FAKE_HIP_REUSE=1: a free of this thread's last allocation gives its
 * bytes back to the bump pointer, so that an allocation+free pair gets the
 * same address every time, as a real runtime's cache hands the freed block
 * out again (bench_preload's "reuse" thread row). Otherwise, and by
 * default, addresses are never reused. */
static int reuse = -1;

API int hipFree(void *p)
{
	if (reuse < 0) {
		const char *e = getenv("FAKE_HIP_REUSE");

		reuse = e && e[0] == '1';
	}
	if (reuse && p && p == t_last) {
		t_cur = p;
		t_last = NULL;
	}
	return 0;
}

API int hipHostFree(void *p)
{
	(void)p;
	return 0;
}

API int hipGetDevice(int *d)
{
	*d = 0;
	return 0;
}

API int hipGetDeviceCount(int *n)
{
	*n = 1;
	return 0;
}

API int hipGetLastError(void)
{
	int e = last_error;

	last_error = 0;
	return e;
}

/* A call that allocates nothing for the program but makes the runtime
 * allocate and free internally through the global scope (as a real
 * runtime's PLT calls do): with the shim preloaded those reach its
 * wrappers, from inside this call. */
API int hipMemPoolTrimTo(void *pool, size_t keep)
{
	/* the program's scope (RTLD_DEFAULT would find this library's own
	 * functions first: it is linked -Bsymbolic) */
	void *prog = dlopen(NULL, RTLD_NOW);
	int (*m)(void **, size_t) = prog ? (int (*)(void **, size_t))dlsym(prog, "hipMalloc") : NULL;
	int (*f)(void *) = prog ? (int (*)(void *))dlsym(prog, "hipFree") : NULL;
	void *p = NULL;

	(void)pool;
	(void)keep;
	if (!m || !f || m(&p, 1 << 20) || f(p))
		return 1;
	return 0;
}

API int hipGetProcAddress(const char *sym, void **pfn, int ver, uint64_t flags, void *status)
{
	(void)ver;
	(void)flags;
	(void)status;
	if (!sym || !pfn)
		return 1;
	if (!strcmp(sym, "hipMalloc"))
		*pfn = (void *)hipMalloc;
	else if (!strcmp(sym, "hipFree"))
		*pfn = (void *)hipFree;
	else if (!strcmp(sym, "hipGetDevice"))
		*pfn = (void *)hipGetDevice;
	else
		return 500;	/* hipErrorNotFound */
	return 0;
}
