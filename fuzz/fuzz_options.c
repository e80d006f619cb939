/* SPDX-License-Identifier: MIT */
/*
 * fuzz_options.c - the option tables' parsers (src/shim/options.c), on the
 * shim's table and the simulator's (src/simcore/sim_options.c).
 *
 * The shim reads the environment of every process it is preloaded into, before
 * libc is ready, so a hostile or merely odd environment must not crash it.
 * The input is split at NUL bytes into an envp array (each string an exact-size
 * heap copy, so ASan sees any over-read). Checked:
 *   - hipsvm_options_load and hipsvm_sim_options_load: return the error count, every numeric option stays
 *     within its row's [min, max], every string is terminated in its buffer;
 *   - a set of a fuzzed row of either table and value: 0 or -errno, and on
 *     failure the options are unchanged (the contract: o unchanged);
 *   - hipsvm_parse_bool/size/u64: out untouched on failure; a number that
 *     parse_u64 accepts is the same number for parse_size; a size's value
 *     written back in decimal parses to itself;
 *   - hipsvm_options_format, hipsvm_expand_path and hipsvm_outname (output
 *     names, with the rest of the input as their environment) never write
 *     past cap.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/options.h"
#include "simcore/sim_options.h"
#include "shim/outname.h"

#define MAX_VARS 32
#define SENTINEL UINT64_C(0x5a5a5a5a5a5a5a5a)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct vals {
	const uint64_t *num;
	const char (*str)[HIPSVM_OPT_STR_MAX];
};

static void check_table(const struct hipsvm_option_table *t, struct vals o)
{
	unsigned i;

	for (i = 0; i < t->n; i++) {
		const struct hipsvm_option_desc *d = hipsvm_opt_row(t, i);

		switch (d->type) {
		case HIPSVM_OPT_BOOL:
			if (o.num[i] > 1)
				abort();
			break;
		case HIPSVM_OPT_INT:
		case HIPSVM_OPT_SIZE:
			if (o.num[i] < d->min || o.num[i] > d->max)
				abort();
			if (t->ok && !t->ok(i, o.num[i]))
				abort();
			break;
		case HIPSVM_OPT_STRING:
			if (!memchr(o.str[i], '\0', HIPSVM_OPT_STR_MAX))
				abort();
			break;
		}
	}
}

static void check_parsers(const char *s)
{
	uint64_t u = SENTINEL, z = SENTINEL, again = SENTINEL;
	bool b = true;
	char dec[24];
	int ru, rz;

	if (hipsvm_parse_bool(s, &b) != 0 && b != true)
		abort();
	ru = hipsvm_parse_u64(s, &u);
	if (ru != 0 && u != SENTINEL)
		abort();
	rz = hipsvm_parse_size(s, &z);
	if (rz != 0 && z != SENTINEL)
		abort();
	if ((ru != 0 && ru != -EINVAL && ru != -ERANGE) ||
	    (rz != 0 && rz != -EINVAL && rz != -ERANGE))
		abort();
	if (ru == 0 && (rz != 0 || z != u))
		abort();	/* a plain number is a size in bytes */
	if (rz == 0) {
		snprintf(dec, sizeof(dec), "%" PRIu64, z);
		if (hipsvm_parse_size(dec, &again) != 0 || again != z)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hipsvm_options o, before;
	static struct hipsvm_sim_options so, sbefore;
	struct hipsvm_opt_error errs[4];
	char *envp[MAX_VARS + 1];
	char out[512], path[64];
	size_t start = 0, i;
	unsigned n = 0, k;
	int nerr, rc;

	for (i = 0; i <= size && n < MAX_VARS; i++) {
		if (i == size || data[i] == '\0') {
			envp[n] = malloc(i - start + 1);
			if (!envp[n])
				break;
			memcpy(envp[n], data + start, i - start);
			envp[n][i - start] = '\0';
			n++;
			start = i + 1;
		}
	}
	envp[n] = NULL;

	nerr = hipsvm_options_load(&o, envp, errs, 4);
	if (nerr < 0 || nerr > (int)n)
		abort();
	for (k = 0; k < (unsigned)nerr && k < 4; k++)
		if (errs[k].err >= 0 || !memchr(errs[k].value, '\0', sizeof(errs[k].value)))
			abort();
	check_table(&hipsvm_shim_option_table, (struct vals){ o.num, o.str });
	nerr = hipsvm_sim_options_load(&so, envp, errs, 4);
	if (nerr < 0 || nerr > (int)n)
		abort();
	for (k = 0; k < (unsigned)nerr && k < 4; k++)
		if (errs[k].err >= 0 || !memchr(errs[k].value, '\0', sizeof(errs[k].value)))
			abort();
	check_table(&hipsvm_sim_option_table, (struct vals){ so.num, so.str });

	/* The first string drives one set: first byte a row of the shim's table,
	 * then of the simulator's, or neither; the rest the value. */
	if (n > 0 && envp[0][0]) {
		unsigned id = (unsigned char)envp[0][0] % (HIPSVM_O_COUNT + HIPSVM_SIM_O_COUNT + 1);

		before = o;
		sbefore = so;
		if (id < HIPSVM_O_COUNT)
			rc = hipsvm_options_set(&o, (enum hipsvm_opt_id)id, envp[0] + 1);
		else
			rc = hipsvm_sim_options_set(&so, (enum hipsvm_sim_opt_id)(id - HIPSVM_O_COUNT),
						    envp[0] + 1);
		if (rc != 0 && (memcmp(&before, &o, sizeof(o)) != 0 ||
				memcmp(&sbefore, &so, sizeof(so)) != 0))
			abort();
		if (rc > 0)
			abort();
		check_table(&hipsvm_shim_option_table, (struct vals){ o.num, o.str });
		check_table(&hipsvm_sim_option_table, (struct vals){ so.num, so.str });
	}
	for (k = 0; k < n; k++) {
		const char *eq = strchr(envp[k], '=');

		check_parsers(envp[k]);
		if (eq)
			check_parsers(eq + 1);
	}

	/* Bounded writers, with a cap taken from the input. */
	{
		size_t cap = size ? (size_t)data[0] % sizeof(out) : 0;
		size_t len;

		memset(out, 0x5a, sizeof(out));
		len = hipsvm_options_format(&o, out, cap);
		if (cap && (len >= cap || out[len] != '\0'))
			abort();
		for (i = cap; i < sizeof(out); i++)
			if (out[i] != 0x5a)
				abort();
	}
	if (n > 0) {
		size_t cap = size > 1 ? (size_t)data[1] % sizeof(path) : sizeof(path);

		memset(path, 0x5a, sizeof(path));
		rc = hipsvm_expand_path(envp[0], 4194304, path, cap);
		if (rc == 0 && (!cap || !memchr(path, '\0', cap)))
			abort();
		for (i = cap; i < sizeof(path); i++)
			if (path[i] != (char)0x5a)
				abort();
	}
	if (n > 0) {
		/* Output names: the template and the environment both fuzzed. */
		size_t cap = size > 2 ? (size_t)data[2] % sizeof(path) : sizeof(path);

		memset(path, 0x5a, sizeof(path));
		rc = hipsvm_outname(envp[0], 4194304, envp + 1, path, cap);
		if (rc != 0 && rc != -EINVAL && rc != -ENAMETOOLONG)
			abort();
		if (rc == 0 && (!cap || !memchr(path, '\0', cap)))
			abort();
		for (i = cap; i < sizeof(path); i++)
			if (path[i] != (char)0x5a)
				abort();
	}
	for (k = 0; k < n; k++)
		free(envp[k]);
	return 0;
}
