/* SPDX-License-Identifier: MIT */
/*
 * render_data.c - a report as data: normalised JSON (every key of the schema,
 * in its order) and CSV (one value per row), both driven by the key lists of
 * render.c so that the formats cannot drift.
 */
#include "cli.h"
#include "render.h"

#include <string.h>

/* ---- normalised JSON: every schema key present, in schema order ---- */

/* '{' and the keys, the object left open. */
static void json_members(FILE *f, const struct json *o, const char *const *keys)
{
	size_t i;

	fputc('{', f);
	for (i = 0; keys[i]; i++)
		fprintf(f, "%s\"%s\":%llu", i ? "," : "", keys[i], (unsigned long long)json_u64(o, keys[i], 0));
}

static void json_obj(FILE *f, const struct json *o, const char *const *keys)
{
	json_members(f, o, keys);
	fputc('}', f);
}

/* A drain histogram's counts (schema 3; none in older reports). */
static size_t hist_n(const struct json *dn)
{
	const struct json *h = json_get(dn, "hist");

	return json_is(h, JSON_ARR) ? h->n : 0;
}

static uint64_t hist_at(const struct json *dn, size_t i)
{
	const struct json *h = json_get(dn, "hist"), *v = h->items[i];

	return json_is(v, JSON_NUM) && v->is_int && !v->neg ? v->u64 : 0;
}

/* "apis": one object per HIP call name, as the report has them. */
static void apis_json(FILE *f, const struct json *apis)
{
	static const char *const keys[] = { "calls", "bytes", NULL };
	size_t i, k;

	for (i = 0; json_is(apis, JSON_OBJ) && i < apis->n; i++) {
		fputs(i ? "," : "", f);
		json_write_str(f, apis->keys[i]);
		fputs(":{", f);
		for (k = 0; keys[k]; k++)
			fprintf(f, "%s\"%s\":%llu", k ? "," : "", keys[k],
				(unsigned long long)json_u64(apis->items[i], keys[k], 0));
		fputc('}', f);
	}
}

void render_json(FILE *f, const struct json *r)
{
	const struct json *devs = render_arr(r, "devices"), *ctxs = render_arr(r, "contexts"), *hook = json_get(r, "hook");
	size_t i, k;

	fputs("{\"schema\":\"hipsvm-report/4\",", f);
	fprintf(f, "\"pid\":%llu,\"program\":", (unsigned long long)json_u64(r, "pid", 0));
	json_write_str(f, json_str(r, "program", ""));
	for (k = 0; launch_keys[k]; k++) {
		fprintf(f, ",\"%s\":", launch_keys[k]);
		json_write_str(f, json_str(r, launch_keys[k], ""));
	}
	fprintf(f, ",\"duration_ns\":%llu,\"runtime\":", (unsigned long long)json_u64(r, "duration_ns", 0));
	json_write_str(f, json_str(r, "runtime", "unknown"));
	fputs(",\"policy\":", f);
	json_write_str(f, json_str(r, "policy", ""));
	fputs(",\n\"hook\":{\"path\":", f);
	json_write_str(f, json_str(hook, "path", ""));
	fputs(",\"state\":", f);
	json_write_str(f, json_str(hook, "state", "none"));
	fprintf(f, ",\"version\":%llu},\n\"devices\":[", (unsigned long long)json_u64(hook, "version", 0));
	for (i = 0; i < render_count(devs); i++) {
		const struct json *d = devs->items[i];

		fputs(i ? ",\n  {" : "\n  {", f);
		for (k = 0; dev_keys[k]; k++)
			fprintf(f, "%s\"%s\":%llu", k ? "," : "", dev_keys[k],
				(unsigned long long)json_u64(d, dev_keys[k], k == 0 ? i : 0));
		fputs(",\"drain_ns\":", f);
		json_members(f, json_get(d, "drain_ns"), drain_keys);
		fputs(",\"hist\":[", f);
		for (k = 0; k < hist_n(json_get(d, "drain_ns")); k++)
			fprintf(f, "%s%llu", k ? "," : "", (unsigned long long)hist_at(json_get(d, "drain_ns"), k));
		fputs("]}", f);
		fputs(",\"faults\":", f);
		json_obj(f, json_get(d, "faults"), fault_keys);
		fputc('}', f);
	}
	fputs("],\n\"contexts\":[", f);
	for (i = 0; i < render_count(ctxs); i++) {
		const struct json *c = ctxs->items[i], *dl = json_get(c, "devices");

		fputs(i ? ",\n  {\"id\":" : "\n  {\"id\":", f);
		json_write_str(f, json_str(c, "id", ""));
		fputs(",\"devices\":[", f);
		for (k = 0; json_is(dl, JSON_ARR) && k < dl->n; k++)
			fprintf(f, "%s%llu", k ? "," : "", (unsigned long long)(dl->items[k]->is_int ? dl->items[k]->u64 : 0));
		fputc(']', f);
		for (k = 0; ctx_keys[k]; k++)
			fprintf(f, ",\"%s\":%llu", ctx_keys[k], (unsigned long long)json_u64(c, ctx_keys[k], 0));
		fputc('}', f);
	}
	fputs("],\n\"routing\":", f);
	json_obj(f, json_get(r, "routing"), routing_keys);
	fputs(",\n\"hip_memory\":", f);
	json_obj(f, json_get(r, "hip_memory"), hipmem_keys);
	fputs(",\n\"unmaps\":", f);
	json_obj(f, json_get(r, "unmaps"), unmap_keys);
	fputs(",\n\"errors\":", f);
	json_obj(f, json_get(r, "errors"), error_keys);
	fputs(",\n\"apis\":{", f);
	apis_json(f, json_get(r, "apis"));
	fputs("}}\n", f);
}

