/* SPDX-License-Identifier: MIT */
/*
 * ucx_wrap.c - the unmap hooks when UCX's memory hooks are in the process
 * too (docs/limits.md, "UCX beside the shim").
 *
 * UCX's ucm (loaded by Open MPI's UCX PML, or by any UCX user) hooks the
 * same calls, so that its registration cache hears of unmaps, and finds the
 * function to forward to with dlsym(RTLD_NEXT) from its own library: with
 * the shim preloaded (before or after libucm) that is the shim's munmap.
 * In reloc mode it rewrites the GOT entries of every loaded object to its
 * own function, which then calls the shim's: both see every unmap. In
 * bistro mode (UCX 1.13's default on x86-64) it overwrites the start of the
 * function it found, the shim's exported munmap, with a jump to its own,
 * which then makes the system call itself: the shim's body never runs, and
 * no unmap is coordinated (tests/jobs/ucx.py shows both, 0 tracked unmaps
 * in bistro mode without what follows).
 *
 * UCX's own extension point covers every case: a handler of its native
 * events with a negative priority runs before UCX calls the original
 * function, and UCX calls it only while the event's result is still the
 * failure value. So once libucm is loaded, the shim adds such a handler
 * (UCM_EVENT_FLAG_NO_INSTALL: it never makes UCX install a hook it would
 * not have installed); for a range it tracks, the handler runs the shim's
 * coordinated unmap and stores the result, and UCX then skips its own call.
 * UCX has already sent its VM_UNMAPPED event by then: its cache hears of the
 * unmap as before. Ranges the shim does not track are left to UCX. In reloc
 * mode the handler so does what UCX's forward to the shim would have done.
 * Were a bistro patch ever on libc's function instead (a shim that UCX's
 * lookup does not find), the shim's hook would run first and its real call
 * come back to the handler with the shim's guard up: the handler then
 * stands aside.
 *
 * libucm is looked for at each HIP allocation or free (run() in wrap.h)
 * until it is found, and only when the set of loaded objects changed (a
 * dl_iterate_phdr call, about 180 instructions). Only in a process that may
 * use UCX: one started by a launcher (a rank variable, outname.h), with a
 * UCX_ variable, or with MPI or UCX among the objects it started with.
 * Others pay one load per call.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>

#include "boot.h"
#include "shim/outname.h"
#include "shim/shim.h"
#include "ucx.h"
#include "unmap.h"

#if HIPSVM_HAVE_UCM
#include <ucm/api/ucm.h>

typedef ucs_status_t (*set_handler_fn)(int, int, ucm_event_callback_t, void *);

/* Before the original (< 0), after every other handler that wants the
 * memory still mapped. */
#define SHIM_PRIORITY (-1)
#define EVENTS (UCM_EVENT_MUNMAP | UCM_EVENT_MMAP | UCM_EVENT_MREMAP | UCM_EVENT_MADVISE | \
		UCM_EVENT_SHMDT)

int hipsvm_ucx_joined;		/* ucx.h */
/* inside the handler on this thread: a call it makes that comes back
 * through UCX's hook (bistro on libc) is UCX's to finish */
static __thread int in_handler __attribute__((tls_model("initial-exec")));
static unsigned long long seen_adds;	/* dlpi_adds when last looked */

/* Runs the call through the shim when it may take tracked memory; false
 * leaves it to UCX. */
static bool through_shim(struct hipsvm_unmap_call *c, long *r)
{
	if (hipsvm_tls.guard || in_handler || !hipsvm_ready())
		return false;	/* the shim's own real call, or no shim */
	if (c->op != HIPSVM_UNMAP_SHMDT && (!c->takes || hipsvm_unmap_untracked(c->addr, c->len)))
		return false;
	in_handler = 1;
	*r = hipsvm_unmap_call_run(c);
	in_handler = 0;
	return true;
}

