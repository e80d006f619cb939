/* SPDX-License-Identifier: MIT */
/*
 * job.c - the reports of a job's ranks, read, reduced to a row each and
 * checked against each other (job.h).
 *
 * Nothing is merged silently: reports of other schemas or other programs,
 * one rank reported twice, ranks missing below the highest one, two ranks of
 * one host given the same GPU, and files of a directory that are not
 * reports are all said (job.warn, job.skipped), and the rows stay apart.
 */
#include "job.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const struct job_metric_info job_metrics[JM_COUNT] = {
	[JM_PEAK] = { "peak_bytes", "peak bytes of a context", false, true },
	[JM_COORD] = { "unmaps_coordinated", "unmaps coordinated", false, false },
	[JM_UNCOORD] = { "unmaps_uncoordinated", "unmaps uncoordinated", false, false },
	[JM_DROPPED] = { "faults_dropped", "faults dropped", false, false },
	[JM_DRAINS] = { "drains", "drains", false, false },
	[JM_DRAIN_MAX] = { "drain_max_ns", "longest drain", true, false },
	[JM_DRAIN_TOTAL] = { "drain_total_ns", "drain time", true, false },
	[JM_DURATION] = { "duration_ns", "run time", true, false },
};

static void warn(struct job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(struct job *j, const char *fmt, ...)
{
	char buf[1024], **nw;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	nw = realloc(j->warn, (j->nwarn + 1) * sizeof(*nw));
	if (!nw)
		return;
	j->warn = nw;
	if ((j->warn[j->nwarn] = strdup(buf)))
		j->nwarn++;
}

/* The index of s in *set, added when new. */
static size_t intern(const char ***set, size_t *n, const char *s)
{
	const char **ns;
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp((*set)[i], s) == 0)
			return i;
	ns = realloc(*set, (*n + 1) * sizeof(*ns));
	if (!ns)
		return 0;
	*set = ns;
	ns[*n] = s;
	return (*n)++;
}

/* A report reduced to its row. */
static void reduce(struct job_rank *k)
{
	const struct json *r = k->r, *devs = json_get(r, "devices"), *ctxs = json_get(r, "contexts"),
			  *um = json_get(r, "unmaps");
	const char *hip = json_str(r, "hip_visible_devices", ""), *rocr = json_str(r, "rocr_visible_devices", "");
	size_t i;

	k->host = json_str(r, "host", "");
	k->rank = json_str(r, "rank", "");
	k->program = json_str(r, "program", "");
	k->schema = json_str(r, "schema", "hipsvm-report/1");
	k->pid = json_u64(r, "pid", 0);
	if (*hip && *rocr)
		snprintf(k->gpus, sizeof(k->gpus), "%s of r:%s", hip, rocr);
	else if (*hip)
		snprintf(k->gpus, sizeof(k->gpus), "%s", hip);
	else if (*rocr)
		snprintf(k->gpus, sizeof(k->gpus), "r:%s", rocr);
	else
		snprintf(k->gpus, sizeof(k->gpus), "all");
	if (*k->rank)
		snprintf(k->label, sizeof(k->label), "%s", k->rank);
	else
		snprintf(k->label, sizeof(k->label), "pid %llu", (unsigned long long)k->pid);
	k->ndev = json_is(devs, JSON_ARR) ? devs->n : 0;
	k->peak_ctx = "-";
	for (i = 0; json_is(ctxs, JSON_ARR) && i < ctxs->n; i++) {
		uint64_t p = json_u64(ctxs->items[i], "peak_bytes", 0);

		if (p > k->v[JM_PEAK] || (i == 0 && p == 0)) {
			k->v[JM_PEAK] = p;
			k->peak_ctx = json_str(ctxs->items[i], "id", "-");
		}
	}
	k->v[JM_COORD] = json_u64(um, "coordinated", 0);
	k->v[JM_UNCOORD] = json_u64(um, "uncoordinated", 0);
	for (i = 0; i < k->ndev; i++) {
		const struct json *d = devs->items[i], *dn = json_get(d, "drain_ns");
		uint64_t mx = json_u64(dn, "max", 0);

		k->v[JM_DROPPED] += json_u64(json_get(d, "faults"), "dropped", 0);
		k->v[JM_DRAINS] += json_u64(dn, "count", 0);
		k->v[JM_DRAIN_TOTAL] += json_u64(dn, "total", 0);
		if (mx > k->v[JM_DRAIN_MAX])
			k->v[JM_DRAIN_MAX] = mx;
	}
	k->v[JM_DURATION] = json_u64(r, "duration_ns", 0);
}

