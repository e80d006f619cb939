/* SPDX-License-Identifier: MIT */
/*
 * report.c - writes "hipsvm-report/4" (report.h, docs/report.md). The key
 * set is a contract with tools/ (`hipsvm report`): add nothing, rename
 * nothing without bumping the schema.
 */
#include "shim/report.h"

#include <errno.h>
#include <string.h>

#include "shim/api.h"
#include "shim/outfile.h"
#include "shim/trace.h"

#define G(x) hipsvm_stats_get(&(x))

unsigned hipsvm_report_ndev(const struct hipsvm_stats *s, unsigned known)
{
	unsigned seen = __atomic_load_n(&s->max_dev_seen, __ATOMIC_RELAXED);
	unsigned n = known > seen ? known : seen;

	return n > HIPSVM_STATS_MAX_DEV ? HIPSVM_STATS_MAX_DEV : n;
}

static void mem(struct hipsvm_jw *w, const struct hipsvm_mem_view *v)
{
	hipsvm_jw_ku64(w, "allocations", v->allocations);
	hipsvm_jw_ku64(w, "frees", v->frees);
	hipsvm_jw_ku64(w, "live_bytes", v->live_bytes);
	hipsvm_jw_ku64(w, "peak_bytes", v->peak_bytes);
}

/* The drain histogram from its first to its last non-empty bucket:
 * "hist_lo": b, "hist": [count of bucket b, b+1, ...]; bucket b holds
 * durations in [2^b, 2^(b+1)) ns (bucket 0 also 0 ns). Schema 3. */
static void hist(struct hipsvm_jw *w, const struct hipsvm_dev_stats *d)
{
	int lo = -1, hi = -1, b;

	for (b = 0; b < HIPSVM_STATS_HIST; b++) {
		if (G(d->drain_hist[b])) {
			if (lo < 0)
				lo = b;
			hi = b;
		}
	}
	hipsvm_jw_ku64(w, "hist_lo", lo < 0 ? 0 : (uint64_t)lo);
	hipsvm_jw_key(w, "hist");
	hipsvm_jw_raw(w, "[");
	for (b = lo; lo >= 0 && b <= hi; b++) {
		hipsvm_jw_sep(w);
		hipsvm_jw_u64(w, G(d->drain_hist[b]));
	}
	hipsvm_jw_raw(w, "]");
}

static void device(struct hipsvm_jw *w, const struct hipsvm_stats *s,
		   const struct hipsvm_report_meta *m, unsigned i)
{
	const struct hipsvm_dev_stats *d = &s->dev[i];
	struct hipsvm_mem_view v;
	uint64_t quota = 0;

	hipsvm_stats_mem(s, HIPSVM_STATS_MEM_DEV(i), &v);
	hipsvm_jw_sep(w);
	hipsvm_jw_raw(w, "{");
	hipsvm_jw_ku64(w, "index", i);
	mem(w, &v);
	if (m->pol)
		hipsvm_policy_quota(m->pol, (int)i, &quota);
	hipsvm_jw_ku64(w, "quota_bytes", quota);
	hipsvm_jw_ku64(w, "checkpoints_set", G(d->checkpoints_set));
	hipsvm_jw_ku64(w, "drains", G(d->drains));
	hipsvm_jw_ku64(w, "drain_timeouts", G(d->drain_timeouts));
	hipsvm_jw_key(w, "drain_ns");
	hipsvm_jw_raw(w, "{");
	hipsvm_jw_ku64(w, "count", G(d->drain_count));
	hipsvm_jw_ku64(w, "median", hipsvm_stats_drain_median(d));
	hipsvm_jw_ku64(w, "max", G(d->drain_max));
	hipsvm_jw_ku64(w, "total", G(d->drain_total));
	hist(w, d);
	hipsvm_jw_raw(w, "}");
	hipsvm_jw_key(w, "faults");
	hipsvm_jw_raw(w, "{");
	hipsvm_jw_ku64(w, "raised", G(d->faults_raised));
	hipsvm_jw_ku64(w, "handled", G(d->faults_handled));
	hipsvm_jw_ku64(w, "dropped", G(d->faults_dropped));
	hipsvm_jw_ku64(w, "real", G(d->faults_real));
	hipsvm_jw_raw(w, "}}");
}

