/* SPDX-License-Identifier: MIT */
/*
 * ipc.c - IPC memory handles between processes (ROCm's hipIpcGetMemHandle,
 * hipIpcOpenMemHandle, hipIpcCloseMemHandle over ROCclr's IpcCreate,
 * IpcAttach and IpcDetach). A real share: the first handle of an allocation
 * moves its pages into a memfd, mapped over the same addresses (the pages
 * that hold data are copied, the untouched ones are zero either way), and
 * the handle carries the exporter's pid, the memfd's descriptor number and
 * inode, the allocation's size and the pointer's offset in it. The importer
 * opens /proc/<pid>/fd/<n> (or takes the descriptor with pidfd_getfd),
 * checks the inode, maps it shared and enters it in its allocation map, so
 * the imported range takes the page-fault path like any device memory.
 *
 * The move maps over the allocation with the raw system call: it changes the
 * backing of memory that stays allocated, which is not an unmap of it, and a
 * shim interposing mmap must not take it for one. Writes racing with the
 * first hipIpcGetMemHandle of an allocation are lost (the move copies, then
 * maps); programs export memory before they share it.
 */
#include "api/api.h"
#include "runtime/map.h"
#include "runtime/stream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define IPC_MAGIC 0x48495043u	/* "HIPC" */

struct ipc_handle {
	uint32_t magic;
	int32_t pid;
	int32_t fd;
	int32_t device;
	uint64_t ino;
	uint64_t psize;		/* the allocation's size, as ROCm's handle has it */
	uint64_t poffset;	/* the pointer's offset in it */
	uint64_t maplen;
	uint8_t pad[HIP_IPC_HANDLE_SIZE - 48];
};

_Static_assert(sizeof(struct ipc_handle) == HIP_IPC_HANDLE_SIZE, "the handle is 64 bytes");

static pthread_mutex_t export_lock = PTHREAD_MUTEX_INITIALIZER;

static void *raw_mmap(void *addr, size_t len, int prot, int flags, int fd)
{
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, (off_t)0);
}

struct shared_note {
	int fd;
	uint64_t ino;
};

static void note_shared(struct sim_alloc *a, void *arg)
{
	const struct shared_note *n = arg;

	a->ipc_fd = n->fd;
	a->ipc_ino = n->ino;
}

/* Copies the pages of [base, base + len) that hold data to the memfd. A
 * page that is not resident is either untouched (zero: the memfd's pages
 * are zero already, and reading it commits nothing) or swapped out (read
 * back and copied), so only a non-resident page that reads as zero is left
 * out: the memfd commits no more than the allocation did. */
static int copy_data(int fd, uintptr_t base, size_t len)
{
	static const unsigned char zero[SIM_PAGE];
	unsigned char v[64];
	size_t off, k;

	for (off = 0; off < len; off += sizeof(v) * SIM_PAGE) {
		size_t n = len - off < sizeof(v) * SIM_PAGE ? len - off : sizeof(v) * SIM_PAGE;

		if (mincore((void *)(base + off), n, v) != 0)
			return -errno;
		for (k = 0; k * SIM_PAGE < n; k++) {
			const void *src = (const void *)(base + off + k * SIM_PAGE);

			if (!(v[k] & 1) && memcmp(src, zero, SIM_PAGE) == 0)
				continue;
			if (pwrite(fd, src, SIM_PAGE, (off_t)(off + k * SIM_PAGE)) != (ssize_t)SIM_PAGE)
				return -EIO;
		}
	}
	return 0;
}

/* The allocation's memfd, made on its first export; -1 when it cannot be
 * shared. Caller holds export_lock. */
static int share(const struct sim_alloc *a, uint64_t *ino)
{
	struct shared_note n;
	struct stat st;
	int fd;

	if (a->ipc_fd >= 0) {
		*ino = a->ipc_ino;
		return a->ipc_fd;
	}
	if (!a->maplen || a->released)
		return -1;
	fd = memfd_create("hipsvm-ipc", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)a->maplen) != 0 || copy_data(fd, a->base, a->maplen) != 0 ||
	    fstat(fd, &st) != 0 ||
	    raw_mmap((void *)a->base, a->maplen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd) ==
	    MAP_FAILED) {
		close(fd);
		return -1;
	}
	n.fd = fd;
	n.ino = (uint64_t)st.st_ino;
	sim_update((void *)a->base, note_shared, &n);
	*ino = n.ino;
	return fd;
}

