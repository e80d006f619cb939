/* SPDX-License-Identifier: MIT */
/*
 * options_cmd.c - hipsvm options: the option table with the values in force.
 */
#include "cli.h"
#include "shim/options.h"
#include "simcore/sim_options.h"
#include "shim/policy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

static const char options_help[] =
"Usage: hipsvm options [NAME=VALUE...]\n"
"\n"
"Prints every HIPSVM_* option of the shim and the simulator with the value in\n"
"force in this environment, its default and what it does; bad values are\n"
"reported. NAME=VALUE arguments (with or without the HIPSVM_ prefix) are\n"
"applied on top, to preview a setting. The tool-only variables\n"
"HIPSVM_SHIM_PATH and HIPSVM_SIM_DIR are listed after the table.\n"
"Reference: docs/ENVIRONMENT.md.\n";

static const char *err_text(int err)
{
	switch (err) {
	case -ERANGE: return "out of range";
	case -ENAMETOOLONG: return "too long";
	default: return "not a valid value";
	}
}

/* The option table takes any string as a policy: the policy's own parser
 * says whether the shim would accept it. */
static int policy_ok(const char *v)
{
	struct hipsvm_policy pol;
	char bad[64];

	return *v && hipsvm_policy_parse(v, &pol, bad, sizeof(bad)) == 0 ? 0 : -EINVAL;
}

int cmd_options(int argc, char **argv)
{
	struct hipsvm_opt_error errs[16];
	static struct hipsvm_options o;
	static struct hipsvm_sim_options so;
	/* The shim's table, then the simulator's: same format, same parsers. */
	const struct {
		const struct hipsvm_option_table *t;
		struct hipsvm_optvals v;
	} tabs[] = {
		{ &hipsvm_shim_option_table, { o.num, o.str, o.from_env } },
		{ &hipsvm_sim_option_table, { so.num, so.str, so.from_env } },
	};
	const size_t ntabs = sizeof(tabs) / sizeof(tabs[0]);
	char **env, *buf;
	size_t n = 0, i, k, cap = 1 << 16, len = 0;
	const char *v;
	int nerr, i2, bad = 0;

	for (i2 = 1; i2 < argc; i2++) {
		if (strcmp(argv[i2], "-h") == 0 || strcmp(argv[i2], "--help") == 0) {
			fputs(options_help, stdout);
			return 0;
		}
	}
	/* The tool-only variables are not options: hide them from the loader,
	 * which would call them unknown. */
	for (env = environ; *env; env++)
		n++;
	env = calloc(n + 1, sizeof(*env));
	buf = malloc(cap);
	if (!env || !buf) {
		free(env);
		free(buf);
		tool_err("out of memory");
		return 1;
	}
	n = 0;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "HIPSVM_SHIM_PATH=", 17) != 0 && strncmp(*e, "HIPSVM_SIM_DIR=", 15) != 0)
			env[n++] = *e;
	for (k = 0; k < ntabs; k++) {
		nerr = hipsvm_opt_load(tabs[k].t, tabs[k].v, env, errs, 16);
		for (i = 0; i < (size_t)nerr && i < 16; i++) {
			const struct hipsvm_option_desc *d = hipsvm_opt_row(tabs[k].t, errs[i].id);

			if (!d)
				tool_err("unknown variable in the environment: %s", errs[i].value);
			else
				tool_err("HIPSVM_%s=%s: %s, the default (%s) stays in force", d->name,
					 errs[i].value, err_text(errs[i].err), d->def);
		}
	}
	v = getenv("HIPSVM_POLICY");
	if (v && policy_ok(v))
		tool_err("HIPSVM_POLICY=%s: not a valid policy (docs/routing.md); the shim would refuse it", v);
	for (i2 = 1; i2 < argc; i2++) {
		const char *a = argv[i2], *eq = strchr(a, '=');
		unsigned id = 0;
		char name[128];
		int e;

		if (!eq || eq == a || (size_t)(eq - a) >= sizeof(name)) {
			free(env);
			free(buf);
			return usage_err("options", "'%s': expected NAME=VALUE", a);
		}
		memcpy(name, a, (size_t)(eq - a));
		name[eq - a] = '\0';
		for (k = 0; k < ntabs; k++)
			if (hipsvm_opt_lookup(tabs[k].t, name, &id) == 0)
				break;
		if (k == ntabs) {
			free(env);
			free(buf);
			return usage_err("options", "'%s': no such option", name);
		}
		e = hipsvm_opt_set(tabs[k].t, tabs[k].v, id, eq + 1);
		if (!e && tabs[k].t == &hipsvm_shim_option_table && id == HIPSVM_O_POLICY)
			e = policy_ok(eq + 1);
		if (e) {
			tool_err("%s: %s", a, err_text(e));
			bad = 1;
		}
	}
	for (k = 0; k < ntabs && len < cap - 1; k++)
		len += hipsvm_opt_format(tabs[k].t, tabs[k].v, buf + len, cap - len);
	fputs(buf, stdout);
	v = getenv("HIPSVM_SHIM_PATH");
	printf("\ntool only (hipsvm run/trace, not the shim):\n");
	printf("HIPSVM_SHIM_PATH=%s  where the shim is (default: next to this tool, then the install path)\n", v ? v : "");
	v = getenv("HIPSVM_SIM_DIR");
	printf("HIPSVM_SIM_DIR=%s  directory of the simulated libamdhip64.so.5 (same default)\n", v ? v : "");
	free(env);
	free(buf);
	return bad ? EXIT_USAGE : 0;
}
