/* SPDX-License-Identifier: MIT */
/*
 * shm_wrap.c - shmdt: detaching a System V shared memory segment unmaps it,
 * and a program may have registered part of it with hipHostRegister (an MPI
 * shared-memory window, for instance). UCX learnt that missing this unmap
 * corrupts data silently (UCX's memory hooks learnt it so).
 *
 * shmdt names only the address; the extent is the segment's mapping, read
 * from /proc/self/maps: the mapping that starts at addr and the ones right
 * after it from the same file (the segment, split by mprotect). That read
 * happens only when the shim tracks SVM memory at all; a program without
 * any pays one load.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "boot.h"
#include "hip_abi.h"
#include "seam.h"
#include "shim/shim.h"
#include "table.h"
#include "unmap.h"

struct maps_line {
	uintptr_t start, end;
	unsigned long long inode;
	char dev[16];
};

static const char *hex(const char *p, uintptr_t *v)
{
	*v = 0;
	for (;; p++) {
		unsigned d = *p >= '0' && *p <= '9' ? (unsigned)(*p - '0') :
			     *p >= 'a' && *p <= 'f' ? (unsigned)(*p - 'a' + 10) : 16;

		if (d == 16)
			return p;
		*v = *v << 4 | d;
	}
}

/* "start-end perms offset dev inode [path]" */
static bool parse_line(const char *p, struct maps_line *m)
{
	unsigned field, k;

	p = hex(p, &m->start);
	if (*p++ != '-')
		return false;
	p = hex(p, &m->end);
	for (field = 0; field < 2; field++) {	/* perms, offset */
		while (*p == ' ')
			p++;
		while (*p && *p != ' ')
			p++;
	}
	while (*p == ' ')
		p++;
	for (k = 0; *p && *p != ' ' && k + 1 < sizeof(m->dev); k++)
		m->dev[k] = *p++;
	m->dev[k] = '\0';
	while (*p == ' ')
		p++;
	m->inode = 0;
	while (*p >= '0' && *p <= '9')
		m->inode = m->inode * 10 + (unsigned)(*p++ - '0');
	return m->end > m->start;
}

static bool same_file(const struct maps_line *a, const struct maps_line *b)
{
	unsigned k;

	if (a->inode != b->inode)
		return false;
	for (k = 0; a->dev[k] || b->dev[k]; k++)
		if (a->dev[k] != b->dev[k])
			return false;
	return true;
}

/* Bytes mapped from the file mapped at addr, from addr on; 0 if nothing
 * starts there (shmdt will fail) or /proc cannot be read. No allocation, no
 * stdio: raw system calls and a buffer on the stack. */
size_t hipsvm_shm_extent(uintptr_t addr)
{
	char buf[4096];
	struct maps_line first = { 0 }, m;
	size_t have = 0, len = 0;
	bool found = false;
	int saved = errno;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		errno = saved;
		return 0;
	}
	for (;;) {
		ssize_t n = syscall(SYS_read, fd, buf + have, sizeof(buf) - 1 - have);
		char *line = buf, *nl;

		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		while ((nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
			*nl = '\0';
			if (parse_line(line, &m)) {
				if (!found && m.start == addr) {
					first = m;
					found = true;
					len = m.end - m.start;
				} else if (found && m.start == first.start + len && same_file(&first, &m)) {
					len += m.end - m.start;
				} else if (found || m.start > addr) {
					goto out;
				}
			}
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0;	/* a line longer than the buffer: its path */
	}
out:
	syscall(SYS_close, fd);
	errno = saved;
	return found ? len : 0;
}

HIPSVM_EXPORT int shmdt(const void *addr)
{
	struct hipsvm_unmap_call c = { .op = HIPSVM_UNMAP_SHMDT, .takes = true,
				       .addr = (void *)addr };

	return (int)hipsvm_unmap_call_run(&c);
}