static void context(struct hipsvm_jw *w, const struct hipsvm_stats *s, int id, unsigned ndev)
{
	const struct hipsvm_ctx_stats *c = id == HIPSVM_CTX_HOST ? &s->host : &s->primary[id];
	struct hipsvm_mem_view v;
	unsigned i;

	hipsvm_stats_mem(s, id == HIPSVM_CTX_HOST ? HIPSVM_STATS_MEM_HOST : HIPSVM_STATS_MEM_CTX(id), &v);
	hipsvm_jw_sep(w);
	hipsvm_jw_raw(w, "{");
	hipsvm_jw_key(w, "id");
	if (id == HIPSVM_CTX_HOST) {
		hipsvm_jw_str(w, "host_context");
	} else {
		hipsvm_jw_raw(w, "\"device:");
		hipsvm_jw_u64(w, (uint64_t)id);
		hipsvm_jw_raw(w, "\"");
	}
	hipsvm_jw_key(w, "devices");
	hipsvm_jw_raw(w, "[");
	if (id == HIPSVM_CTX_HOST) {
		for (i = 0; i < ndev; i++) {
			hipsvm_jw_sep(w);
			hipsvm_jw_u64(w, i);
		}
	} else {
		hipsvm_jw_u64(w, (uint64_t)id);
	}
	hipsvm_jw_raw(w, "]");
	mem(w, &v);
	hipsvm_jw_ku64(w, "unmaps_coordinated", G(c->unmaps_coordinated));
	hipsvm_jw_raw(w, "}");
}

int hipsvm_report_format(const struct hipsvm_stats *s, const struct hipsvm_report_meta *m,
			 char *buf, size_t cap)
{
	static const char *const unmap_keys[HIPSVM_UNMAP_COUNT] = {
		[HIPSVM_UNMAP_TRACKED] = "tracked",
		[HIPSVM_UNMAP_COORDINATED] = "coordinated",
		[HIPSVM_UNMAP_UNCOORDINATED] = "uncoordinated",
		[HIPSVM_UNMAP_PARTIAL] = "partial",
		[HIPSVM_UNMAP_LIVE_SVM] = "live_svm_unmapped",
		[HIPSVM_UNMAP_LIVE_SVM_BYTES] = "live_svm_unmapped_bytes",
		[HIPSVM_UNMAP_REENTRANT_SKIPPED] = "reentrant_skipped",
		[HIPSVM_UNMAP_REFUSED] = "refused",
		[HIPSVM_UNMAP_FREED_AFTER] = "freed_after_unmap",
		[HIPSVM_UNMAP_BY_HIP] = "by_hip",
	};
	unsigned ndev = hipsvm_report_ndev(s, m->ndev), i;
	struct hipsvm_jw w;

	hipsvm_jw_init(&w, buf, cap);
	hipsvm_jw_raw(&w, "{");
	hipsvm_jw_kstr(&w, "schema", HIPSVM_REPORT_SCHEMA);
	hipsvm_jw_ku64(&w, "pid", (uint64_t)m->pid);
	hipsvm_jw_kstr(&w, "program", m->program ? m->program : "");
	hipsvm_jw_kstr(&w, "host", m->host ? m->host : "");
	hipsvm_jw_kstr(&w, "rank", m->rank ? m->rank : "");
	hipsvm_jw_kstr(&w, "rocr_visible_devices", m->rocr_visible ? m->rocr_visible : "");
	hipsvm_jw_kstr(&w, "hip_visible_devices", m->hip_visible ? m->hip_visible : "");
	hipsvm_jw_ku64(&w, "duration_ns", m->duration_ns);
	hipsvm_jw_kstr(&w, "runtime", m->runtime ? m->runtime : "unknown");
	hipsvm_jw_kstr(&w, "policy", m->policy ? m->policy : "default");
	hipsvm_jw_key(&w, "hook");
	hipsvm_jw_raw(&w, "{");
	hipsvm_jw_kstr(&w, "path", m->hook_path ? m->hook_path : "");
	hipsvm_jw_kstr(&w, "state", m->hook_state ? m->hook_state : "none");
	hipsvm_jw_ku64(&w, "version", m->hook_version);
	hipsvm_jw_raw(&w, "}");

	hipsvm_jw_key(&w, "devices");
	hipsvm_jw_raw(&w, "[");
	for (i = 0; i < ndev; i++)
		device(&w, s, m, i);
	hipsvm_jw_raw(&w, "]");

	hipsvm_jw_key(&w, "contexts");
	hipsvm_jw_raw(&w, "[");
	context(&w, s, HIPSVM_CTX_HOST, ndev);
	for (i = 0; i < ndev; i++)
		context(&w, s, (int)i, ndev);
	hipsvm_jw_raw(&w, "]");

	hipsvm_jw_key(&w, "routing");
	hipsvm_jw_raw(&w, "{");
	for (i = 0; i < HIPSVM_ROUTE_COUNT; i++)
		hipsvm_jw_ku64(&w, hipsvm_route_name(i), hipsvm_stats_route(s, i));
	hipsvm_jw_ku64(&w, "quota_denied", G(s->quota_denied));
	hipsvm_jw_raw(&w, "}");

	hipsvm_jw_key(&w, "hip_memory");
	hipsvm_jw_raw(&w, "{");
	hipsvm_jw_ku64(&w, "pool_trims", G(s->pool_trims));
	hipsvm_jw_ku64(&w, "pools_destroyed", G(s->pools_destroyed));
	hipsvm_jw_ku64(&w, "pool_exports", G(s->pool_exports));
	hipsvm_jw_ku64(&w, "vmm_reserves", G(s->vmm_reserves));
	hipsvm_jw_ku64(&w, "vmm_maps", G(s->vmm_maps));
	hipsvm_jw_ku64(&w, "vmm_frees", G(s->vmm_frees));
	hipsvm_jw_raw(&w, "}");

	hipsvm_jw_key(&w, "unmaps");
	hipsvm_jw_raw(&w, "{");
	for (i = 0; i < HIPSVM_UNMAP_COUNT; i++)
		hipsvm_jw_ku64(&w, unmap_keys[i], G(s->unmap[i]));
	hipsvm_jw_raw(&w, "}");

	hipsvm_jw_key(&w, "errors");
	hipsvm_jw_raw(&w, "{");
	hipsvm_jw_ku64(&w, "runtime_errors", G(s->error[HIPSVM_ERR_RUNTIME]));
	hipsvm_jw_ku64(&w, "unknown_pointer_frees", G(s->error[HIPSVM_ERR_UNKNOWN_POINTER_FREE]));
	hipsvm_jw_ku64(&w, "trace_events_lost", m->trace_lost);
	hipsvm_jw_raw(&w, "}");

	/* every allocating and freeing HIP call that was recorded, by name */
	hipsvm_jw_key(&w, "apis");
	hipsvm_jw_raw(&w, "{");
	for (i = 0; i < HIPSVM_API_COUNT; i++) {
		uint64_t calls, bytes;

		hipsvm_stats_api_sum(s, i, &calls, &bytes);
		if (!calls)
			continue;
		hipsvm_jw_key(&w, hipsvm_api_row(i)->name);
		hipsvm_jw_raw(&w, "{");
		hipsvm_jw_ku64(&w, "calls", calls);
		if (hipsvm_api_row(i)->rule != HIPSVM_RULE_BY_POINTER)
			hipsvm_jw_ku64(&w, "bytes", bytes);
		hipsvm_jw_raw(&w, "}");
	}
	hipsvm_jw_raw(&w, "}}\n");
	return hipsvm_jw_end(&w);
}

