/* SPDX-License-Identifier: MIT */
/*
 * json_io.c - writing JSON strings and reading whole files for the parser.
 */
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim/utf8.h"

void json_write_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t left = strlen((const char *)p), k;

	fputc('"', f);
	for (; left; p++, left--) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				fprintf(f, "\\u%04x", *p);
			} else if (*p < 0x80) {
				fputc(*p, f);
			} else if ((k = hipsvm_utf8_len(p, left)) == 0) {
				/* as the shim writes it: docs/report.md, Strings */
				fputs(HIPSVM_UTF8_BAD_ESCAPE, f);
			} else {
				fwrite(p, 1, k, f);
				p += k - 1;
				left -= k - 1;
			}
		}
	}
	fputc('"', f);
}

const char *json_slurp_strerror(int rc)
{
	switch (-rc) {
	case EINVAL: return "not a regular file (a FIFO or a device is not read)";
	case EFBIG: return "too large for what it should be (a report is read up to 16 MiB, "
			   "a raw events file up to 512 MiB)";
	default: return strerror(-rc);
	}
}

int json_slurp(const char *path, char **buf, size_t *len, size_t max)
{
	bool in = strcmp(path, "-") == 0;
	int fd = in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	size_t cap = 65536, n = 0;
	struct stat st;
	char *b = NULL, *nb;
	ssize_t r;
	int err;

	if (fd < 0)
		return -errno;
	if (!in) {
		if (fstat(fd, &st) != 0) {
			err = -errno;
			goto out;
		}
		if (S_ISDIR(st.st_mode) || !S_ISREG(st.st_mode)) {
			err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
			goto out;
		}
		if ((uint64_t)st.st_size > max) {
			err = -EFBIG;
			goto out;
		}
	}
	b = malloc(cap);
	if (!b) {
		err = -ENOMEM;
		goto out;
	}
	for (;;) {
		if (n + 1 >= cap) {
			if (cap > max) {
				err = -EFBIG;
				goto out;
			}
			nb = realloc(b, cap * 2);
			if (!nb) {
				err = -ENOMEM;
				goto out;
			}
			b = nb;
			cap *= 2;
		}
		r = read(fd, b + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			err = -EFBIG;
			goto out;
		}
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	b = NULL;
	err = 0;
out:
	free(b);
	if (fd != STDIN_FILENO)
		close(fd);
	return err;
}
