/* SPDX-License-Identifier: MIT */
/* event_ipc.c - interprocess events' shared segment (event_ipc.h). */
#include "runtime/event_ipc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define IPC_MAGIC 0x68737665u	/* "hsve" */

struct ipc_shm {
	uint32_t magic;
	int32_t owners;
	int32_t pid;
	int32_t device;
	uint64_t issued;
	uint64_t completed;
};

struct sim_ipc_event {
	struct ipc_shm *shm;
	char name[48];
};

static int map(const char *name, int oflag, struct ipc_shm **out)
{
	int fd = shm_open(name, oflag, 0600);
	void *p;

	if (fd < 0)
		return -errno;
	if ((oflag & O_CREAT) && ftruncate(fd, sizeof(struct ipc_shm)) != 0) {
		int e = -errno;

		close(fd);
		shm_unlink(name);
		return e;
	}
	p = mmap(NULL, sizeof(struct ipc_shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	*out = p;
	return 0;
}

int sim_ipc_event_create(int dev, struct sim_ipc_event **out)
{
	static uint32_t counter;
	struct sim_ipc_event *ev = calloc(1, sizeof(*ev));
	int err;

	if (!ev)
		return -ENOMEM;
	snprintf(ev->name, sizeof(ev->name), "/hipsvm_event_%d_%u", (int)getpid(),
		 __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
	err = map(ev->name, O_CREAT | O_EXCL | O_RDWR, &ev->shm);
	if (err) {
		free(ev);
		return err;
	}
	ev->shm->owners = 1;
	ev->shm->pid = (int32_t)getpid();
	ev->shm->device = dev;
	__atomic_store_n(&ev->shm->magic, IPC_MAGIC, __ATOMIC_RELEASE);
	*out = ev;
	return 0;
}

void sim_ipc_event_handle(const struct sim_ipc_event *ev, hipIpcEventHandle_t *h)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->reserved, ev->name, strlen(ev->name));
}

int sim_ipc_event_open(const hipIpcEventHandle_t *h, struct sim_ipc_event **out, int *dev)
{
	struct sim_ipc_event *ev = calloc(1, sizeof(*ev));
	size_t n = strnlen(h->reserved, sizeof(h->reserved));

	if (!ev)
		return -ENOMEM;
	if (n == 0 || n >= sizeof(ev->name) || h->reserved[0] != '/' ||
	    memchr(h->reserved + 1, '/', n - 1)) {
		free(ev);
		return -EINVAL;
	}
	memcpy(ev->name, h->reserved, n);
	if (map(ev->name, O_RDWR, &ev->shm) != 0) {
		free(ev);
		return -EINVAL;
	}
	if (__atomic_load_n(&ev->shm->magic, __ATOMIC_ACQUIRE) != IPC_MAGIC) {
		munmap(ev->shm, sizeof(*ev->shm));
		free(ev);
		return -EINVAL;
	}
	if (ev->shm->pid == (int32_t)getpid()) {
		munmap(ev->shm, sizeof(*ev->shm));
		free(ev);
		return -EEXIST;
	}
	__atomic_add_fetch(&ev->shm->owners, 1, __ATOMIC_ACQ_REL);
	*dev = ev->shm->device;
	*out = ev;
	return 0;
}

uint64_t sim_ipc_event_record(struct sim_ipc_event *ev)
{
	return __atomic_add_fetch(&ev->shm->issued, 1, __ATOMIC_ACQ_REL);
}

void sim_ipc_event_complete(struct sim_ipc_event *ev, uint64_t seq)
{
	uint64_t cur = __atomic_load_n(&ev->shm->completed, __ATOMIC_ACQUIRE);

	/* records of one event complete in any order across processes:
	 * completed only moves forward */
	while (cur < seq && !__atomic_compare_exchange_n(&ev->shm->completed, &cur, seq, true,
							 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
}

bool sim_ipc_event_done(const struct sim_ipc_event *ev)
{
	return __atomic_load_n(&ev->shm->completed, __ATOMIC_ACQUIRE) >=
	       __atomic_load_n(&ev->shm->issued, __ATOMIC_ACQUIRE);
}

void sim_ipc_event_wait(const struct sim_ipc_event *ev)
{
	uint64_t target = __atomic_load_n(&ev->shm->issued, __ATOMIC_ACQUIRE);
	struct timespec ts = { 0, 100000 };

	while (__atomic_load_n(&ev->shm->completed, __ATOMIC_ACQUIRE) < target)
		nanosleep(&ts, NULL);
}

void sim_ipc_event_close(struct sim_ipc_event *ev)
{
	if (__atomic_sub_fetch(&ev->shm->owners, 1, __ATOMIC_ACQ_REL) == 0)
		shm_unlink(ev->name);
	munmap(ev->shm, sizeof(*ev->shm));
	free(ev);
}
