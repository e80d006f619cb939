/* SPDX-License-Identifier: MIT */
/*
 * output.c - every file the hipsvm command writes, through the shim's own
 * safe writer (src/shim/outfile.h): a temporary file beside the target,
 * renamed over it only when everything was written; the target is never
 * followed through a link, truncated, or removed.
 */
#include "cli.h"
#include "shim/outfile.h"
#include "shared/proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

const char *tool_errno(int err, char *buf, size_t cap)
{
	const char *why = hipsvm_outfile_refusal(err);

	if (err < 0)
		err = -err;
	if (why)
		snprintf(buf, cap, "%s", why);
	else
		snprintf(buf, cap, "%s (%s)", hipsvm_errno_name(err), strerror(err));
	return buf;
}

int tool_out_open(struct tool_out *t, const char *path, const char *const *inputs, const char *what,
		  const char *note)
{
	char why[128];
	unsigned n = 0;
	int rc;

	memset(t, 0, sizeof(*t));
	t->o.fd = -1;
	t->what = what;
	for (; inputs && *inputs && n < TOOL_OUT_MAX_INPUTS; inputs++)
		if (strcmp(*inputs, "-") != 0 && hipsvm_outfile_input(*inputs, &t->in[n]) == 0)
			n++;
	rc = hipsvm_outfile_begin(&t->o, path, t->in, n);
	if (rc == 0) {
		int fd = fcntl(t->o.fd, F_DUPFD_CLOEXEC, 3);

		t->f = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!t->f) {
			rc = -errno;
			if (fd >= 0)
				close(fd);
			hipsvm_outfile_abort(&t->o);
		}
	}
	if (rc) {
		tool_err("cannot write %s to %s: %s%s", what, path, tool_errno(rc, why, sizeof(why)),
			 note ? note : "");
		return -1;
	}
	return 0;
}

int tool_out_close(struct tool_out *t, bool keep)
{
	char why[128];
	int rc = 0;

	if (!t->f)
		return keep ? 1 : 0;
	if (fflush(t->f) != 0 || ferror(t->f))
		rc = -(errno ? errno : EIO);
	if (fclose(t->f) != 0 && !rc)
		rc = -errno;
	t->f = NULL;
	if (!keep) {
		hipsvm_outfile_abort(&t->o);
		return 0;
	}
	if (!rc)
		rc = hipsvm_outfile_commit(&t->o);
	else
		hipsvm_outfile_abort(&t->o);
	if (rc) {
		tool_err("cannot write %s to %s: %s (whatever was there is left as it was)", t->what,
			 t->o.path, tool_errno(rc, why, sizeof(why)));
		return 1;
	}
	return 0;
}
