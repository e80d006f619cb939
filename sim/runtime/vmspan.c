/* SPDX-License-Identifier: MIT */
/*
 * vmspan.c - which parts of an address range the CPU still maps, in a number
 * of system calls that grows with the mappings and holes of the range, not
 * with its pages: a drain of a 4 GiB unmap must cost what a drain of one
 * page does (docs/performance.md).
 *
 * Linux 6.11 and later answer "the mapping at or after this address" with
 * one ioctl on /proc/self/maps (PROCMAP_QUERY), without reading the text or
 * touching the mappings: one call per mapping of the range. Older kernels
 * get a bisection: msync(MS_ASYNC) (a no-op since 2.6.19 that still fails
 * with ENOMEM on any hole) says "all mapped"; an mmap with
 * MAP_FIXED_NOREPLACE of the range says "nothing mapped" and is undone at
 * once with the raw system call (not through the shim's hooked munmap: the
 * hook server runs inside the shim's munmap). That reservation is held for
 * the two calls only, and only over addresses that nothing maps; the thread
 * whose unmap emptied them is still waiting for this drain. Each answer
 * halves what is left, so a range with k pieces costs O(k log(pages)).
 */
#include "runtime/map.h"
#include "runtime/state.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* The ABI of include/uapi/linux/fs.h (Linux 6.11, struct procmap_query),
 * which Debian's headers may predate. Every field counts: the size is part
 * of the ioctl's number, and one field short (vma_offset was missing) the
 * kernel answers ENOTTY and every drain took the bisection. */
struct vm_query {
	uint64_t size, query_flags, query_addr, vma_start, vma_end, vma_flags, vma_page_size;
	uint64_t vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define VM_QUERY_COVERING_OR_NEXT 0x10
#define VM_QUERY_IOCTL _IOWR('f', 17, struct vm_query)
_Static_assert(sizeof(struct vm_query) == 104, "struct procmap_query is 104 bytes");

/* Up to *pos, which it moves; -ENOSYS when the kernel cannot answer. */
static int query_walk(uintptr_t *pos, uintptr_t end, sim_vm_fn fn, void *arg)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	uintptr_t p = *pos;
	int err = 0;

	if (fd < 0)
		return -ENOSYS;
	while (p < end) {
		struct vm_query q;

		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.query_flags = VM_QUERY_COVERING_OR_NEXT;
		q.query_addr = p;
		if (ioctl(fd, VM_QUERY_IOCTL, &q) != 0) {
			if (errno == ENOENT)
				break;		/* nothing at or after p */
			err = -ENOSYS;
			break;
		}
		if (q.vma_start >= end)
			break;
		fn(q.vma_start > p ? (uintptr_t)q.vma_start : p,
		   q.vma_end < end ? (uintptr_t)q.vma_end : end, arg);
		p = (uintptr_t)q.vma_end;
	}
	close(fd);
	*pos = p;
	return err;
}

#define VM_QUERY_READABLE 0x1
#define VM_QUERY_WRITABLE 0x2

int sim_vm_access(uintptr_t addr)
{
	struct vm_query q;
	int saved = errno, fd, ret;

	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.query_addr = addr & ~(uintptr_t)(SIM_PAGE - 1);	/* the VMA covering it */
	/* the probe's PROT_NONE reservation of a hole (none_mapped) is no VMA
	 * of the program's: not seen while it stands */
	pthread_rwlock_rdlock(&sim.vm_probe_lock);
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		ret = -ENOSYS;
	else if (ioctl(fd, VM_QUERY_IOCTL, &q) == 0)
		ret = (q.vma_flags & VM_QUERY_READABLE ? SIM_VM_READ : 0) |
		      (q.vma_flags & VM_QUERY_WRITABLE ? SIM_VM_WRITE : 0);
	else
		ret = errno == ENOENT ? -ENOMEM : -ENOSYS;
	if (fd >= 0)
		close(fd);
	pthread_rwlock_unlock(&sim.vm_probe_lock);
	errno = saved;
	return ret;
}

static bool all_mapped(uintptr_t s, uintptr_t e)
{
	return msync((void *)s, e - s, MS_ASYNC) == 0;
}

/* The reservation is a mapping while it stands: a GPU's fault handler that
 * asked mincore then would map a page the program has unmapped (seen in 3
 * runs of 100 of sim / race faults_held_in_the_ring_are_dropped_not_served,
 * the handler serving the agent's retry during a drain's probe). So it
 * stands only under vm_probe_lock, which every such question takes shared. */
static bool none_mapped(uintptr_t s, uintptr_t e)
{
	long p;

	pthread_rwlock_wrlock(&sim.vm_probe_lock);
	p = syscall(SYS_mmap, (void *)s, e - s, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != -1)
		syscall(SYS_munmap, (void *)p, e - s);
	pthread_rwlock_unlock(&sim.vm_probe_lock);
	if (p == -1)
		return false;		/* EEXIST: something is there */
	return (uintptr_t)p == s;	/* an old kernel took the flag for a hint */
}

bool sim_vm_range_mapped(uintptr_t lo, uintptr_t hi)
{
	unsigned char v[64];
	uintptr_t p = lo & ~(uintptr_t)(SIM_PAGE - 1);
	bool mapped = true;
	int saved = errno;

	pthread_rwlock_rdlock(&sim.vm_probe_lock);
	while (mapped && p < hi) {
		size_t n = hi - p < sizeof(v) * SIM_PAGE ? hi - p : sizeof(v) * SIM_PAGE;

		if (mincore((void *)p, n, v) != 0 && errno == ENOMEM)
			mapped = false;
		p += (n + SIM_PAGE - 1) & ~(size_t)(SIM_PAGE - 1);
	}
	pthread_rwlock_unlock(&sim.vm_probe_lock);
	errno = saved;
	return mapped;
}

/* [s, e) page-aligned; mapped pieces in order, adjacent ones not merged. */
static void bisect(uintptr_t s, uintptr_t e, sim_vm_fn fn, void *arg)
{
	uintptr_t mid;

	if (all_mapped(s, e)) {
		fn(s, e, arg);
		return;
	}
	if (e - s == SIM_PAGE || none_mapped(s, e))
		return;
	mid = s + ((e - s) / SIM_PAGE / 2) * SIM_PAGE;
	bisect(s, mid, fn, arg);
	bisect(mid, e, fn, arg);
}

void sim_vm_mapped_by(uintptr_t start, uintptr_t end, bool query, sim_vm_fn fn, void *arg)
{
	int saved = errno;

	start &= ~(uintptr_t)(SIM_PAGE - 1);
	end = (end + SIM_PAGE - 1) & ~(uintptr_t)(SIM_PAGE - 1);
	if (start >= end)
		return;
	/* what the ioctl could not answer, the bisection does */
	if (!query || query_walk(&start, end, fn, arg) == -ENOSYS)
		if (start < end)
			bisect(start, end, fn, arg);
	errno = saved;
}

int sim_vm_query(uintptr_t start, uintptr_t end, sim_vm_fn fn, void *arg)
{
	int saved = errno, err;

	start &= ~(uintptr_t)(SIM_PAGE - 1);
	end = (end + SIM_PAGE - 1) & ~(uintptr_t)(SIM_PAGE - 1);
	err = start < end ? query_walk(&start, end, fn, arg) : 0;
	errno = saved;
	return err;
}

void sim_vm_mapped(uintptr_t start, uintptr_t end, sim_vm_fn fn, void *arg)
{
	sim_vm_mapped_by(start, end, true, fn, arg);
}
