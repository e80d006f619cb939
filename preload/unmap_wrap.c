/* SPDX-License-Identifier: MIT */
/*
 * unmap_wrap.c - munmap, mremap, madvise and mmap(MAP_FIXED): every unmap of
 * the process comes through here.
 *
 * The fast path (a range the shim does not track, which is nearly every
 * call) is: the thread's guard, one acquire load, hipsvm_reg_touches (a few
 * loads, no lock, no allocation, no shared write), a thread-local load, and
 * the real function. Only a range that touches tracked SVM memory goes to
 * the core (shim_unmap.c). A call made while the thread is already inside
 * the shim (dlsym allocating during boot, an allocator's munmap during the
 * registry update) goes straight to the system call.
 */
/* Both mmap and mmap64 are exported (the same function on 64-bit glibc;
 * a program built with _FILE_OFFSET_BITS=64 calls the latter): see them
 * under their own names here. */
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/shm.h>

#include "boot.h"
#include "hip_abi.h"
#include "seam.h"
#include "shim.h"
#include "table.h"
#include "unmap_args.h"

typedef int (*munmap_fn)(void *, size_t);
typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
typedef void *(*mremap_fn)(void *, size_t, size_t, int, ...);
typedef int (*madvise_fn)(void *, size_t, int);

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

static int real_munmap(void *addr, size_t len)
{
	munmap_fn f = (munmap_fn)hipsvm_libc_real(HIPSVM_ROW_munmap);

	return f ? f(addr, len) : hipsvm_sys_munmap(addr, len);
}

/* Could [addr, addr + len) be tracked SVM memory (or memory being freed by
 * this thread's hipFree)? */
static inline bool maybe_tracked(struct hipsvm_shim *s, const void *addr, size_t len)
{
	return hipsvm_reg_touches(s->reg, (uintptr_t)addr, len, HIPSVM_SVM_KIND_MASK) != 0 ||
	       UNLIKELY(hipsvm_tls.freeing != NULL);
}

/* An unmap while this thread is already inside the shim: a signal handler
 * that interrupted the unmap path, or an allocator called from dlsym or
 * from the registry. Straight to the system call; if it takes tracked
 * memory, count it (the registry keeps the stale entry until the free). */
static void reentered(const void *addr, size_t len)
{
	struct hipsvm_shim *s = hipsvm_ready();

	if (s && hipsvm_reg_touches(s->reg, (uintptr_t)addr, len, HIPSVM_SVM_KIND_MASK) != 0)
		hipsvm_unmap_reentered(s);
}

/* The kernel would refuse the call (err != 0): it unmaps nothing, so it
 * must not take anything from the GPUs either. Slow path only. */
static bool refused(struct hipsvm_shim *s, int err)
{
	if (!err)
		return false;
	hipsvm_unmap_refused(s);
	return true;
}

static struct hipsvm_vm_limits limits(void)
{
	struct hipsvm_vm_limits l;

	hipsvm_seam_vm_limits(&l);
	return l;
}

HIPSVM_EXPORT int munmap(void *addr, size_t len)
{
	struct hipsvm_vm_limits lim;
	struct hipsvm_shim *s;
	struct hipsvm_unmap u;
	int rc, saved, active;

	if (UNLIKELY(hipsvm_tls.guard)) {
		reentered(addr, len);
		return hipsvm_sys_munmap(addr, len);
	}
	s = hipsvm_ready();
	if (LIKELY(!s || !maybe_tracked(s, addr, len)))
		return real_munmap(addr, len);
	lim = limits();
	if (refused(s, hipsvm_munmap_refusal(&lim, (uintptr_t)addr, len)))
		return real_munmap(addr, len);
	hipsvm_tls.guard++;
	active = hipsvm_unmap_begin(s, &u, HIPSVM_UNMAP_MUNMAP, (uintptr_t)addr, len);
	rc = real_munmap(addr, len);
	saved = errno;
	if (active)
		hipsvm_unmap_end(s, &u, rc == 0, (uintptr_t)addr, len);
	hipsvm_tls.guard--;
	errno = saved;
	return rc;
}

static void *real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	mmap_fn f = (mmap_fn)hipsvm_libc_real(HIPSVM_ROW_mmap);

	return f ? f(addr, len, prot, flags, fd, off) :
		   hipsvm_sys_mmap(addr, len, prot, flags, fd, off);
}

static void *wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct hipsvm_vm_limits lim;
	struct hipsvm_shim *s;
	struct hipsvm_unmap u;
	int saved, active;
	void *p;

	if (UNLIKELY(hipsvm_tls.guard)) {
		if (flags & MAP_FIXED)
			reentered(addr, len);
		return hipsvm_sys_mmap(addr, len, prot, flags, fd, off);
	}
	/* Only MAP_FIXED replaces what is there (MAP_FIXED_NOREPLACE fails
	 * instead). */
	if (LIKELY(!(flags & MAP_FIXED)))
		return real_mmap(addr, len, prot, flags, fd, off);
	s = hipsvm_ready();
	if (!s || !maybe_tracked(s, addr, len))
		return real_mmap(addr, len, prot, flags, fd, off);
	lim = limits();
	if (refused(s, hipsvm_mmap_refusal(&lim, (uintptr_t)addr, len, flags, off)))
		return real_mmap(addr, len, prot, flags, fd, off);
	hipsvm_tls.guard++;
	active = hipsvm_unmap_begin(s, &u, HIPSVM_UNMAP_MMAP_FIXED, (uintptr_t)addr, len);
	p = real_mmap(addr, len, prot, flags, fd, off);
	saved = errno;
	if (active)
		hipsvm_unmap_end(s, &u, p != MAP_FAILED, (uintptr_t)addr, len);
	hipsvm_tls.guard--;
	errno = saved;
	return p;
}

