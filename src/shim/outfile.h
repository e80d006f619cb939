/* SPDX-License-Identifier: MIT */
/*
 * outfile.h - the one way hipsvm writes a whole file: the shim's report and
 * every output of the hipsvm command (reports, traces, pages, text).
 *
 * Contract:
 *  - begin() looks at the target without following a link (lstat) and takes
 *    only: nothing there; a regular file owned by the effective uid; a
 *    symbolic link (the link is replaced, what it points at is never
 *    written). A directory is -EISDIR; a device, FIFO or socket -EEXIST; a
 *    regular file of another user -EPERM; the same file as one of the
 *    inputs (st_dev/st_ino, a link followed) -EBUSY. Nothing is then
 *    created, truncated or removed.
 *  - It then creates a temporary file beside the target, with a short name
 *    (".hipsvm.XXXXXXXXXXXX", 20 bytes: any target name that is legal gets
 *    a legal temporary name), O_CREAT | O_EXCL | O_NOFOLLOW, mode 0600, on
 *    a descriptor above 2 (a program started with stdin, stdout or stderr
 *    closed never gets its output there).
 *  - The caller writes o->fd (write_all, or stdio on a dup), then commit():
 *    fsync (a rename that survives a crash must not name an empty file),
 *    close, the target checked again as above, rename over it. Any error
 *    removes the temporary file and leaves the target as it was: only the
 *    temporary file, which is ours, is ever unlinked.
 *  - No malloc, no stdio, no locks, no logging: the shim calls it at exit
 *    while other threads run. Every function returns 0 or -errno, and the
 *    errno is the real one (ENOSPC, EMFILE, ENAMETOOLONG, ...).
 *  - Left to the user: a directory above the target that another user can
 *    write (O_NOFOLLOW guards the last component only; docs/security.md).
 */
#ifndef HIPSVM_OUTFILE_H
#define HIPSVM_OUTFILE_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

struct hipsvm_outfile_input {
	dev_t dev;
	ino_t ino;
};

struct hipsvm_outfile {
	int fd;				/* the temporary file, -1 when none */
	char path[PATH_MAX];		/* the target */
	char tmp[PATH_MAX];		/* the temporary file beside it */
	const struct hipsvm_outfile_input *in;
	unsigned nin;
};

/* The inputs' identities, for begin()'s same-file check: 0, or -errno from
 * stat (following links: the file the reader actually read). */
int hipsvm_outfile_input(const char *path, struct hipsvm_outfile_input *in);
/* The checks above, then the temporary file. in may be NULL (nin 0). */
int hipsvm_outfile_begin(struct hipsvm_outfile *o, const char *path,
			 const struct hipsvm_outfile_input *in, unsigned nin);
/* write() until done; EINTR retried, a short write of 0 is -EIO. */
int hipsvm_outfile_write(struct hipsvm_outfile *o, const void *buf, size_t len);
/* fsync, close, rename over the target; on error as abort(). */
int hipsvm_outfile_commit(struct hipsvm_outfile *o);
/* Removes the temporary file; the target untouched. Safe to call twice. */
void hipsvm_outfile_abort(struct hipsvm_outfile *o);
/* The target check alone (what begin() and commit() apply). */
int hipsvm_outfile_check(const char *path, const struct hipsvm_outfile_input *in, unsigned nin);
/* A few words for a refusal of the target check (EISDIR, EEXIST, EPERM,
 * EBUSY), else NULL: the caller says the errno. */
const char *hipsvm_outfile_refusal(int err);
/* A descriptor moved above 2 (fcntl F_DUPFD_CLOEXEC 3; the old one closed):
 * the descriptor, or -errno (fd then closed). Negative fd is returned as is. */
int hipsvm_fd_above_stdio(int fd);

#endif
