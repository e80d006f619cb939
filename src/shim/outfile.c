/* SPDX-License-Identifier: MIT */
/*
 * outfile.c - whole files written safely (outfile.h).
 */
#include "shim/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>	/* rename; nothing else of stdio */
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int hipsvm_fd_above_stdio(int fd)
{
	int nfd, err;

	if (fd < 0 || fd > 2)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	err = errno;
	close(fd);
	return nfd < 0 ? -err : nfd;
}

int hipsvm_outfile_input(const char *path, struct hipsvm_outfile_input *in)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return -errno;
	in->dev = st.st_dev;
	in->ino = st.st_ino;
	return 0;
}

int hipsvm_outfile_check(const char *path, const struct hipsvm_outfile_input *in, unsigned nin)
{
	struct stat st;
	unsigned i;

	if (!path[0])
		return -ENOENT;
	if (stat(path, &st) == 0)
		for (i = 0; i < nin; i++)
			if (st.st_dev == in[i].dev && st.st_ino == in[i].ino)
				return -EBUSY;
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode))
		return 0;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EEXIST;
	if (st.st_uid != geteuid())
		return -EPERM;
	return 0;
}

const char *hipsvm_outfile_refusal(int err)
{
	switch (err < 0 ? -err : err) {
	case EISDIR: return "is a directory";
	case EEXIST: return "is not a regular file (a device, FIFO or socket): left alone";
	case EPERM: return "belongs to another user: left alone";
	case EBUSY: return "is also an input: refused, not overwritten";
	default: return NULL;
	}
}

/* DIR/.hipsvm.<12 hex digits of pid, clock and attempt>; O_EXCL settles
 * any clash. The name is short on purpose: PATH's own last component may be
 * as long as NAME_MAX. */
static int temp_name(const char *path, unsigned attempt, char *out, size_t cap)
{
	static const char pre[] = ".hipsvm.";
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
	struct timespec t;
	uint64_t v;
	int i;

	if (dir + sizeof(pre) - 1 + 12 + 1 > cap)
		return -ENAMETOOLONG;
	clock_gettime(CLOCK_MONOTONIC, &t);
	v = ((uint64_t)getpid() << 24) ^ (uint64_t)t.tv_nsec ^ ((uint64_t)t.tv_sec << 30) ^
	    ((uint64_t)attempt << 44);
	memcpy(out, path, dir);
	memcpy(out + dir, pre, sizeof(pre) - 1);
	dir += sizeof(pre) - 1;
	for (i = 0; i < 12; i++)
		out[dir + (size_t)i] = "0123456789abcdef"[v >> (44 - 4 * i) & 0xf];
	out[dir + 12] = '\0';
	return 0;
}

int hipsvm_outfile_begin(struct hipsvm_outfile *o, const char *path,
			 const struct hipsvm_outfile_input *in, unsigned nin)
{
	size_t n = strlen(path);
	unsigned attempt;
	int rc, fd = -1;

	o->fd = -1;
	o->tmp[0] = '\0';
	o->in = in;
	o->nin = in ? nin : 0;
	if (n >= sizeof(o->path))
		return -ENAMETOOLONG;
	memcpy(o->path, path, n + 1);
	rc = hipsvm_outfile_check(path, o->in, o->nin);
	if (rc)
		return rc;
	for (attempt = 0; attempt < 16 && fd < 0; attempt++) {
		rc = temp_name(path, attempt, o->tmp, sizeof(o->tmp));
		if (rc)
			return rc;
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
		if (fd < 0 && errno != EEXIST) {
			rc = -errno;
			o->tmp[0] = '\0';
			return rc;
		}
	}
	if (fd < 0) {
		o->tmp[0] = '\0';
		return -EEXIST;
	}
	fd = hipsvm_fd_above_stdio(fd);
	if (fd < 0) {
		unlink(o->tmp);
		o->tmp[0] = '\0';
		return fd;
	}
	o->fd = fd;
	return 0;
}

int hipsvm_outfile_write(struct hipsvm_outfile *o, const void *buf, size_t len)
{
	const char *p = buf;

	if (o->fd < 0)
		return -EBADF;
	while (len) {
		ssize_t w = write(o->fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

void hipsvm_outfile_abort(struct hipsvm_outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = '\0';
}

int hipsvm_outfile_commit(struct hipsvm_outfile *o)
{
	int rc = 0;

	if (o->fd < 0)
		return -EBADF;
	if (fsync(o->fd) != 0 && errno != EINVAL && errno != EROFS)
		rc = -errno;
	if (close(o->fd) != 0 && !rc && errno != EINTR)
		rc = -errno;
	o->fd = -1;
	if (!rc)
		rc = hipsvm_outfile_check(o->path, o->in, o->nin);
	if (!rc && rename(o->tmp, o->path) != 0)
		rc = -errno;
	if (rc) {
		hipsvm_outfile_abort(o);
		return rc;
	}
	o->tmp[0] = '\0';
	return 0;
}
