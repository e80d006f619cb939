/* SPDX-License-Identifier: MIT */
/* ktest.c - see ktest.h. */
#include "ktest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int kt_n, kt_failed;
static const char *kt_prefix = "";

void kt_child(const char *name)
{
	static char prefix[64];

	snprintf(prefix, sizeof(prefix), "# [%s] ", name);
	kt_prefix = prefix;
	kt_n = 0;
	kt_failed = 0;
}

/* One line of output: newlines in the text would break TAP. */
static void emit(const char *head, const char *fmt, va_list ap)
{
	char text[512];
	char *c;

	vsnprintf(text, sizeof(text), fmt, ap);
	for (c = text; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	printf("%s%s%s\n", kt_prefix, head, text);
	fflush(stdout);
}

bool kt_check(bool cond, const char *fmt, ...)
{
	char head[32];
	va_list ap;

	kt_n++;
	if (!cond)
		kt_failed++;
	snprintf(head, sizeof(head), "%sok %d - ", cond ? "" : "not ", kt_n);
	va_start(ap, fmt);
	emit(head, fmt, ap);
	va_end(ap);
	return cond;
}

bool kt_check_todo(bool cond, const char *why, const char *fmt, ...)
{
	char head[32], text[384];
	va_list ap;

	kt_n++;
	snprintf(head, sizeof(head), "%sok %d - ", cond ? "" : "not ", kt_n);
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	printf("%s%s%s # TODO %s\n", kt_prefix, head, text, why);
	fflush(stdout);
	return cond;
}

void kt_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(*kt_prefix ? "" : "# ", fmt, ap);
	va_end(ap);
}

int kt_done(void)
{
	if (!*kt_prefix)
		printf("1..%d\n", kt_n);
	printf("%s%s%d passed, %d failed\n", kt_prefix, *kt_prefix ? "" : "# ",
	       kt_n - kt_failed, kt_failed);
	fflush(stdout);
	return kt_failed ? 1 : 0;
}

int kt_open(void)
{
	int fd = open(KT_HOOK, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		printf("Bail out! open %s: %s\n", KT_HOOK, strerror(errno));
		exit(1);
	}
	return fd;
}

int kt_req(int fd, const char *req, char *buf, size_t cap)
{
	char line[HIPSVM_PROTO_MAX_REQ + 64];
	size_t n = strlen(req);
	ssize_t w, r;

	if (n + 1 < sizeof(line)) {
		memcpy(line, req, n);
		line[n++] = '\n';
		w = write(fd, line, n);
	} else {
		w = write(fd, req, n);	/* oversize on purpose */
	}
	if (w < 0)
		w = -errno;
	r = pread(fd, buf, cap - 1, 0);
	buf[r > 0 ? r : 0] = '\0';
	return (int)w;
}

int kt_reqp(int fd, const char *req, struct hipsvm_reply *r)
{
	char buf[HIPSVM_PROTO_MAX_REPLY + 1];

	kt_req(fd, req, buf, sizeof(buf));
	return hipsvm_proto_parse_reply(buf, strlen(buf), r);
}

int kt_reqf(int fd, struct hipsvm_reply *r, const char *fmt, ...)
{
	char req[HIPSVM_PROTO_MAX_REQ + 64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(req, sizeof(req), fmt, ap);
	va_end(ap);
	return kt_reqp(fd, req, r);
}

uint64_t kt_num(const struct hipsvm_reply *r, const char *key, uint64_t def)
{
	const char *v = hipsvm_reply_get(r, key);
	uint64_t out;

	if (!v || hipsvm_proto_u64(v, strlen(v), &out))
		return def;
	return out;
}

const char *kt_word(const struct hipsvm_reply *r, const char *key)
{
	const char *v = hipsvm_reply_get(r, key);

	return v ? v : "";
}

int kt_log(int fd, struct kt_event *ev, int max)
{
	static struct hipsvm_reply r;
	unsigned i;
	int n = 0;

	if (kt_reqp(fd, "log", &r) || r.status)
		return -1;
	for (i = 0; i < r.ntok && n < max; i++) {
		const char *t = r.tok[i].key;
		unsigned long long seq;
		unsigned gpu;
		int used = 0;

		if (sscanf(t, "%llu:%15[a-z]:%u%n", &seq, ev[n].op, &gpu, &used) < 3)
			return -1;
		ev[n].seq = seq;
		ev[n].gpu = gpu;
		ev[n].x[0] = '\0';
		if (t[used] == ':')
			snprintf(ev[n].x, sizeof(ev[n].x), "%s", t + used + 1);
		n++;
	}
	return n;
}

const char *kt_fault_outcome(const struct kt_event *ev, int n, unsigned gpu, uint64_t ts)
{
	int i;

	for (i = n - 1; i >= 0; i--) {
		if (ev[i].gpu != gpu || strtoull(ev[i].x, NULL, 16) != ts)
			continue;
		if (!strcmp(ev[i].op, "handled"))
			return "handled";
		if (!strcmp(ev[i].op, "dropped"))
			return "dropped";
	}
	return NULL;
}

int kt_write_file(const char *path, const char *line)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t w;
	int err = 0;

	if (fd < 0)
		return -errno;
	w = write(fd, line, strlen(line));
	if (w < 0)
		err = -errno;
	close(fd);
	return err;
}

uint64_t kt_module_stat(const char *key)
{
	char line[128];
	size_t kl = strlen(key);
	uint64_t v = ~0ull;
	FILE *f = fopen(KT_DIR "/stats", "r");

	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == '=')
			v = strtoull(line + kl + 1, NULL, 0);
	fclose(f);
	return v;
}

void kt_pause(uint64_t mask)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%llx\n", (unsigned long long)mask);
	if (kt_write_file(KT_DIR "/pause", buf)) {
		printf("Bail out! cannot write %s/pause\n", KT_DIR);
		exit(1);
	}
}

double kt_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
