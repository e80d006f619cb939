/* SPDX-License-Identifier: MIT */
/*
 * trace_read.c - raw trace events (JSON lines) into struct ev, tolerantly:
 * unknown kinds and fields are ignored, a malformed line (the last line of a
 * killed process may be cut) is counted and skipped.
 */
#include "trace_ev.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int parse_ctx(const char *s)
{
	char *end;
	long v;

	if (!s)
		return -2;
	if (strcmp(s, "host_context") == 0)
		return -1;
	if (strncmp(s, "device:", 7) == 0) {
		v = strtol(s + 7, &end, 10);
		if (!*end && end != s + 7 && v >= 0 && v < MAX_DEV)
			return (int)v;
	}
	return -2;
}

static uint64_t hexnum(const struct json *o, const char *key)
{
	const char *s = json_str(o, key, NULL);

	if (s)
		return strtoull(s, NULL, 0);
	return json_u64(o, key, 0);
}

void trace_copy_str(char *dst, size_t cap, const char *s)
{
	snprintf(dst, cap, "%s", s ? s : "");
}

/* One line into e: 1 kept, 0 an unknown "ev" (skipped quietly), -1 malformed. */
static int parse_line(const char *line, size_t len, struct ev *e)
{
	struct json *j = json_parse(line, len, NULL, 0);
	const char *kind;
	const struct json *dev;
	int rc = 1;

	if (!j)
		return -1;
	kind = json_str(j, "ev", NULL);
	if (!json_is(j, JSON_OBJ) || !kind || !json_get(j, "ts_ns")) {
		json_free(j);
		return -1;
	}
	memset(e, 0, sizeof(*e));
	e->ts = json_u64(j, "ts_ns", 0);
	dev = json_get(j, "dev");
	e->dev = json_is(dev, JSON_NUM) && dev->is_int && !dev->neg && dev->u64 < MAX_DEV ? (int)dev->u64 : -1;
	e->ctx = parse_ctx(json_str(j, "ctx", NULL));
	if (strcmp(kind, "alloc") == 0) {
		e->kind = EV_ALLOC;
		e->ptr = hexnum(j, "ptr");
		e->size = json_u64(j, "size", 0);
		trace_copy_str(e->api, sizeof(e->api), json_str(j, "api", "alloc"));
		trace_copy_str(e->route, sizeof(e->route), json_str(j, "route", ""));
	} else if (strcmp(kind, "free") == 0) {
		e->kind = EV_FREE;
		e->ptr = hexnum(j, "ptr");
		e->size = json_u64(j, "size", 0);
	} else if (strcmp(kind, "unmap") == 0) {
		const struct json *c = json_get(j, "coordinated");

		e->kind = EV_UNMAP;
		e->ptr = hexnum(j, "addr");
		e->size = json_u64(j, "len", 0);
		e->coordinated = json_is(c, JSON_BOOL) && c->b;
	} else if (strcmp(kind, "cp_set") == 0) {
		e->kind = EV_CP_SET;
		trace_copy_str(e->cp, sizeof(e->cp), json_str(j, "cp", ""));
	} else if (strcmp(kind, "cp_clear") == 0) {
		e->kind = EV_CP_CLEAR;
	} else if (strcmp(kind, "drain") == 0) {
		e->kind = EV_DRAIN;
		e->dur = json_u64(j, "dur_ns", 0);
		/* Written when the drain is over: the slice starts dur_ns earlier. */
		e->ts = e->ts > e->dur ? e->ts - e->dur : 0;
		trace_copy_str(e->result, sizeof(e->result), json_str(j, "result", "ok"));
	} else if (strcmp(kind, "faults") == 0) {
		e->kind = EV_FAULTS;
		e->raised = json_u64(j, "raised", 0);
		e->handled = json_u64(j, "handled", 0);
		e->dropped = json_u64(j, "dropped", 0);
		e->real = json_u64(j, "real", 0);
	} else {
		rc = 0;
	}
	if (rc == 1 && (e->kind == EV_CP_SET || e->kind == EV_CP_CLEAR || e->kind == EV_DRAIN ||
			e->kind == EV_FAULTS) && e->dev < 0)
		rc = -1;
	json_free(j);
	return rc;
}

static int by_ts(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int trace_read_events(const char *path, struct ev **out, size_t *nout, struct trace_stats *st,
		      char *err, size_t errcap)
{
	struct ev *ev = NULL, *nv, e;
	size_t n = 0, cap = 0, len;
	char *buf, *p, *nl;
	int rc;

	rc = json_slurp(path, &buf, &len, JSON_EVENTS_MAX);
	if (rc) {
		snprintf(err, errcap, "%s: %s", path, json_slurp_strerror(rc));
		return rc;
	}
	for (p = buf; p < buf + len; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(buf + len - p));
		if (!nl)
			nl = buf + len;
		if (nl == p || (nl - p == 1 && *p == '\r'))
			continue;
		rc = parse_line(p, (size_t)(nl - p), &e);
		if (rc < 0) {
			st->bad_lines++;
			continue;
		}
		if (rc == 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			nv = realloc(ev, cap * sizeof(*ev));
			if (!nv) {
				free(ev);
				free(buf);
				snprintf(err, errcap, "out of memory");
				return -ENOMEM;
			}
			ev = nv;
		}
		e.seq = n;
		ev[n++] = e;
	}
	free(buf);
	if (n == 0 && st->bad_lines) {
		free(ev);
		snprintf(err, errcap, "%s: no trace event could be read (%zu malformed line%s)", path,
			 st->bad_lines, st->bad_lines == 1 ? "" : "s");
		return -EINVAL;
	}
	/* Events come from several threads, each line written whole but not
	 * necessarily in time order. */
	if (n)
		qsort(ev, n, sizeof(*ev), by_ts);
	*out = ev;
	*nout = n;
	return 0;
}
