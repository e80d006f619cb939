/* SPDX-License-Identifier: MIT */
/*
 * seam.c - real functions (contract in seam.h).
 */
#include "seam.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/unmap_args.h"

static const char *const hip_sonames[] = {
	"libamdhip64.so.6",
	"libamdhip64.so.5",
	"libamdhip64.so",
};

#define MAX_COPIES 4

/* Paths of loaded runtimes. Collected first and opened after the walk:
 * dlopen inside the callback would run under the loader's list lock. */
struct phdr_search {
	unsigned n;
	char path[MAX_COPIES][HIPSVM_SEAM_PATH];
};

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct phdr_search *ps = arg;
	const char *base;
	size_t len;

	(void)size;
	if (!info->dlpi_name || !info->dlpi_name[0] || ps->n >= MAX_COPIES)
		return 0;
	base = strrchr(info->dlpi_name, '/');
	base = base ? base + 1 : info->dlpi_name;
	len = strlen(info->dlpi_name);
	if (strncmp(base, "libamdhip64", 11) != 0 || len >= sizeof(ps->path[0]))
		return 0;
	memcpy(ps->path[ps->n++], info->dlpi_name, len + 1);
	return 0;
}

void *hipsvm_seam_hip(const char *name)
{
	struct phdr_search ps;
	void *p, *h;
	size_t i;

	p = dlsym(RTLD_NEXT, name);
	if (p)
		return p;
	for (i = 0; i < sizeof(hip_sonames) / sizeof(hip_sonames[0]); i++) {
		h = dlopen(hip_sonames[i], RTLD_NOLOAD | RTLD_LAZY);
		if (!h)
			continue;
		p = dlsym(h, name);
		dlclose(h);
		if (p)
			return p;
	}
	ps.n = 0;
	dl_iterate_phdr(phdr_cb, &ps);
	for (i = 0; i < ps.n; i++) {
		h = dlopen(ps.path[i], RTLD_NOLOAD | RTLD_LAZY);
		if (!h)
			continue;
		p = dlsym(h, name);
		dlclose(h);	/* NOLOAD took a reference; the object stays */
		if (p)
			return p;
	}
	return NULL;
}

unsigned hipsvm_seam_hip_copies(char first[HIPSVM_SEAM_PATH], char second[HIPSVM_SEAM_PATH])
{
	struct phdr_search ps;

	ps.n = 0;
	dl_iterate_phdr(phdr_cb, &ps);
	memcpy(first, ps.n > 0 ? ps.path[0] : "", ps.n > 0 ? strlen(ps.path[0]) + 1 : 1);
	memcpy(second, ps.n > 1 ? ps.path[1] : "", ps.n > 1 ? strlen(ps.path[1]) + 1 : 1);
	return ps.n;
}

void *hipsvm_seam_libc(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

const char *hipsvm_seam_where(const void *p)
{
	Dl_info info;

	if (p && dladdr(p, &info) && info.dli_fname)
		return info.dli_fname;
	return "";
}

void hipsvm_seam_vm_limits(struct hipsvm_vm_limits *out)
{
	static uintptr_t page, top;	/* written once, racy but idempotent */
	uintptr_t p = __atomic_load_n(&page, __ATOMIC_ACQUIRE);

	if (!p) {
		uintptr_t t = UINTPTR_MAX;
		int saved = errno;

		p = (uintptr_t)getauxval(AT_PAGESZ);
		if (!p || (p & (p - 1)))
			p = 4096;
#if defined(__x86_64__)
		/* A hint above 2^47 is honoured only with 5-level paging. */
		{
			void *q = hipsvm_sys_mmap((void *)(UINT64_C(1) << 48), p, PROT_NONE,
						  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
			bool la57 = q != MAP_FAILED && (uintptr_t)q >= (UINT64_C(1) << 47);

			if (q != MAP_FAILED)
				hipsvm_sys_munmap(q, p);
			t = ((la57 ? UINT64_C(1) << 56 : UINT64_C(1) << 47)) - p;
		}
#endif
		errno = saved;
		__atomic_store_n(&top, t, __ATOMIC_RELAXED);
		__atomic_store_n(&page, p, __ATOMIC_RELEASE);
	}
	out->page = p;
	out->top = __atomic_load_n(&top, __ATOMIC_RELAXED);
}

int hipsvm_sys_munmap(void *addr, size_t len)
{
	return (int)syscall(SYS_munmap, addr, len);
}

void *hipsvm_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

void *hipsvm_sys_mremap(void *old, size_t old_size, size_t new_size, int flags, void *new_addr)
{
	return (void *)syscall(SYS_mremap, old, old_size, new_size, flags, new_addr);
}

int hipsvm_sys_madvise(void *addr, size_t len, int advice)
{
	return (int)syscall(SYS_madvise, addr, len, advice);
}

int hipsvm_sys_shmdt(const void *addr)
{
	return (int)syscall(SYS_shmdt, addr);
}