/* ---- CSV: one value per row, "section,id,key,value" ---- */

void csv_str(FILE *f, const char *s)
{
	s = tool_esc(s);	/* often read on a terminal: no raw control */
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_obj(FILE *f, const char *section, const char *id, const char *prefix,
		    const struct json *o, const char *const *keys)
{
	size_t i;

	for (i = 0; keys[i]; i++) {
		/* id comes from the file (a context id, an API name): escaped */
		fprintf(f, "%s,", section);
		csv_str(f, id);
		fprintf(f, ",%s%s,%llu\n", prefix, keys[i], (unsigned long long)json_u64(o, keys[i], 0));
	}
}

void render_csv(FILE *f, const struct json *r)
{
	const struct json *devs = render_arr(r, "devices"), *ctxs = render_arr(r, "contexts"), *hook = json_get(r, "hook");
	char id[64], dl[128];
	size_t i;

	fputs("section,id,key,value\n", f);
	fputs("run,,program,", f);
	csv_str(f, json_str(r, "program", ""));
	for (i = 0; launch_keys[i]; i++) {
		fprintf(f, "\nrun,,%s,", launch_keys[i]);
		csv_str(f, json_str(r, launch_keys[i], ""));
	}
	fprintf(f, "\nrun,,pid,%llu\nrun,,duration_ns,%llu\nrun,,runtime,",
		(unsigned long long)json_u64(r, "pid", 0), (unsigned long long)json_u64(r, "duration_ns", 0));
	csv_str(f, json_str(r, "runtime", "unknown"));
	fputs("\nrun,,policy,", f);
	csv_str(f, json_str(r, "policy", ""));
	fputs("\nhook,,path,", f);
	csv_str(f, json_str(hook, "path", ""));
	fputs("\nhook,,state,", f);
	csv_str(f, json_str(hook, "state", "none"));
	fprintf(f, "\nhook,,version,%llu\n", (unsigned long long)json_u64(hook, "version", 0));
	for (i = 0; i < render_count(devs); i++) {
		const struct json *d = devs->items[i];

		snprintf(id, sizeof(id), "%llu", (unsigned long long)json_u64(d, "index", i));
		csv_obj(f, "device", id, "", d, dev_keys + 1);
		csv_obj(f, "device", id, "drain_ns.", json_get(d, "drain_ns"), drain_keys);
		for (size_t k = 0; k < hist_n(json_get(d, "drain_ns")); k++)
			fprintf(f, "device,%s,drain_ns.hist.%llu,%llu\n", id,
				(unsigned long long)(json_u64(json_get(d, "drain_ns"), "hist_lo", 0) + k),
				(unsigned long long)hist_at(json_get(d, "drain_ns"), k));
		csv_obj(f, "device", id, "faults.", json_get(d, "faults"), fault_keys);
	}
	for (i = 0; i < render_count(ctxs); i++) {
		const struct json *c = ctxs->items[i];

		snprintf(id, sizeof(id), "%s", json_str(c, "id", "?"));
		render_dev_list(json_get(c, "devices"), dl, sizeof(dl));
		fputs("context,", f);
		csv_str(f, id);
		fputs(",devices,", f);
		csv_str(f, dl);
		fputc('\n', f);
		csv_obj(f, "context", id, "", c, ctx_keys);
	}
	csv_obj(f, "routing", "", "", json_get(r, "routing"), routing_keys);
	csv_obj(f, "unmaps", "", "", json_get(r, "unmaps"), unmap_keys);
	csv_obj(f, "errors", "", "", json_get(r, "errors"), error_keys);
	csv_obj(f, "hip_memory", "", "", json_get(r, "hip_memory"), hipmem_keys);
	for (i = 0; json_is(json_get(r, "apis"), JSON_OBJ) && i < json_get(r, "apis")->n; i++) {
		static const char *const keys[] = { "calls", "bytes", NULL };
		const struct json *apis = json_get(r, "apis");

		csv_obj(f, "api", apis->keys[i], "", apis->items[i], keys);
	}
}