/* 1: a report (kept in j), 0: parsed but not a report, <0: unreadable or
 * not JSON (message in err). */
static int add_file(struct job *j, const char *path, char *err, size_t errcap)
{
	char *buf, perr[256];
	struct json *r;
	size_t len;
	int e;

	if (j->n >= JOB_MAX_REPORTS) {
		snprintf(err, errcap, "more than %d reports", JOB_MAX_REPORTS);
		return -E2BIG;
	}
	e = json_slurp(path, &buf, &len, JSON_REPORT_MAX);
	if (e) {
		snprintf(err, errcap, "%s: %s", path, json_slurp_strerror(e));
		return e;
	}
	r = json_parse(buf, len, perr, sizeof(perr));
	free(buf);
	if (!r) {
		snprintf(err, errcap, "%s: not valid JSON: %s", path, perr);
		return -EINVAL;
	}
	if (report_render(NULL, r, FMT_TEXT, false, perr, sizeof(perr)) != 0) {
		snprintf(err, errcap, "%s: %s", path, perr);
		json_free(r);
		return 0;
	}
	if (j->n == j->cap) {
		size_t nc = j->cap ? j->cap * 2 : 16;
		struct job_rank *nr = realloc(j->rk, nc * sizeof(*nr));

		if (!nr) {
			json_free(r);
			snprintf(err, errcap, "out of memory");
			return -ENOMEM;
		}
		j->rk = nr;
		j->cap = nc;
	}
	memset(&j->rk[j->n], 0, sizeof(j->rk[j->n]));
	j->rk[j->n].file = strdup(path);
	j->rk[j->n].r = r;
	if (!j->rk[j->n].file) {
		json_free(r);
		snprintf(err, errcap, "out of memory");
		return -ENOMEM;
	}
	reduce(&j->rk[j->n++]);
	return 1;
}