HIPSVM_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return wrap_mmap(addr, len, prot, flags, fd, off);
}

HIPSVM_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	return wrap_mmap(addr, len, prot, flags, fd, (off_t)off);
}

static void *real_mremap(void *old, size_t old_size, size_t new_size, int flags, void *new_addr)
{
	mremap_fn f = (mremap_fn)hipsvm_libc_real(HIPSVM_ROW_mremap);

	return f ? f(old, old_size, new_size, flags, new_addr) :
		   hipsvm_sys_mremap(old, old_size, new_size, flags, new_addr);
}

HIPSVM_EXPORT void *mremap(void *old, size_t old_size, size_t new_size, int flags, ...)
{
	struct hipsvm_vm_limits lim;
	struct hipsvm_shim *s;
	struct hipsvm_unmap u, t;
	void *new_addr = NULL, *p;
	int saved, active = 0, tactive = 0;
	bool fixed;
	va_list ap;

	va_start(ap, flags);
	if (flags & MREMAP_FIXED)
		new_addr = va_arg(ap, void *);
	va_end(ap);
	if (UNLIKELY(hipsvm_tls.guard)) {
		reentered(old, old_size);
		return hipsvm_sys_mremap(old, old_size, new_size, flags, new_addr);
	}
	s = hipsvm_ready();
	fixed = (flags & MREMAP_FIXED) != 0;
	if (LIKELY(!s || (!maybe_tracked(s, old, old_size) &&
			  !(fixed && maybe_tracked(s, new_addr, new_size)))))
		return real_mremap(old, old_size, new_size, flags, new_addr);
	lim = limits();
	if (refused(s, hipsvm_mremap_refusal(&lim, (uintptr_t)old, old_size, new_size, flags,
					     (uintptr_t)new_addr)))
		return real_mremap(old, old_size, new_size, flags, new_addr);
	hipsvm_tls.guard++;
	/* The old range leaves (moved or shrunk) and, with MREMAP_FIXED,
	 * whatever was at the new address is unmapped too. */
	active = hipsvm_unmap_begin(s, &u, HIPSVM_UNMAP_MREMAP, (uintptr_t)old, old_size);
	if (fixed && !active)
		tactive = hipsvm_unmap_begin(s, &t, HIPSVM_UNMAP_MREMAP, (uintptr_t)new_addr,
					     new_size);
	p = real_mremap(old, old_size, new_size, flags, new_addr);
	saved = errno;
	if (active) {
		uintptr_t a = (uintptr_t)old;
		size_t n = 0;

		if (p != MAP_FAILED && p != old)
			n = old_size;
		else if (p != MAP_FAILED && new_size < old_size) {
			a += new_size;
			n = old_size - new_size;
		}
		hipsvm_unmap_end(s, &u, p != MAP_FAILED, a, n);
	}
	if (tactive)
		hipsvm_unmap_end(s, &t, p != MAP_FAILED, (uintptr_t)new_addr, new_size);
	hipsvm_tls.guard--;
	errno = saved;
	return p;
}

static int real_madvise(void *addr, size_t len, int advice)
{
	madvise_fn f = (madvise_fn)hipsvm_libc_real(HIPSVM_ROW_madvise);

	return f ? f(addr, len, advice) : hipsvm_sys_madvise(addr, len, advice);
}

static bool drops_pages(int advice)
{
	switch (advice) {
	case MADV_DONTNEED:
	case MADV_FREE:
	case MADV_REMOVE:
#ifdef MADV_DONTNEED_LOCKED
	case MADV_DONTNEED_LOCKED:
#endif
		return true;
	default:
		return false;
	}
}

HIPSVM_EXPORT int madvise(void *addr, size_t len, int advice)
{
	struct hipsvm_vm_limits lim;
	struct hipsvm_shim *s;
	struct hipsvm_unmap u;
	int rc, saved, active;

	if (UNLIKELY(hipsvm_tls.guard)) {
		if (drops_pages(advice))
			reentered(addr, len);
		return hipsvm_sys_madvise(addr, len, advice);
	}
	if (LIKELY(!drops_pages(advice)))
		return real_madvise(addr, len, advice);
	s = hipsvm_ready();
	if (!s || !maybe_tracked(s, addr, len))
		return real_madvise(addr, len, advice);
	lim = limits();
	if (refused(s, hipsvm_madvise_refusal(&lim, (uintptr_t)addr, len)))
		return real_madvise(addr, len, advice);
	hipsvm_tls.guard++;
	active = hipsvm_unmap_begin(s, &u, HIPSVM_UNMAP_MADVISE, (uintptr_t)addr, len);
	rc = real_madvise(addr, len, advice);
	saved = errno;
	/* The pages go, the mapping and the allocation stay: nothing to
	 * remove from the registry. */
	if (active)
		hipsvm_unmap_end(s, &u, rc == 0, (uintptr_t)addr, 0);
	hipsvm_tls.guard--;
	errno = saved;
	return rc;
}
