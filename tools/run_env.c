/* SPDX-License-Identifier: MIT */
/*
 * run_env.c - the environment hipsvm run gives the program: the caller's,
 * less the tool-only variables, plus LD_PRELOAD, LD_LIBRARY_PATH (simulator)
 * and the HIPSVM_* settings the options asked for.
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* Read by this tool only; the shim's option loader would call them unknown. */
static const char *const tool_only[] = { "HIPSVM_SHIM_PATH=", "HIPSVM_SIM_DIR=", NULL };

static bool env_name_eq(const char *entry, const char *name_eq)
{
	size_t n = strcspn(name_eq, "=");

	return strncmp(entry, name_eq, n) == 0 && entry[n] == '=';
}

static void env_del(struct run_env *e, const char *name_eq)
{
	size_t i, j = 0;

	for (i = 0; i < e->n; i++)
		if (!env_name_eq(e->v[i], name_eq))
			e->v[j++] = e->v[i];
	e->n = j;
}

/* Takes ownership of a malloc'd or static NAME=VALUE; replaces any earlier one. */
static int env_put(struct run_env *e, char *kv)
{
	char **nv;

	env_del(e, kv);
	if (e->n + 2 > e->cap) {
		e->cap = e->cap ? e->cap * 2 : 64;
		nv = realloc(e->v, e->cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		e->v = nv;
	}
	e->v[e->n++] = kv;
	e->v[e->n] = NULL;
	return 0;
}

static char *kv(const char *name, const char *a, const char *sep, const char *b)
{
	char *s = NULL;

	if (asprintf(&s, "%s=%s%s%s", name, a, b && *b ? sep : "", b ? b : "") < 0)
		return NULL;
	return s;
}

const char *run_env_get(char **env, const char *name)
{
	size_t n = strlen(name);

	for (; env && *env; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

int run_env_build(struct run_opts *o, const struct tool_paths *tp, bool sim,
		  bool want_events, struct run_env *e, const char **user_report)
{
	const char *old, *rep_env, *trace_env;
	char *s, **ep;
	size_t i;
	int err = 0;

	/* A report or trace path already in the environment is honoured like
	 * --report/--trace, since the shim's own path is taken over below. */
	rep_env = run_env_get(environ, "HIPSVM_REPORT");
	trace_env = run_env_get(environ, "HIPSVM_TRACE");
	*user_report = o->report ? o->report : (rep_env && *rep_env ? rep_env : NULL);
	if (!o->trace && trace_env && *trace_env)
		o->trace = trace_env;

	for (ep = environ; *ep; ep++) {
		const char *const *t;
		bool skip = false;

		for (t = tool_only; *t; t++)
			if (strncmp(*ep, *t, strlen(*t)) == 0)
				skip = true;
		if (!skip && (err = env_put(e, *ep)) != 0)
			return err;
	}
	old = run_env_get(environ, "LD_PRELOAD");
	if (!(s = kv("LD_PRELOAD", tp->shim, ":", old)) || env_put(e, s))
		return -ENOMEM;
	if (sim) {
		old = run_env_get(environ, "LD_LIBRARY_PATH");
		if (!(s = kv("LD_LIBRARY_PATH", tp->simdir, ":", old)) || env_put(e, s))
			return -ENOMEM;
	}
	if (asprintf(&s, "HIPSVM_REPORT=%s/report.%%p.json", o->workdir) < 0 || env_put(e, s))
		return -ENOMEM;
	if (o->trace) {
		if (!(s = kv("HIPSVM_TRACE", o->trace, "", NULL)) || env_put(e, s))
			return -ENOMEM;
	} else if (want_events) {
		if (asprintf(&s, "HIPSVM_TRACE=%s/events.%%p.jsonl", o->workdir) < 0 || env_put(e, s))
			return -ENOMEM;
	} else {
		env_del(e, "HIPSVM_TRACE=");
	}
	if (o->gpus && (!(s = kv("HIPSVM_SIM_GPUS", o->gpus, "", NULL)) || env_put(e, s)))
		return -ENOMEM;
	if (o->sim_mem && (!(s = kv("HIPSVM_SIM_MEM", o->sim_mem, "", NULL)) || env_put(e, s)))
		return -ENOMEM;
	if (o->policy && (!(s = kv("HIPSVM_POLICY", o->policy, "", NULL)) || env_put(e, s)))
		return -ENOMEM;
	if (o->hook && (!(s = kv("HIPSVM_HOOK", o->hook, "", NULL)) || env_put(e, s)))
		return -ENOMEM;
	if (o->follow && (!(s = kv("HIPSVM_INHERIT", "1", "", NULL)) || env_put(e, s)))
		return -ENOMEM;
	/* -q: the simulator's notes too, unless the environment says otherwise. */
	if (o->quiet && !run_env_get(environ, "HIPSVM_SIM_QUIET") &&
	    (!(s = kv("HIPSVM_SIM_QUIET", "1", "", NULL)) || env_put(e, s)))
		return -ENOMEM;
	for (i = 0; i < o->n_env; i++)
		if (env_put(e, (char *)o->env[i]))
			return -ENOMEM;
	return 0;
}

void run_env_free(struct run_env *e, const struct run_opts *o)
{
	/* Only the strings made here are freed: the rest belong to environ/argv. */
	for (size_t i = 0; i < e->n; i++) {
		bool ours = true;

		for (char **ep = environ; *ep && ours; ep++)
			if (e->v[i] == *ep)
				ours = false;
		for (size_t k = 0; k < o->n_env && ours; k++)
			if (e->v[i] == o->env[k])
				ours = false;
		if (ours)
			free(e->v[i]);
	}
	free(e->v);
	e->v = NULL;
	e->n = e->cap = 0;
}