static void skip(struct job *j, const char *path, const char *why)
{
	char **ns = realloc(j->skipped, (j->nskipped + 1) * sizeof(*ns));
	size_t n = strlen(path) + strlen(why) + 3;

	if (!ns)
		return;
	j->skipped = ns;
	if ((ns[j->nskipped] = malloc(n))) {
		snprintf(ns[j->nskipped], n, "%s: %s", path, why);
		j->nskipped++;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular *.json files of a directory, in name order. Links, FIFOs and
 * devices are passed over (a FIFO would block the read). */
static int add_dir(struct job *j, const char *dir, char *err, size_t errcap)
{
	DIR *dp = opendir(dir);
	struct dirent *d;
	char **names = NULL, **nn, path[PATH_MAX], why[512];
	size_t n = 0, i;
	int e = 0, got;

	if (!dp) {
		snprintf(err, errcap, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	while ((d = readdir(dp))) {
		size_t l = strlen(d->d_name);
		struct stat sb;

		if (l < 6 || strcmp(d->d_name + l - 5, ".json") != 0)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, d->d_name) >= sizeof(path))
			continue;
		if (lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
			skip(j, path, "not a regular file");
			continue;
		}
		nn = realloc(names, (n + 1) * sizeof(*nn));
		if (!nn || !(nn[n] = strdup(path))) {
			names = nn ? nn : names;
			e = -ENOMEM;
			snprintf(err, errcap, "out of memory");
			break;
		}
		names = nn;
		n++;
	}
	closedir(dp);
	if (!e && n)	/* an empty directory: names is NULL */
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; !e && i < n; i++) {
		got = add_file(j, names[i], why, sizeof(why));
		if (got == 0) {
			skip(j, names[i], "not a hipsvm report");
		} else if (got == -EINVAL) {
			/* a rank's report cut short is a rank lost: loud */
			warn(j, "%s", why);
		} else if (got < 0) {
			snprintf(err, errcap, "%s", why);
			e = got;
		}
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (!e && !n)
		warn(j, "%s: no *.json file in it", dir);
	return e;
}

static bool numeric(const char *s, long *v)
{
	char *end;

	if (!*s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtol(s, &end, 10);
	return !*end && errno == 0 && *v >= 0 && *v < INT_MAX;
}

/* Numbered ranks first, by number; then the others by host and pid. */
static int cmp_rank(const void *a, const void *b)
{
	const struct job_rank *x = a, *y = b;
	long u, v;
	bool nu = numeric(x->rank, &u), nv = numeric(y->rank, &v);
	int c;

	if (nu != nv)
		return nu ? -1 : 1;
	if (nu && u != v)
		return (u > v) - (u < v);
	if ((c = strcmp(x->host, y->host)) != 0)
		return c;
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return strcmp(x->file, y->file);
}

/* A simple visible-device list ("2,3") as physical indices: -1 entries end
 * it (a uuid, or anything the check cannot follow). The count. */
static int parse_list(const char *s, int *out, int cap)
{
	int n = 0;
	long v;
	char *end;

	while (*s && n < cap) {
		if (*s < '0' || *s > '9')
			return -1;
		v = strtol(s, &end, 10);
		if (v > 4096)
			return -1;
		out[n++] = (int)v;
		if (*end == ',')
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	return n;
}

/* The physical GPUs a rank was given, as ROCm maps HIP's list through
 * ROCr's; -1 when not known (no list, or one this check cannot read). */
static int physical(const struct job_rank *k, int *out, int cap)
{
	const char *hip = json_str(k->r, "hip_visible_devices", ""),
		   *rocr = json_str(k->r, "rocr_visible_devices", "");
	int rl[64], hl[64], nr, nh, i;

	if (!*hip && !*rocr)
		return -1;
	nr = *rocr ? parse_list(rocr, rl, 64) : 0;
	nh = *hip ? parse_list(hip, hl, 64) : 0;
	if (nr < 0 || nh < 0)
		return -1;
	if (!*hip) {
		memcpy(out, rl, (size_t)(nr < cap ? nr : cap) * sizeof(int));
		return nr < cap ? nr : cap;
	}
	for (i = 0; i < nh && i < cap; i++) {
		if (*rocr && hl[i] >= nr)
			return -1;
		out[i] = *rocr ? rl[hl[i]] : hl[i];
	}
	return i;
}

static void check_gpus(struct job *j)
{
	size_t a, b;
	int pa[64], pb[64], na, nb, x, y;

	for (a = 0; a < j->n; a++) {
		na = physical(&j->rk[a], pa, 64);
		for (b = a + 1; na > 0 && b < j->n; b++) {
			if (strcmp(j->rk[a].host, j->rk[b].host) != 0)
				continue;
			nb = physical(&j->rk[b], pb, 64);
			for (x = 0; x < na; x++)
				for (y = 0; y < nb; y++)
					if (pa[x] == pb[y]) {
						warn(j, "ranks %s and %s on host %s were both given GPU %d",
						     j->rk[a].label, j->rk[b].label,
						     *j->rk[a].host ? j->rk[a].host : "-", pa[x]);
						x = na;
						break;
					}
		}
	}
}

static int cmp_by_rank(const void *a, const void *b)
{
	const struct job_rank *x = *(const struct job_rank *const *)a, *y = *(const struct job_rank *const *)b;
	int c = strcmp(x->rank, y->rank);

	return c ? c : strcmp(x->file, y->file);
}

/* A rank named by more than one report, once each. */
static void check_repeated(struct job *j)
{
	const struct job_rank **by = malloc(j->n * sizeof(*by));
	size_t i;

	if (!by)
		return;
	for (i = 0; i < j->n; i++)
		by[i] = &j->rk[i];
	qsort(by, j->n, sizeof(*by), cmp_by_rank);
	for (i = 0; i + 1 < j->n; i++)
		if (*by[i]->rank && strcmp(by[i]->rank, by[i + 1]->rank) == 0 &&
		    (i == 0 || strcmp(by[i - 1]->rank, by[i]->rank) != 0))
			warn(j, "rank %s is in more than one report (%s, %s%s): two jobs, or a rerun, "
			     "in one directory?", by[i]->rank, by[i]->file, by[i + 1]->file,
			     i + 2 < j->n && strcmp(by[i + 2]->rank, by[i]->rank) == 0 ? ", ..." : "");
	free(by);
}

static void check(struct job *j)
{
	size_t i, k;
	long v, hi = -1;
	unsigned char *seen;

	for (i = 0; i < j->n; i++) {
		j->rk[i].prog = intern(&j->programs, &j->nprog, j->rk[i].program);
		intern(&j->schemas, &j->nschema, j->rk[i].schema);
		intern(&j->hosts, &j->nhost, *j->rk[i].host ? j->rk[i].host : "-");
	}
	if (j->nschema > 1) {
		char list[512] = "";
		size_t n = 0;

		for (k = 0; k < j->nschema; k++)
			n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0, "%s%s",
					      k ? ", " : "", j->schemas[k]);
		warn(j, "the reports are of %zu schemas (%s): what an older one lacks shows as 0",
		     j->nschema, list);
	}
	if (j->nprog > 1)
		warn(j, "the reports are of %zu programs: each row says which ([N] below); "
		     "the summary mixes them", j->nprog);
	for (i = 0, k = 0; i < j->n; i++)
		k += !*j->rk[i].host && !*j->rk[i].rank;
	if (k)
		warn(j, "%zu report%s no host or rank (older than schema 4): %s by pid", k,
		     k == 1 ? " has" : "s have", k == 1 ? "its row goes" : "their rows go");
	for (i = 0; i < j->n; i++)
		if (numeric(j->rk[i].rank, &v) && v > hi)
			hi = v;
	qsort(j->rk, j->n, sizeof(*j->rk), cmp_rank);
	check_repeated(j);
	if (hi >= 0 && (size_t)hi < j->n * 4 + 1024 && (seen = calloc((size_t)hi + 1, 1))) {
		char list[256] = "";
		size_t n = 0, missing = 0;

		for (i = 0; i < j->n; i++)
			if (numeric(j->rk[i].rank, &v))
				seen[v] = 1;
		for (v = 0; v <= hi; v++)
			if (!seen[v]) {
				if (missing++ < 16)
					n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0,
							      "%s%ld", missing > 1 ? "," : "", v);
			}
		if (missing)
			warn(j, "%zu rank%s below the highest (%ld) without a report: %s%s", missing,
			     missing == 1 ? "" : "s", hi, list, missing > 16 ? ",..." : "");
		free(seen);
	}
	check_gpus(j);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void summarise(struct job *j)
{
	uint64_t *v = j->n ? malloc(j->n * sizeof(*v)) : NULL;
	size_t m, i;

	for (m = 0; m < JM_COUNT; m++) {
		struct job_stat *s = &j->st[m];
		uint64_t far = 0;

		memset(s, 0, sizeof(*s));
		s->outlier = SIZE_MAX;
		if (!v)
			continue;
		for (i = 0; i < j->n; i++) {
			v[i] = j->rk[i].v[m];
			s->total += v[i];
		}
		qsort(v, j->n, sizeof(*v), cmp_u64);
		s->min = v[0];
		s->max = v[j->n - 1];
		s->median = j->n % 2 ? v[j->n / 2] : v[j->n / 2 - 1] / 2 + v[j->n / 2] / 2 +
			    (v[j->n / 2 - 1] % 2 + v[j->n / 2] % 2) / 2;
		/* the rank farthest from the median; the first on a tie */
		for (i = 0; i < j->n; i++) {
			uint64_t x = j->rk[i].v[m], d = x > s->median ? x - s->median : s->median - x;

			if (d > far) {
				far = d;
				s->outlier = i;
			}
		}
	}
	free(v);
}

int job_load(struct job *j, char *const *paths, size_t npaths, char *err, size_t errcap)
{
	char why[512];
	struct stat sb;
	size_t i;
	int e;

	memset(j, 0, sizeof(*j));
	for (i = 0; i < npaths; i++) {
		if (strcmp(paths[i], "-") != 0 && stat(paths[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
			e = add_dir(j, paths[i], err, errcap);
			if (e)
				return e;
			continue;
		}
		e = add_file(j, paths[i], why, sizeof(why));
		if (e <= 0) {
			snprintf(err, errcap, "%s", why);
			return e ? e : -EINVAL;
		}
	}
	if (!j->n) {
		snprintf(err, errcap, "no hipsvm report among the %zu input%s%s", npaths,
			 npaths == 1 ? "" : "s", j->nskipped ? " (see the files passed over below)" : "");
		return -EINVAL;
	}
	check(j);
	summarise(j);
	return 0;
}

void job_free(struct job *j)
{
	size_t i;

	for (i = 0; i < j->n; i++) {
		json_free(j->rk[i].r);
		free(j->rk[i].file);
	}
	for (i = 0; i < j->nwarn; i++)
		free(j->warn[i]);
	for (i = 0; i < j->nskipped; i++)
		free(j->skipped[i]);
	free(j->rk);
	free(j->warn);
	free(j->skipped);
	free(j->programs);
	free(j->schemas);
	free(j->hosts);
	memset(j, 0, sizeof(*j));
}
