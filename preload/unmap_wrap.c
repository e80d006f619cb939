/* SPDX-License-Identifier: MIT */
/*
 * unmap_wrap.c - munmap, mremap, madvise and mmap(MAP_FIXED): every unmap of
 * the process comes through here, and shmdt (shm_wrap.c) joins the same
 * path (unmap.h).
 *
 * The fast path (a range the shim does not track, which is nearly every
 * call) is inline in each wrapper: the thread's guard and hipFree marker,
 * the granule bitmap's bit for the range (one load when the range lies in
 * one 2 MiB granule), and the real function. Everything else goes to
 * hipsvm_unmap_call_run: only a range that touches tracked SVM memory
 * reaches the core (shim_unmap.c). A call made while the thread is already
 * inside the shim (dlsym allocating during boot, an allocator's munmap
 * during the registry update) goes straight to the system call.
 */
/* Both mmap and mmap64 are exported (the same function on 64-bit glibc;
 * a program built with _FILE_OFFSET_BITS=64 calls the latter): see them
 * under their own names here. */
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/shm.h>

#include "boot.h"
#include "hip_abi.h"
#include "seam.h"
#include "shim/shim.h"
#include "table.h"
#include "unmap.h"
#include "shim/unmap_args.h"

typedef int (*munmap_fn)(void *, size_t);
typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
typedef void *(*mremap_fn)(void *, size_t, size_t, int, ...);
typedef int (*madvise_fn)(void *, size_t, int);
typedef int (*shmdt_fn)(const void *);

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

static int real_munmap(void *addr, size_t len)
{
	munmap_fn f = (munmap_fn)hipsvm_libc_real(HIPSVM_ROW_munmap);

	return f ? f(addr, len) : hipsvm_sys_munmap(addr, len);
}

static void *real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	mmap_fn f = (mmap_fn)hipsvm_libc_real(HIPSVM_ROW_mmap);

	return f ? f(addr, len, prot, flags, fd, off) :
		   hipsvm_sys_mmap(addr, len, prot, flags, fd, off);
}

static void *real_mremap(void *old, size_t old_size, size_t new_size, int flags, void *new_addr)
{
	mremap_fn f = (mremap_fn)hipsvm_libc_real(HIPSVM_ROW_mremap);

	return f ? f(old, old_size, new_size, flags, new_addr) :
		   hipsvm_sys_mremap(old, old_size, new_size, flags, new_addr);
}

static int real_madvise(void *addr, size_t len, int advice)
{
	madvise_fn f = (madvise_fn)hipsvm_libc_real(HIPSVM_ROW_madvise);

	return f ? f(addr, len, advice) : hipsvm_sys_madvise(addr, len, advice);
}

static int real_shmdt(const void *addr)
{
	shmdt_fn f = (shmdt_fn)hipsvm_libc_real(HIPSVM_ROW_shmdt);

	return f ? f(addr) : hipsvm_sys_shmdt(addr);
}

/* ---- the call, made once per call ---- */

/* The call itself: the real function, or (sys) the system call, for a
 * call made from inside the shim. */
static long perform(const struct hipsvm_unmap_call *c, bool sys)
{
	switch (c->op) {
	case HIPSVM_UNMAP_MUNMAP:
		return sys ? hipsvm_sys_munmap(c->addr, c->len) : real_munmap(c->addr, c->len);
	case HIPSVM_UNMAP_MMAP_FIXED:
		return (long)(sys ? hipsvm_sys_mmap(c->addr, c->len, c->prot, c->flags, c->fd, c->off) :
				    real_mmap(c->addr, c->len, c->prot, c->flags, c->fd, c->off));
	case HIPSVM_UNMAP_MREMAP:
		return (long)(sys ? hipsvm_sys_mremap(c->addr, c->len, c->new_size, c->flags,
						      c->new_addr) :
				    real_mremap(c->addr, c->len, c->new_size, c->flags, c->new_addr));
	case HIPSVM_UNMAP_MADVISE:
		return sys ? hipsvm_sys_madvise(c->addr, c->len, c->advice) :
			     real_madvise(c->addr, c->len, c->advice);
	case HIPSVM_UNMAP_SHMDT:
		return sys ? hipsvm_sys_shmdt(c->addr) : real_shmdt(c->addr);
	default:
		errno = EINVAL;
		return -1;
	}
}

/* The core decides (shim.h, hipsvm_unmap_call_begin); this file only
 * makes the calls. A call while this thread is already inside the shim (a
 * signal handler that interrupted the unmap path, an allocator called from
 * dlsym or from the registry) goes straight to the system call (shmdt's
 * extent is not read from there). */
