/* SPDX-License-Identifier: MIT */
/*
 * pl_malloc.c - a preloadable allocator that maps every block and unmaps it
 * on free through the PLT, as allocators do (jemalloc's munmap/madvise
 * broke libfabric's hooks). With it preloaded after the shim, dlsym's own
 * allocations during the shim's start-up re-enter the shim's munmap, and so
 * does every free of the runtime, while the runtime holds its locks.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define API __attribute__((visibility("default")))
#define HDR 64	/* keeps 64-byte alignment; holds the mapping's size */

static void *block(size_t n, size_t align)
{
	size_t total, off;
	char *p;

	if (align < HDR)
		align = HDR;
	if (n > SIZE_MAX / 2 || align > 65536) {
		errno = ENOMEM;
		return NULL;
	}
	total = (n + align + HDR + 4095) & ~(size_t)4095;
	p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	off = (align - ((uintptr_t)(p + HDR) % align)) % align;
	((size_t *)(p + off))[0] = total;
	((size_t *)(p + off))[1] = off;
	return p + off + HDR;
}

static size_t *hdr(void *q)
{
	return (size_t *)((char *)q - HDR);
}

API void *malloc(size_t n)
{
	return block(n, HDR);
}

API void free(void *q)
{
	size_t *h;

	if (!q)
		return;
	h = hdr(q);
	munmap((char *)h - h[1], h[0]);
}

API void *calloc(size_t a, size_t b)
{
	if (b && a > SIZE_MAX / b) {
		errno = ENOMEM;
		return NULL;
	}
	return block(a * b, HDR);	/* fresh mappings are zero */
}

API size_t malloc_usable_size(void *q)
{
	size_t *h = hdr(q);

	return q ? h[0] - h[1] - HDR : 0;
}

API void *realloc(void *q, size_t n)
{
	void *r;
	size_t old;

	if (!q)
		return malloc(n);
	if (!n) {
		free(q);
		return NULL;
	}
	r = malloc(n);
	if (!r)
		return NULL;
	old = malloc_usable_size(q);
	memcpy(r, q, old < n ? old : n);
	free(q);
	return r;
}

API int posix_memalign(void **out, size_t align, size_t n)
{
	void *p = block(n, align);

	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

API void *aligned_alloc(size_t align, size_t n)
{
	return block(n, align);
}

API void *memalign(size_t align, size_t n)
{
	return block(n, align);
}