SIM_API hipError_t hipIpcGetMemHandle(hipIpcMemHandle_t *handle, void *devPtr)
{
	struct ipc_handle h;
	struct sim_alloc a;
	uint64_t ino = 0;
	int fd;

	SIM_INIT_API();
	if (!handle || !devPtr)
		SIM_RETURN(hipErrorInvalidValue);
	if (!sim_lookup(devPtr, &a) || a.kind != HIPSVM_KIND_DEVICE)
		SIM_RETURN(hipErrorInvalidDevicePointer);
	pthread_mutex_lock(&export_lock);
	/* again under the lock: another thread may have shared it meanwhile */
	fd = sim_lookup(devPtr, &a) ? share(&a, &ino) : -1;
	pthread_mutex_unlock(&export_lock);
	if (fd < 0)
		SIM_RETURN(hipErrorInvalidDevicePointer);
	memset(&h, 0, sizeof(h));
	h.magic = IPC_MAGIC;
	h.pid = (int32_t)getpid();
	h.fd = fd;
	h.device = a.device;
	h.ino = ino;
	h.psize = a.size;
	h.poffset = (uintptr_t)devPtr - a.base;
	h.maplen = a.maplen;
	memcpy(handle, &h, sizeof(h));
	SIM_RETURN(hipSuccess);
}

/* The exporter's memfd, opened in this process; -1 on failure. */
static int open_remote(const struct ipc_handle *h)
{
	char path[64];
	struct stat st;
	int fd, pfd;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)h->pid, (int)h->fd);
	fd = open(path, O_RDWR | O_CLOEXEC);
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
	if (fd < 0) {
		pfd = (int)syscall(SYS_pidfd_open, (pid_t)h->pid, 0);
		if (pfd >= 0) {
			fd = (int)syscall(SYS_pidfd_getfd, pfd, h->fd, 0);
			close(pfd);
		}
	}
#else
	(void)pfd;
#endif
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_ino != h->ino ||
	    (uint64_t)st.st_size < h->maplen) {
		close(fd);
		return -1;
	}
	return fd;
}

SIM_API hipError_t hipIpcOpenMemHandle(void **devPtr, hipIpcMemHandle_t handle, unsigned int flags)
{
	struct hipsvm_context *c;
	struct ipc_handle h;
	struct sim_alloc *a;
	void *p;
	int fd, dev;

	SIM_INIT_API();
	if (!devPtr || flags != hipIpcMemLazyEnablePeerAccess)
		SIM_RETURN(hipErrorInvalidValue);
	memcpy(&h, &handle, sizeof(h));
	if (h.psize == 0)
		SIM_RETURN(hipErrorInvalidValue);
	if (h.magic != IPC_MAGIC || h.poffset >= h.psize || h.psize > h.maplen)
		SIM_RETURN(hipErrorInvalidDevicePointer);
	fd = open_remote(&h);
	if (fd < 0)
		SIM_RETURN(hipErrorInvalidDevicePointer);
	p = mmap(NULL, h.maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		SIM_RETURN(hipErrorInvalidDevicePointer);
	dev = sim_current_device();
	c = hipsvm_ctxset_for_api(&sim.ctx, HIPSVM_API_MALLOC, dev);
	if (!c || sim_alloc_adopt(p, h.psize, h.maplen, HIPSVM_KIND_DEVICE, c->id, dev, SIM_ROLE_IPC,
				  NULL, &a) != hipSuccess) {
		munmap(p, h.maplen);
		SIM_RETURN(hipErrorInvalidDevicePointer);
	}
	*devPtr = (char *)p + h.poffset;
	SIM_RETURN(hipSuccess);
}

SIM_API hipError_t hipIpcCloseMemHandle(void *devPtr)
{
	struct sim_alloc copy, *a;
	struct sim_stream *ns;

	SIM_INIT_API();
	ns = sim_stream_get(NULL);
	if (ns)
		sim_stream_wait(ns);
	if (!devPtr)
		SIM_RETURN(hipErrorInvalidValue);
	if (!sim_lookup(devPtr, &copy) || copy.role != SIM_ROLE_IPC)
		SIM_RETURN(hipErrorInvalidHandle);
	a = sim_map_take((void *)copy.base, SIM_ROLE_IPC);
	if (!a)
		SIM_RETURN(hipErrorInvalidHandle);
	sim_alloc_destroy(a);
	SIM_RETURN(hipSuccess);
}
