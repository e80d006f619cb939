/* SPDX-License-Identifier: MIT */
/*
 * trace.c - the bounded JSON writer and trace lines (trace.h).
 */
#include "shim/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "shared/fmt.h"
#include "shim/outfile.h"
#include "shim/utf8.h"

static void put_c(struct hipsvm_jw *w, char c)
{
	if (w->len + 1 < w->cap)
		w->buf[w->len] = c;
	else
		w->overflow = true;
	w->len++;
	w->last = c;
}

void hipsvm_jw_init(struct hipsvm_jw *w, char *buf, size_t cap)
{
	w->buf = buf;
	w->cap = cap;
	w->len = 0;
	w->overflow = cap == 0;
	w->last = '\0';
}

void hipsvm_jw_raw(struct hipsvm_jw *w, const char *s)
{
	while (*s)
		put_c(w, *s++);
}

void hipsvm_jw_str(struct hipsvm_jw *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t left = s ? strlen(s) : 0;

	put_c(w, '"');
	while (left) {
		unsigned char c = (unsigned char)*s;
		size_t k;

		if (c == '"' || c == '\\') {
			put_c(w, '\\');
			put_c(w, (char)c);
		} else if (c == '\n') {
			put_c(w, '\\');
			put_c(w, 'n');
		} else if (c < 0x20 || c == 0x7f) {
			hipsvm_jw_raw(w, "\\u00");
			put_c(w, hex[c >> 4]);
			put_c(w, hex[c & 15]);
		} else if (c >= 0x80) {
			/* Paths are bytes: a byte that starts no UTF-8
			 * character becomes U+FFFD, so that the document
			 * stays valid UTF-8 (docs/report.md, Strings). */
			k = hipsvm_utf8_len((const unsigned char *)s, left);
			if (!k) {
				hipsvm_jw_raw(w, HIPSVM_UTF8_BAD_ESCAPE);
			} else {
				for (size_t i = 0; i < k; i++)
					put_c(w, s[i]);
				s += k - 1;
				left -= k - 1;
			}
		} else {
			put_c(w, (char)c);
		}
		s++;
		left--;
	}
	put_c(w, '"');
}

void hipsvm_jw_u64(struct hipsvm_jw *w, uint64_t v)
{
	char tmp[HIPSVM_FMT_U64_MAX];

	hipsvm_jw_raw(w, hipsvm_fmt_u64(tmp, v));
}

void hipsvm_jw_hex(struct hipsvm_jw *w, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[24];
	int i = 23;

	tmp[i] = '\0';
	do {
		tmp[--i] = hex[v & 15];
		v >>= 4;
	} while (v);
	put_c(w, '"');
	hipsvm_jw_raw(w, "0x");
	hipsvm_jw_raw(w, tmp + i);
	put_c(w, '"');
}

void hipsvm_jw_sep(struct hipsvm_jw *w)
{
	if (w->len && w->last != '{' && w->last != '[')
		put_c(w, ',');
}

void hipsvm_jw_key(struct hipsvm_jw *w, const char *key)
{
	hipsvm_jw_sep(w);
	hipsvm_jw_str(w, key);
	put_c(w, ':');
}

void hipsvm_jw_ku64(struct hipsvm_jw *w, const char *key, uint64_t v)
{
	hipsvm_jw_key(w, key);
	hipsvm_jw_u64(w, v);
}

void hipsvm_jw_kstr(struct hipsvm_jw *w, const char *key, const char *s)
{
	hipsvm_jw_key(w, key);
	hipsvm_jw_str(w, s);
}

int hipsvm_jw_end(struct hipsvm_jw *w)
{
	if (w->cap)
		w->buf[w->len < w->cap ? w->len : w->cap - 1] = '\0';
	return w->overflow ? -ENOSPC : (int)w->len;
}

int hipsvm_trace_format(char *buf, size_t cap, uint64_t ts_ns, const char *ev,
			const struct hipsvm_tfield *f, unsigned n)
{
	struct hipsvm_jw w;
	unsigned i;

	hipsvm_jw_init(&w, buf, cap);
	hipsvm_jw_raw(&w, "{");
	hipsvm_jw_ku64(&w, "ts_ns", ts_ns);
	hipsvm_jw_kstr(&w, "ev", ev);
	for (i = 0; i < n; i++) {
		hipsvm_jw_key(&w, f[i].key);
		switch (f[i].type) {
		case HIPSVM_TF_U64:
			hipsvm_jw_u64(&w, f[i].v.u);
			break;
		case HIPSVM_TF_I64:
			if (f[i].v.i < 0) {
				hipsvm_jw_raw(&w, "-");
				hipsvm_jw_u64(&w, (uint64_t)0 - (uint64_t)f[i].v.i);
			} else {
				hipsvm_jw_u64(&w, (uint64_t)f[i].v.i);
			}
			break;
		case HIPSVM_TF_HEX:
			hipsvm_jw_hex(&w, f[i].v.u);
			break;
		case HIPSVM_TF_STR:
			hipsvm_jw_str(&w, f[i].v.s);
			break;
		case HIPSVM_TF_BOOL:
			hipsvm_jw_raw(&w, f[i].v.u ? "true" : "false");
			break;
		}
	}
	hipsvm_jw_raw(&w, "}\n");
	return hipsvm_jw_end(&w);
}

/* Events a write refused (or cut short), and the first errno: the trace is
 * one stream per process, so one pair per process. */
static uint64_t lost_events;
static int lost_err;

int hipsvm_trace_emit(int fd, const char *ev, const struct hipsvm_tfield *f, unsigned n)
{
	char line[HIPSVM_TRACE_LINE_MAX];
	int saved = errno, len, rc = 0;
	ssize_t wr;

	if (fd < 0)
		return 0;
	len = hipsvm_trace_format(line, sizeof(line), hipsvm_now_ns(), ev, f, n);
	if (len < 0)
		return len;
	do
		wr = write(fd, line, (size_t)len);
	while (wr < 0 && errno == EINTR);
	if (wr < 0)
		rc = -errno;
	else if (wr != len)
		rc = -ENOSPC;	/* a short write to a regular file: the disk is full */
	if (rc) {
		int none = 0;

		__atomic_compare_exchange_n(&lost_err, &none, rc, false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
		__atomic_fetch_add(&lost_events, 1, __ATOMIC_RELAXED);
	}
	errno = saved;
	return rc;
}

uint64_t hipsvm_trace_lost(int *first_err)
{
	if (first_err)
		*first_err = __atomic_load_n(&lost_err, __ATOMIC_RELAXED);
	return __atomic_load_n(&lost_events, __ATOMIC_RELAXED);
}

void hipsvm_trace_lost_reset(void)
{
	__atomic_store_n(&lost_events, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&lost_err, 0, __ATOMIC_RELAXED);
}

int hipsvm_trace_open(const char *path)
{
	struct stat st;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK,
		  0600);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0)
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = -EINVAL;
	else if (st.st_uid != geteuid())
		err = -EPERM;
	if (err) {
		close(fd);
		return err;
	}
	/* Never on 0, 1 or 2: a program started with stderr closed would get
	 * every warning written into its trace. */
	return hipsvm_fd_above_stdio(fd);
}