long hipsvm_unmap_call_run(struct hipsvm_unmap_call *c)
{
	struct hipsvm_vm_limits limits;
	struct hipsvm_unmap u, t;
	struct hipsvm_shim *s;
	int cancel;
	long r;

	if (UNLIKELY(hipsvm_tls.guard)) {
		s = hipsvm_ready();
		if (s)
			hipsvm_unmap_call_reentered(s, c);
		return perform(c, true);
	}
	s = hipsvm_ready();
	if (!c->takes || !s)
		return perform(c, false);
	if (c->op == HIPSVM_UNMAP_SHMDT) {
		if (!hipsvm_unmap_call_needs_extent(s))
			return perform(c, false);
		c->len = hipsvm_shm_extent((uintptr_t)c->addr);
	}
	hipsvm_seam_vm_limits(&limits);
	/* munmap, mremap, madvise and shmdt are no cancellation points, but the
	 * hook's round trips (poll, send, recv) are: a thread cancelled while
	 * it waited for a drain would die between set and clear, its
	 * checkpoint never cleared and the unmap half done. A cancel that
	 * comes meanwhile is acted on at the thread's next cancellation point,
	 * after the call has returned, as without the shim. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	if (!hipsvm_unmap_call_begin(s, c, &u, &t, &limits)) {
		pthread_setcancelstate(cancel, NULL);
		return perform(c, false);
	}
	{
		HIPSVM_GUARDED();
		r = perform(c, false);
		hipsvm_unmap_call_end(s, c, &u, &t, r);
	}
	pthread_setcancelstate(cancel, NULL);
	return r;
}

/* ---- the exported functions ---- */

/* Out of line, so that the fast path sets up no frame: it is a check and
 * a tail call. */
static __attribute__((noinline)) int munmap_slow(void *addr, size_t len)
{
	struct hipsvm_unmap_call c = { .op = HIPSVM_UNMAP_MUNMAP, .takes = true, .addr = addr,
				       .len = len };

	if (hipsvm_unmap_untracked(addr, len))
		return real_munmap(addr, len);
	return (int)hipsvm_unmap_call_run(&c);
}

HIPSVM_EXPORT int munmap(void *addr, size_t len)
{
	munmap_fn f = (munmap_fn)hipsvm_real_loaded(HIPSVM_ROW_munmap);

	if (LIKELY(f != NULL && hipsvm_unmap_untracked_one(addr, len)))
		return f(addr, len);
	return munmap_slow(addr, len);
}

/* Everything but a plain mmap outside the shim (MAP_FIXED, or the guard
 * held, or libc's mmap not resolved yet), out of line. */
static __attribute__((noinline)) void *mmap_other(void *addr, size_t len, int prot, int flags,
						  int fd, off_t off)
{
	/* Only MAP_FIXED replaces what is there (MAP_FIXED_NOREPLACE fails
	 * instead). */
	struct hipsvm_unmap_call c = { .op = HIPSVM_UNMAP_MMAP_FIXED,
				       .takes = (flags & MAP_FIXED) != 0, .addr = addr, .len = len,
				       .prot = prot, .flags = flags, .fd = fd, .off = off };

	if (!c.takes ? !hipsvm_tls.guard : hipsvm_unmap_untracked(addr, len))
		return real_mmap(addr, len, prot, flags, fd, off);
	return (void *)hipsvm_unmap_call_run(&c);
}

/* Every hipMalloc of the runtime maps through here: a plain mmap is two
 * tests and a tail call. */
static inline void *wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (LIKELY(!(flags & MAP_FIXED) && !hipsvm_tls.guard)) {
		mmap_fn f = (mmap_fn)hipsvm_real_loaded(HIPSVM_ROW_mmap);

		if (LIKELY(f != NULL))
			return f(addr, len, prot, flags, fd, off);
	}
	return mmap_other(addr, len, prot, flags, fd, off);
}

HIPSVM_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return wrap_mmap(addr, len, prot, flags, fd, off);
}

HIPSVM_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	return wrap_mmap(addr, len, prot, flags, fd, (off_t)off);
}

HIPSVM_EXPORT void *mremap(void *old, size_t old_size, size_t new_size, int flags, ...)
{
	struct hipsvm_unmap_call c = { .op = HIPSVM_UNMAP_MREMAP, .takes = true, .addr = old,
				       .len = old_size, .flags = flags, .new_size = new_size };
	va_list ap;

	va_start(ap, flags);
	if (flags & MREMAP_FIXED)
		c.new_addr = va_arg(ap, void *);
	va_end(ap);
	if (LIKELY(hipsvm_unmap_untracked(old, old_size) &&
		   (!(flags & MREMAP_FIXED) || hipsvm_unmap_untracked(c.new_addr, new_size))))
		return real_mremap(old, old_size, new_size, flags, c.new_addr);
	return (void *)hipsvm_unmap_call_run(&c);
}

bool hipsvm_madvise_drops_pages(int advice)
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
	struct hipsvm_unmap_call c = { .op = HIPSVM_UNMAP_MADVISE, .takes = hipsvm_madvise_drops_pages(advice),
				       .addr = addr, .len = len, .advice = advice };

	if (LIKELY(!c.takes ? !hipsvm_tls.guard : hipsvm_unmap_untracked(addr, len)))
		return real_madvise(addr, len, advice);
	return (int)hipsvm_unmap_call_run(&c);
}
