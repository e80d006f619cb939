/* SPDX-License-Identifier: MIT */
/*
 * jsonq - a test helper on top of the tool's own JSON parser.
 *   jsonq FILE PATH...   prints each value (numbers exactly, strings raw,
 *                        "[N]"/"{N}" for arrays/objects); exit 3 if one is missing
 *   jsonq --flat FILE    every leaf as path=value (strings quoted), one a line
 *   jsonq --lines FILE   checks that every non-empty line is a JSON object
 *   jsonq --nesting FILE checks a Chrome trace: on every (pid, tid) track
 *                        the "X" slices nest properly (a viewer that sorts
 *                        by start drops or misdraws those that do not)
 * Exit 1 when FILE does not parse.
 */
#include "json.h"

#include <stdlib.h>
#include <string.h>

static void scalar(const struct json *j, bool quote)
{
	switch (j->type) {
	case JSON_NULL: fputs("null", stdout); break;
	case JSON_BOOL: fputs(j->b ? "true" : "false", stdout); break;
	case JSON_NUM:
		if (j->is_int && j->neg)
			printf("%lld", (long long)j->i64);
		else if (j->is_int)
			printf("%llu", (unsigned long long)j->u64);
		else
			printf("%.17g", j->num);
		break;
	case JSON_STR:
		if (quote)
			json_write_str(stdout, j->str);
		else
			fputs(j->str, stdout);
		break;
	case JSON_ARR: printf("[%zu]", j->n); break;
	case JSON_OBJ: printf("{%zu}", j->n); break;
	}
}

struct slice {
	double ts, end;
	long long pid, tid;
};

static int by_track_start(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;	/* longer first: the parent */
}

static int nesting(const struct json *root)
{
	const struct json *ev = json_get(root, "traceEvents");
	struct slice *sl, stack[256];
	size_t n = 0, i, depth = 0;
	int bad = 0;

	if (!json_is(ev, JSON_ARR)) {
		fputs("no traceEvents array\n", stderr);
		return 1;
	}
	sl = calloc(ev->n + 1, sizeof(*sl));
	for (i = 0; i < ev->n; i++) {
		const struct json *e = ev->items[i], *ts = json_get(e, "ts"), *dur = json_get(e, "dur");

		if (strcmp(json_str(e, "ph", ""), "X") != 0)
			continue;
		if (!json_is(ts, JSON_NUM) || !json_is(dur, JSON_NUM) || dur->num < 0) {
			fprintf(stderr, "event %zu: X without a ts and a dur >= 0\n", i);
			bad = 1;
			continue;
		}
		sl[n].ts = ts->num;
		sl[n].end = ts->num + dur->num;
		sl[n].pid = (long long)json_u64(e, "pid", 0);
		sl[n].tid = (long long)json_u64(e, "tid", 0);
		n++;
	}
	qsort(sl, n, sizeof(*sl), by_track_start);
	for (i = 0; i < n; i++) {
		if (i && (sl[i].pid != sl[i - 1].pid || sl[i].tid != sl[i - 1].tid))
			depth = 0;
		while (depth && stack[depth - 1].end <= sl[i].ts + 1e-4)
			depth--;
		if (depth && sl[i].end > stack[depth - 1].end + 1e-4) {
			fprintf(stderr, "tid %lld: slice [%.3f, %.3f] crosses its parent [%.3f, %.3f]\n",
				sl[i].tid, sl[i].ts, sl[i].end, stack[depth - 1].ts, stack[depth - 1].end);
			bad = 1;
		}
		if (depth < 256)
			stack[depth++] = sl[i];
	}
	free(sl);
	return bad;
}

static void flat(const struct json *j, char *path, size_t len, size_t cap)
{
	size_t i;

	if (j->type != JSON_ARR && j->type != JSON_OBJ) {
		printf("%s=", path);
		scalar(j, true);
		putchar('\n');
		return;
	}
	for (i = 0; i < j->n; i++) {
		int n = j->type == JSON_ARR ? snprintf(path + len, cap - len, "%s%zu", len ? "." : "", i)
					    : snprintf(path + len, cap - len, "%s%s", len ? "." : "", j->keys[i]);

		if (n > 0 && (size_t)n < cap - len)
			flat(j->items[i], path, len + (size_t)n, cap);
		path[len] = '\0';
	}
}

int main(int argc, char **argv)
{
	const char *file;
	char err[256], *buf, path[4096] = "";
	struct json *j;
	size_t len;
	int i, rc = 0;

	if (argc < 3) {
		fputs("usage: jsonq FILE PATH... | --flat FILE | --lines FILE | --nesting FILE\n", stderr);
		return 2;
	}
	file = argv[1][0] == '-' && argv[1][1] == '-' ? argv[2] : argv[1];
	if (json_slurp(file, &buf, &len) != 0) {
		perror(file);
		return 1;
	}
	if (strcmp(argv[1], "--lines") == 0) {
		char *p = buf, *nl;
		int line = 0;

		for (; *p; p = nl + 1) {
			nl = strchr(p, '\n');
			if (!nl)
				nl = p + strlen(p);
			line++;
			if (nl > p) {
				j = json_parse(p, (size_t)(nl - p), err, sizeof(err));
				if (!j || j->type != JSON_OBJ) {
					fprintf(stderr, "%s:%d: %s\n", file, line, j ? "not an object" : err);
					rc = 1;
				}
				json_free(j);
			}
			if (!*nl)
				break;
		}
		free(buf);
		return rc;
	}
	j = json_parse(buf, len, err, sizeof(err));
	free(buf);
	if (!j) {
		fprintf(stderr, "%s: %s\n", file, err);
		return 1;
	}
	if (strcmp(argv[1], "--nesting") == 0) {
		rc = nesting(j);
	} else if (strcmp(argv[1], "--flat") == 0) {
		flat(j, path, 0, sizeof(path));
	} else {
		for (i = 2; i < argc; i++) {
			const struct json *v = json_path(j, argv[i]);

			if (!v) {
				fprintf(stderr, "%s: no %s\n", file, argv[i]);
				rc = 3;
				continue;
			}
			scalar(v, false);
			putchar('\n');
		}
	}
	json_free(j);
	return rc;
}