/* Decimal or 0x hex, as the protocol writes numbers. */
static int parse_u64(const char *s, uint64_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/* "g12.faults_raised" -> 12 and the field; -EINVAL otherwise. */
static int fault_key(const char *k, unsigned *dev, uint64_t **field, struct hipsvm_stats *s)
{
	static const char pre[] = ".faults_";
	unsigned d = 0;
	const char *p = k + 1;

	if (k[0] != 'g' || *p < '0' || *p > '9')
		return -EINVAL;
	while (*p >= '0' && *p <= '9' && d < 1000)
		d = d * 10 + (unsigned)(*p++ - '0');
	if (d >= HIPSVM_STATS_MAX_DEV || strncmp(p, pre, sizeof(pre) - 1))
		return -EINVAL;
	p += sizeof(pre) - 1;
	if (!strcmp(p, "raised"))
		*field = &s->dev[d].faults_raised;
	else if (!strcmp(p, "handled"))
		*field = &s->dev[d].faults_handled;
	else if (!strcmp(p, "dropped"))
		*field = &s->dev[d].faults_dropped;
	else if (!strcmp(p, "real"))
		*field = &s->dev[d].faults_real;
	else
		return -EINVAL;
	*dev = d;
	return 0;
}

int hipsvm_report_apply_faults(struct hipsvm_stats *s, const struct hipsvm_reply *r)
{
	uint64_t seen = 0;
	unsigned i, dev, n = 0;

	if (r->status)
		return 0;
	for (i = 0; i < r->ntok && i < HIPSVM_PROTO_MAX_TOKENS; i++) {
		uint64_t *field, v;

		if (fault_key(r->tok[i].key, &dev, &field, s))
			continue;
		if (parse_u64(r->tok[i].val, &v))
			continue;
		__atomic_store_n(field, v, __ATOMIC_RELAXED);
		if (!(seen & (UINT64_C(1) << dev))) {
			seen |= UINT64_C(1) << dev;
			n++;
		}
	}
	return (int)n;
}

int hipsvm_report_save(const char *path, const char *buf, size_t len)
{
	struct hipsvm_outfile o;
	int rc;

	if (!path[0])
		return -EINVAL;
	rc = hipsvm_outfile_begin(&o, path, NULL, 0);
	if (rc)
		return rc;
	rc = hipsvm_outfile_write(&o, buf, len);
	if (rc) {
		hipsvm_outfile_abort(&o);
		return rc;
	}
	return hipsvm_outfile_commit(&o);
}