static void on_event(ucm_event_type_t type, ucm_event_t *ev, void *arg)
{
	struct hipsvm_unmap_call c = { .takes = true };
	long r;

	(void)arg;
	switch (type) {
	case UCM_EVENT_MUNMAP:
		if (ev->munmap.result != -1)
			return;
		c.op = HIPSVM_UNMAP_MUNMAP;
		c.addr = ev->munmap.address;
		c.len = ev->munmap.size;
		if (through_shim(&c, &r))
			ev->munmap.result = (int)r;
		return;
	case UCM_EVENT_MMAP:
		if (ev->mmap.result != MAP_FAILED || !(ev->mmap.flags & MAP_FIXED))
			return;
		c.op = HIPSVM_UNMAP_MMAP_FIXED;
		c.addr = ev->mmap.address;
		c.len = ev->mmap.size;
		c.prot = ev->mmap.prot;
		c.flags = ev->mmap.flags;
		c.fd = ev->mmap.fd;
		c.off = ev->mmap.offset;
		if (through_shim(&c, &r))
			ev->mmap.result = (void *)r;
		return;
	case UCM_EVENT_MREMAP:
		/* UCX passes no new address: MREMAP_FIXED is not its to forward */
		if (ev->mremap.result != MAP_FAILED || (ev->mremap.flags & MREMAP_FIXED))
			return;
		c.op = HIPSVM_UNMAP_MREMAP;
		c.addr = ev->mremap.address;
		c.len = ev->mremap.old_size;
		c.new_size = ev->mremap.new_size;
		c.flags = ev->mremap.flags;
		if (through_shim(&c, &r))
			ev->mremap.result = (void *)r;
		return;
	case UCM_EVENT_MADVISE:
		if (ev->madvise.result != -1)
			return;
		c.op = HIPSVM_UNMAP_MADVISE;
		c.addr = ev->madvise.addr;
		c.len = ev->madvise.length;
		c.advice = ev->madvise.advice;
		c.takes = hipsvm_madvise_drops_pages(c.advice);
		if (through_shim(&c, &r))
			ev->madvise.result = (int)r;
		return;
	case UCM_EVENT_SHMDT:
		if (ev->shmdt.result != -1)
			return;
		c.op = HIPSVM_UNMAP_SHMDT;
		c.addr = (void *)ev->shmdt.shmaddr;
		if (through_shim(&c, &r))
			ev->shmdt.result = (int)r;
		return;
	default:
		return;
	}
}

extern char **environ;

static int mpi_or_ucx_loaded(struct dl_phdr_info *info, size_t size, void *data)
{
	static const char *const names[] = { "/libmpi", "/libucp.", "/libucs.", "/libucm.", NULL };
	size_t i;

	(void)size;
	for (i = 0; names[i]; i++)
		if (info->dlpi_name && strstr(info->dlpi_name, names[i])) {
			*(int *)data = 1;
			return 1;
		}
	return 0;
}

/* Could this process come to load UCX? Asked once. */
static bool may_use_ucx(void)
{
	char **e;
	int i, found = 0;

	for (e = environ; e && *e; e++) {
		if (!strncmp(*e, "UCX_", 4))
			return true;
		for (i = 0; hipsvm_rank_vars[i]; i++) {
			size_t n = strlen(hipsvm_rank_vars[i]);

			if (!strncmp(*e, hipsvm_rank_vars[i], n) && (*e)[n] == '=')
				return true;
		}
	}
	dl_iterate_phdr(mpi_or_ucx_loaded, &found);
	return found != 0;
}

static int first_adds(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(unsigned long long *)data = info->dlpi_adds;
	return 1;
}

void hipsvm_ucx_join_slow(void)
{
	unsigned long long adds = 0;
	set_handler_fn set;
	void *h;
	int saved;

	if (__builtin_expect(__atomic_load_n(&hipsvm_ucx_joined, __ATOMIC_ACQUIRE), 1))
		return;
	saved = errno;
	if (!__atomic_load_n(&seen_adds, __ATOMIC_RELAXED) && !may_use_ucx()) {
		__atomic_store_n(&hipsvm_ucx_joined, 2, __ATOMIC_RELEASE);
		goto out;
	}
	dl_iterate_phdr(first_adds, &adds);
	if (adds == __atomic_load_n(&seen_adds, __ATOMIC_RELAXED))
		goto out;
	__atomic_store_n(&seen_adds, adds, __ATOMIC_RELAXED);
	h = dlopen("libucm.so.0", RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		goto out;
	set = (set_handler_fn)dlsym(h, "ucm_set_event_handler");
	/* two threads may both get here: only one adds the handler */
	if (set && __atomic_exchange_n(&hipsvm_ucx_joined, 1, __ATOMIC_ACQ_REL) != 1 &&
	    set(EVENTS | UCM_EVENT_FLAG_NO_INSTALL, SHIM_PRIORITY, on_event, NULL) != UCS_OK)
		__atomic_store_n(&hipsvm_ucx_joined, 0, __ATOMIC_RELEASE);
	/* the handle stays open: UCX's handler list holds our function */
out:
	errno = saved;
}

#else

int hipsvm_ucx_joined = 2;	/* built without UCX's header: never */

void hipsvm_ucx_join_slow(void)
{
}

#endif
