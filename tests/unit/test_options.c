/* SPDX-License-Identifier: MIT */
/* test_options.c - the option table, its parsers, and docs/ENVIRONMENT.md. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/options.h"
#include "shim/outname.h"
#include "simcore/sim_options.h"

/* ---- the parsers ---- */

Test(options, bool_spellings)
{
	static const char *const yes[] = { "1", "yes", "YES", "Yes", "on", "ON", "true", "TRUE", "tRuE" };
	static const char *const no[] = { "0", "no", "NO", "off", "Off", "false", "FALSE", "fAlSe" };
	static const char *const bad[] = { "", "2", "y", "n", "yess", "tru", "on ", " on", "-1", "01",
					   "enable", "0x1" };
	unsigned i;
	bool b;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		b = false;
		cr_assert_eq(hipsvm_parse_bool(yes[i], &b), 0, "'%s'", yes[i]);
		cr_assert(b, "'%s' is true", yes[i]);
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		b = true;
		cr_assert_eq(hipsvm_parse_bool(no[i], &b), 0, "'%s'", no[i]);
		cr_assert_not(b, "'%s' is false", no[i]);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b = true;
		cr_assert_eq(hipsvm_parse_bool(bad[i], &b), -EINVAL, "'%s' must be refused", bad[i]);
		cr_assert(b, "out untouched");
	}
}

Test(options, u64)
{
	uint64_t v = 7;

	cr_assert_eq(hipsvm_parse_u64("0", &v), 0);
	cr_assert_eq(v, 0u);
	cr_assert_eq(hipsvm_parse_u64("1234567890", &v), 0);
	cr_assert_eq(v, 1234567890u);
	cr_assert_eq(hipsvm_parse_u64("0x1f", &v), 0);
	cr_assert_eq(v, 31u);
	cr_assert_eq(hipsvm_parse_u64("0XABCdef", &v), 0);
	cr_assert_eq(v, 0xabcdefu);
	cr_assert_eq(hipsvm_parse_u64("18446744073709551615", &v), 0);
	cr_assert_eq(v, UINT64_MAX);
	cr_assert_eq(hipsvm_parse_u64("0xffffffffffffffff", &v), 0);
	cr_assert_eq(v, UINT64_MAX);

	v = 7;
	cr_assert_eq(hipsvm_parse_u64("18446744073709551616", &v), -ERANGE);
	cr_assert_eq(hipsvm_parse_u64("99999999999999999999999", &v), -ERANGE);
	cr_assert_eq(hipsvm_parse_u64("0x10000000000000000", &v), -ERANGE);
	cr_assert_eq(hipsvm_parse_u64("", &v), -EINVAL);
	cr_assert_eq(hipsvm_parse_u64("0x", &v), -EINVAL);
	cr_assert_eq(hipsvm_parse_u64("-1", &v), -EINVAL);
	cr_assert_eq(hipsvm_parse_u64("+1", &v), -EINVAL);
	cr_assert_eq(hipsvm_parse_u64(" 1", &v), -EINVAL);
	cr_assert_eq(hipsvm_parse_u64("1 ", &v), -EINVAL);
	cr_assert_eq(hipsvm_parse_u64("12abc", &v), -EINVAL);
	cr_assert_eq(hipsvm_parse_u64("0x1g", &v), -EINVAL);
	cr_assert_eq(hipsvm_parse_u64("1K", &v), -EINVAL, "ints take no suffix");
	cr_assert_eq(hipsvm_parse_u64("abc", &v), -EINVAL);
	cr_assert_eq(v, 7u, "out untouched on failure");
}

Test(options, sizes)
{
	static const struct { const char *s; uint64_t v; } ok[] = {
		{ "0", 0 }, { "512", 512 }, { "512B", 512 }, { "512b", 512 },
		{ "4K", 4096 }, { "4k", 4096 }, { "4KB", 4096 }, { "4KiB", 4096 }, { "4kib", 4096 },
		{ "64M", UINT64_C(64) << 20 }, { "64MiB", UINT64_C(64) << 20 },
		{ "1G", UINT64_C(1) << 30 }, { "1gb", UINT64_C(1) << 30 },
		{ "2T", UINT64_C(2) << 40 }, { "2TiB", UINT64_C(2) << 40 },
		{ "0x10K", 16384 }, { "16383T", UINT64_C(16383) << 40 },
		{ "16777215T", UINT64_C(16777215) << 40 },
		{ "18446744073709551615", UINT64_MAX },
	};
	static const char *const bad[] = { "", "K", "1KK", "1Q", "1iB", "1Ki", "1KBB", "1 K", "-1K",
					   "1.5G", "G1", "1Bi", "1KiBB", "0x" };
	uint64_t v;
	unsigned i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 1;
		cr_assert_eq(hipsvm_parse_size(ok[i].s, &v), 0, "'%s'", ok[i].s);
		cr_assert_eq(v, ok[i].v, "'%s' -> %llu", ok[i].s, (unsigned long long)v);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 1;
		cr_assert_eq(hipsvm_parse_size(bad[i], &v), -EINVAL, "'%s' must be refused", bad[i]);
		cr_assert_eq(v, 1u, "out untouched");
	}
	/* overflow in the multiplication and in the digits */
	cr_assert_eq(hipsvm_parse_size("16777216T", &v), -ERANGE);
	cr_assert_eq(hipsvm_parse_size("17179869184G", &v), -ERANGE);
	cr_assert_eq(hipsvm_parse_size("18446744073709551616", &v), -ERANGE);
	cr_assert_eq(hipsvm_parse_size("18446744073709551615K", &v), -ERANGE);
	cr_assert_eq(v, 1u);
}

Test(options, parsers_reject_null)
{
	uint64_t v;
	bool b;

	cr_assert_eq(hipsvm_parse_bool(NULL, &b), -EINVAL);
	cr_assert_eq(hipsvm_parse_u64(NULL, &v), -EINVAL);
	cr_assert_eq(hipsvm_parse_size(NULL, &v), -EINVAL);
}

/* ---- the table ---- */

/* Every row of t: named, documented in one line, its default parses and is
 * in range; names unique and in the table's scope. */
static void check_table(const struct hipsvm_option_table *t)
{
	static uint64_t num[64];
	static char str[64][HIPSVM_OPT_STR_MAX];
	static bool from_env[64];
	struct hipsvm_optvals o = { num, str, from_env };
	unsigned i, j;

	cr_assert_leq(t->n, 64u);
	hipsvm_opt_defaults(t, o);
	for (i = 0; i < t->n; i++) {
		const struct hipsvm_option_desc *d = hipsvm_opt_row(t, i);
		static uint64_t tnum[64];
		static char tstr[64][HIPSVM_OPT_STR_MAX];
		static bool tfrom[64];
		struct hipsvm_optvals tv = { tnum, tstr, tfrom };
		const char *c;

		cr_assert_not_null(d);
		cr_assert_not_null(d->name, "row %u has no name", i);
		cr_assert_not_null(d->def, "row %s has no default", d->name);
		cr_assert(d->help && *d->help, "row %s has no help", d->name);
		cr_assert_null(strchr(d->help, '\n'), "help of %s is one line", d->name);
		for (c = d->name; *c; c++)
			cr_assert((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_',
				  "name %s: upper case, digits and _ only", d->name);
		cr_assert_neq(strncmp(d->name, "HIPSVM_", 7), 0, "no prefix in the table");
		cr_assert_neq(strncmp(d->name, "TEST_", 5), 0, "TEST_ is reserved");
		cr_assert_eq(strncmp(d->name, t->scope, strlen(t->scope)), 0,
			     "%s is in its table's scope %s", d->name, t->scope);
		for (const char *const *other = t->others; other && *other; other++)
			cr_assert_neq(strncmp(d->name, *other, strlen(*other)), 0,
				      "%s is in a scope the table leaves alone", d->name);
		for (j = 0; j < i; j++)
			cr_assert_str_neq(d->name, hipsvm_opt_row(t, j)->name);
		/* the default parses, and is in range */
		memset(tnum, 0, sizeof(tnum));
		cr_assert_eq(hipsvm_opt_set(t, tv, i, d->def), 0, "default of %s: '%s'", d->name,
			     d->def);
		if (d->type == HIPSVM_OPT_INT || d->type == HIPSVM_OPT_SIZE) {
			cr_assert_leq(d->min, d->max, "%s", d->name);
			cr_assert_geq(num[i], d->min, "%s", d->name);
			cr_assert_leq(num[i], d->max, "%s", d->name);
		}
		if (d->type == HIPSVM_OPT_STRING)
			cr_assert_str_eq(str[i], d->def);
		cr_assert_not(from_env[i]);
	}
	cr_assert_null(hipsvm_opt_row(t, t->n));
	cr_assert_null(hipsvm_opt_row(t, (unsigned)-1));
}

Test(options, table_is_sane)
{
	unsigned i, j;

	check_table(&hipsvm_shim_option_table);
	check_table(&hipsvm_sim_option_table);
	cr_assert_eq(hipsvm_shim_option_table.n, (unsigned)HIPSVM_O_COUNT);
	cr_assert_eq(hipsvm_sim_option_table.n, (unsigned)HIPSVM_SIM_O_COUNT);
	/* no name in both tables */
	for (i = 0; i < HIPSVM_O_COUNT; i++)
		for (j = 0; j < HIPSVM_SIM_O_COUNT; j++)
			cr_assert_str_neq(hipsvm_option_desc(i)->name,
					  hipsvm_sim_option_desc(j)->name);
	cr_assert_null(hipsvm_option_desc(HIPSVM_O_COUNT));
	cr_assert_null(hipsvm_option_desc((enum hipsvm_opt_id)-1));
	cr_assert_null(hipsvm_sim_option_desc(HIPSVM_SIM_O_COUNT));
}


Test(options, defaults)
{
	struct hipsvm_options o;
	struct hipsvm_sim_options so;

	hipsvm_options_defaults(&o);
	hipsvm_sim_options_defaults(&so);
	cr_assert_eq(o.num[HIPSVM_O_ENABLE], 1u);
	cr_assert_eq(o.num[HIPSVM_O_VERBOSE], 0u);
	cr_assert_str_eq(o.str[HIPSVM_O_HOOK], "auto");
	cr_assert_str_eq(o.str[HIPSVM_O_POLICY], "default");
	cr_assert_str_eq(o.str[HIPSVM_O_REPORT], "");
	cr_assert_str_eq(o.str[HIPSVM_O_TRACE], "");
	cr_assert_eq(o.num[HIPSVM_O_DRAIN_TIMEOUT_MS], 1000u);
	cr_assert_eq(o.num[HIPSVM_O_WARN_LIMIT], 10u);
	cr_assert_eq(o.num[HIPSVM_O_INHERIT], 0u);
	cr_assert_eq(so.num[HIPSVM_SIM_O_GPUS], 4u);
	cr_assert_eq(so.num[HIPSVM_SIM_O_MEM], UINT64_C(64) << 30);
	cr_assert_eq(so.num[HIPSVM_SIM_O_XNACK], 1u);
	cr_assert_eq(so.num[HIPSVM_SIM_O_FGS_MASK], 1u);
	cr_assert_eq(so.num[HIPSVM_SIM_O_RETRY_CAM], 0u);
	cr_assert_eq(so.num[HIPSVM_SIM_O_APU], 0u);
	cr_assert_eq(so.num[HIPSVM_SIM_O_TS_START], 0x1000u);
	cr_assert_eq(so.num[HIPSVM_SIM_O_RING_SIZE], 256u * 1024);
	cr_assert_str_eq(so.str[HIPSVM_SIM_O_SOCKET], "@hipsvm-sim.%p");
	cr_assert_eq(so.num[HIPSVM_SIM_O_SERVE], 1u);
	cr_assert_eq(so.num[HIPSVM_SIM_O_QUIET], 0u);
}

Test(options, lookup)
{
	enum hipsvm_opt_id id = HIPSVM_O_COUNT;
	enum hipsvm_sim_opt_id sid = HIPSVM_SIM_O_COUNT;

	cr_assert_eq(hipsvm_sim_option_lookup("SIM_GPUS", &sid), 0);
	cr_assert_eq(sid, HIPSVM_SIM_O_GPUS);
	cr_assert_eq(hipsvm_sim_option_lookup("HIPSVM_SIM_MEM", &sid), 0);
	cr_assert_eq(sid, HIPSVM_SIM_O_MEM);
	cr_assert_eq(hipsvm_option_lookup("SIM_GPUS", &id), -ENOENT, "the simulator's row");
	cr_assert_eq(hipsvm_sim_option_lookup("ENABLE", &sid), -ENOENT, "the shim's row");
	cr_assert_eq(hipsvm_option_lookup("HIPSVM_DRAIN_TIMEOUT_MS", &id), 0);
	cr_assert_eq(id, HIPSVM_O_DRAIN_TIMEOUT_MS);
	id = HIPSVM_O_COUNT;
	sid = HIPSVM_SIM_O_COUNT;
	cr_assert_eq(hipsvm_sim_option_lookup("SIM_GPU", &sid), -ENOENT);
	cr_assert_eq(hipsvm_sim_option_lookup("SIM_GPUSX", &sid), -ENOENT);
	cr_assert_eq(sid, HIPSVM_SIM_O_COUNT, "out untouched");
	cr_assert_eq(hipsvm_option_lookup("HIPSVM_", &id), -ENOENT);
	cr_assert_eq(hipsvm_option_lookup("", &id), -ENOENT);
	cr_assert_eq(hipsvm_option_lookup("HIPSVM_HIPSVM_ENABLE", &id), -ENOENT);
	cr_assert_eq(id, HIPSVM_O_COUNT, "out untouched");
}

Test(options, set_checks_range_and_length)
{
	struct hipsvm_options o;
	struct hipsvm_sim_options so;
	char big[HIPSVM_OPT_STR_MAX + 1];

	hipsvm_options_defaults(&o);
	hipsvm_sim_options_defaults(&so);
	cr_assert_eq(hipsvm_sim_options_set(&so, HIPSVM_SIM_O_GPUS, "64"), 0);
	cr_assert_eq(so.num[HIPSVM_SIM_O_GPUS], 64u);
	cr_assert_eq(hipsvm_sim_options_set(&so, HIPSVM_SIM_O_GPUS, "65"), -ERANGE);
	cr_assert_eq(hipsvm_sim_options_set(&so, HIPSVM_SIM_O_GPUS, "0"), -ERANGE);
	cr_assert_eq(hipsvm_sim_options_set(&so, HIPSVM_SIM_O_GPUS, "x"), -EINVAL);
	cr_assert_eq(so.num[HIPSVM_SIM_O_GPUS], 64u, "unchanged on failure");
	cr_assert_eq(hipsvm_sim_options_set(&so, HIPSVM_SIM_O_MEM, "512K"), -ERANGE);
	cr_assert_eq(hipsvm_sim_options_set(&so, HIPSVM_SIM_O_MEM, "2T"), -ERANGE);
	cr_assert_eq(hipsvm_sim_options_set(&so, HIPSVM_SIM_O_MEM, "64MiB"), 0);
	cr_assert_eq(so.num[HIPSVM_SIM_O_MEM], UINT64_C(64) << 20);
	cr_assert_eq(hipsvm_sim_options_set(&so, HIPSVM_SIM_O_RING_SIZE, "96K"), -EINVAL,
		     "ring sizes are powers of two");
	cr_assert_eq(hipsvm_sim_options_set(&so, HIPSVM_SIM_O_RING_SIZE, "2K"), -ERANGE);
	cr_assert_eq(hipsvm_sim_options_set(&so, HIPSVM_SIM_O_RING_SIZE, "4K"), 0);
	cr_assert_eq(so.num[HIPSVM_SIM_O_SIMD], 512u, "the widest by default");
	cr_assert_eq(hipsvm_sim_options_set(&so, HIPSVM_SIM_O_SIMD, "128"), -EINVAL,
		     "a width the interpreter has no code for");
	cr_assert_eq(hipsvm_sim_options_set(&so, HIPSVM_SIM_O_SIMD, "1024"), -ERANGE);
	cr_assert_eq(so.num[HIPSVM_SIM_O_SIMD], 512u, "unchanged on failure");
	cr_assert_eq(hipsvm_sim_options_set(&so, HIPSVM_SIM_O_SIMD, "256"), 0);
	cr_assert_eq(hipsvm_sim_options_set(&so, HIPSVM_SIM_O_SIMD, "0"), 0);
	cr_assert_eq(so.num[HIPSVM_SIM_O_SIMD], 0u);
	cr_assert_eq(hipsvm_sim_options_set(&so, HIPSVM_SIM_O_TS_START, "0xffffffffffff"), 0);
	cr_assert_eq(hipsvm_sim_options_set(&so, HIPSVM_SIM_O_TS_START, "0x1000000000000"), -ERANGE);
	cr_assert_eq(hipsvm_sim_options_set(&so, HIPSVM_SIM_O_FGS_MASK, "0xffffffffffffffff"), 0);
	cr_assert_eq(so.num[HIPSVM_SIM_O_FGS_MASK], UINT64_MAX);
	cr_assert_eq(hipsvm_options_set(&o, HIPSVM_O_VERBOSE, "On"), 0);
	cr_assert_eq(o.num[HIPSVM_O_VERBOSE], 1u);
	cr_assert_eq(hipsvm_options_set(&o, HIPSVM_O_VERBOSE, "maybe"), -EINVAL);
	cr_assert_eq(o.num[HIPSVM_O_VERBOSE], 1u);

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';	/* 256 characters: one too many */
	cr_assert_eq(hipsvm_options_set(&o, HIPSVM_O_REPORT, big), -ENAMETOOLONG);
	cr_assert_str_eq(o.str[HIPSVM_O_REPORT], "");
	big[HIPSVM_OPT_STR_MAX - 1] = '\0';	/* 255: fits */
	cr_assert_eq(hipsvm_options_set(&o, HIPSVM_O_REPORT, big), 0);
	cr_assert_str_eq(o.str[HIPSVM_O_REPORT], big);
	cr_assert_eq(hipsvm_options_set(&o, HIPSVM_O_HOOK, ""), 0);
	cr_assert_str_eq(o.str[HIPSVM_O_HOOK], "");
	cr_assert_eq(hipsvm_options_set(&o, HIPSVM_O_COUNT, "1"), -EINVAL);
	cr_assert_eq(hipsvm_sim_options_set(&so, HIPSVM_SIM_O_COUNT, "1"), -EINVAL);
}

/* ---- loading from an environment ---- */

Test(options, load_from_fake_envp)
{
	char *envp[] = {
		"PATH=/usr/bin",
		"HIPSVM_SIM_GPUS=8",
		"HIPSVM_VERBOSE=yes",
		"HIPSVM_SIM_MEM=64M",
		"HIPSVM_REPORT=/tmp/r-%p.json",
		"HIPSVM_SIM_GPUS=2",		/* the first one wins, as getenv */
		"HIPSVM_HOOK=",			/* empty string is a value */
		"HIPSVM_TEST_SEED=42",		/* reserved for tests: not an option, no error */
		"HIPSVM_SIM_XNACK",		/* no '=': not a variable */
		"XHIPSVM_ENABLE=0",
		"hipsvm_enable=0",
		NULL,
	};
	struct hipsvm_options o;
	struct hipsvm_sim_options so;
	struct hipsvm_opt_error errs[4];

	cr_assert_eq(hipsvm_options_load(&o, envp, errs, 4), 0);
	cr_assert_eq(hipsvm_sim_options_load(&so, envp, errs, 4), 0);
	cr_assert_eq(so.num[HIPSVM_SIM_O_GPUS], 8u);
	cr_assert(so.from_env[HIPSVM_SIM_O_GPUS]);
	cr_assert_eq(o.num[HIPSVM_O_VERBOSE], 1u);
	cr_assert_eq(so.num[HIPSVM_SIM_O_MEM], UINT64_C(64) << 20);
	cr_assert_str_eq(o.str[HIPSVM_O_REPORT], "/tmp/r-%p.json");
	cr_assert_str_eq(o.str[HIPSVM_O_HOOK], "");
	cr_assert(o.from_env[HIPSVM_O_HOOK]);
	cr_assert_eq(o.num[HIPSVM_O_ENABLE], 1u);
	cr_assert_not(o.from_env[HIPSVM_O_ENABLE]);
	cr_assert_eq(so.num[HIPSVM_SIM_O_XNACK], 1u);
	cr_assert_not(so.from_env[HIPSVM_SIM_O_XNACK]);
}

Test(options, load_errors)
{
	char *envp[] = {
		"HIPSVM_SIM_GPUS=100",		/* out of range */
		"HIPSVM_ENABLE=nope",		/* garbage */
		"HIPSVM_BOGUS=1",		/* unknown */
		"HIPSVM_SIM_MEM=1Q",		/* garbage */
		"HIPSVM_=x",			/* unknown, empty name */
		"HIPSVM_DRAIN_TIMEOUT_MS=250",	/* fine */
		NULL,
	};
	struct hipsvm_options o;
	struct hipsvm_sim_options so;
	struct hipsvm_opt_error errs[3], serrs[1];

	memset(errs, 0, sizeof(errs));
	memset(serrs, 0, sizeof(serrs));
	/* five errors in all: three are the shim's, two the simulator's */
	cr_assert_eq(hipsvm_options_load(&o, envp, errs, 2), 3, "every error is counted");
	cr_assert_eq(hipsvm_sim_options_load(&so, envp, serrs, 1), 2, "every error is counted");
	/* bad values keep the default */
	cr_assert_eq(so.num[HIPSVM_SIM_O_GPUS], 4u);
	cr_assert_not(so.from_env[HIPSVM_SIM_O_GPUS]);
	cr_assert_eq(o.num[HIPSVM_O_ENABLE], 1u);
	cr_assert_eq(so.num[HIPSVM_SIM_O_MEM], UINT64_C(64) << 30);
	cr_assert_eq(o.num[HIPSVM_O_DRAIN_TIMEOUT_MS], 250u);
	/* the first max_errs are described, in order */
	cr_assert_eq(serrs[0].id, HIPSVM_SIM_O_GPUS);
	cr_assert_eq(serrs[0].err, -ERANGE);
	cr_assert_str_eq(serrs[0].value, "100");
	cr_assert_eq(errs[0].id, HIPSVM_O_ENABLE);
	cr_assert_eq(errs[0].err, -EINVAL);
	cr_assert_str_eq(errs[0].value, "nope");
	cr_assert_eq(errs[1].id, HIPSVM_O_COUNT, "unknown name");
	cr_assert_str_eq(errs[1].value, "BOGUS", "the name, without the prefix");
	cr_assert_eq(errs[2].id, 0u, "past max_errs: not described");
}

Test(options, load_error_value_truncated)
{
	static char var[400];
	char *envp[] = { var, NULL };
	struct hipsvm_options o;
	struct hipsvm_opt_error e;

	strcpy(var, "HIPSVM_POLICY=");
	memset(var + strlen(var), 'p', 300);
	cr_assert_eq(hipsvm_options_load(&o, envp, &e, 1), 1);
	cr_assert_eq(e.id, HIPSVM_O_POLICY);
	cr_assert_eq(e.err, -ENAMETOOLONG);
	cr_assert_eq(strlen(e.value), sizeof(e.value) - 1);
	cr_assert_str_eq(o.str[HIPSVM_O_POLICY], "default");
	/* no room for descriptions: still counted */
	cr_assert_eq(hipsvm_options_load(&o, envp, NULL, 0), 1);
	cr_assert_eq(hipsvm_options_load(&o, NULL, NULL, 0), 0);
}

/* ---- format ---- */

Test(options, format_lists_every_row)
{
	static char buf[16384], sbuf[16384];
	struct hipsvm_options o;
	struct hipsvm_sim_options so;
	size_t n;
	unsigned i, lines = 0;
	char *p;

	hipsvm_options_defaults(&o);
	hipsvm_sim_options_defaults(&so);
	hipsvm_sim_options_set(&so, HIPSVM_SIM_O_GPUS, "2");
	hipsvm_sim_options_set(&so, HIPSVM_SIM_O_MEM, "64M");
	hipsvm_sim_options_set(&so, HIPSVM_SIM_O_FGS_MASK, "0x5");
	n = hipsvm_options_format(&o, buf, sizeof(buf));
	cr_assert_eq(n, strlen(buf));
	cr_assert_lt(n, sizeof(buf) - 1, "the table fits");
	for (p = buf; *p; p++)
		lines += *p == '\n';
	cr_assert_eq(lines, (unsigned)HIPSVM_O_COUNT);
	for (i = 0; i < HIPSVM_O_COUNT; i++) {
		char key[64];

		snprintf(key, sizeof(key), "HIPSVM_%s=", hipsvm_option_desc(i)->name);
		cr_assert_not_null(strstr(buf, key), "%s missing from:\n%s", key, buf);
	}
	n = hipsvm_sim_options_format(&so, sbuf, sizeof(sbuf));
	cr_assert_eq(n, strlen(sbuf));
	cr_assert_lt(n, sizeof(sbuf) - 1, "the table fits");
	for (lines = 0, p = sbuf; *p; p++)
		lines += *p == '\n';
	cr_assert_eq(lines, (unsigned)HIPSVM_SIM_O_COUNT);
	for (i = 0; i < HIPSVM_SIM_O_COUNT; i++) {
		char key[64];

		snprintf(key, sizeof(key), "HIPSVM_%s=", hipsvm_sim_option_desc(i)->name);
		cr_assert_not_null(strstr(sbuf, key), "%s missing from:\n%s", key, sbuf);
	}
	cr_assert_not_null(strstr(sbuf, "HIPSVM_SIM_GPUS=2  (default 4) "));
	cr_assert_not_null(strstr(sbuf, "HIPSVM_SIM_MEM=64M  (default 64G) "));
	cr_assert_not_null(strstr(sbuf, "HIPSVM_SIM_FGS_MASK=0x5  (default 0x1) "));
	cr_assert_not_null(strstr(sbuf, "HIPSVM_SIM_RING_SIZE=256K  (default 256K) "));
	cr_assert_not_null(strstr(buf, "HIPSVM_HOOK=auto  (default auto) "));
	cr_assert_not_null(strstr(buf, "HIPSVM_REPORT=  (default \"\") "));
	cr_assert_not_null(strstr(buf, "HIPSVM_ENABLE=1  (default 1) "));
}

Test(options, format_truncates)
{
	struct hipsvm_options o;
	char small[40];

	hipsvm_options_defaults(&o);
	memset(small, 'x', sizeof(small));
	cr_assert_eq(hipsvm_options_format(&o, small, sizeof(small)), sizeof(small) - 1);
	cr_assert_eq(small[sizeof(small) - 1], '\0');
	cr_assert_eq(strncmp(small, "HIPSVM_ENABLE=1", 15), 0);
	cr_assert_eq(hipsvm_options_format(&o, small, 0), 0u);
	cr_assert_eq(small[0], 'H', "cap 0 writes nothing");
	cr_assert_eq(hipsvm_options_format(&o, small, 1), 0u);
	cr_assert_eq(small[0], '\0');
}

/* ---- expand_path ---- */

Test(options, expand_path)
{
	char buf[64];

	cr_assert_eq(hipsvm_expand_path("/tmp/r-%p.json", 1234, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "/tmp/r-1234.json");
	cr_assert_eq(hipsvm_expand_path("%p%p", 7, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "77");
	cr_assert_eq(hipsvm_expand_path("100%%-%p", 0, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "100%-0");
	cr_assert_eq(hipsvm_expand_path("%%p", 5, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "%p", "%% first, then a plain p");
	cr_assert_eq(hipsvm_expand_path("a%xb%", 5, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "a%xb%", "other %% sequences are kept");
	cr_assert_eq(hipsvm_expand_path("", 5, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "");
	cr_assert_eq(hipsvm_expand_path("@hipsvm-sim.%p", 2147483647, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "@hipsvm-sim.2147483647");
	cr_assert_eq(hipsvm_expand_path("x%p", -5, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "x-5");
}

Test(options, expand_path_too_long)
{
	char buf[8];

	memset(buf, 'z', sizeof(buf));
	cr_assert_eq(hipsvm_expand_path("1234567", 1, buf, sizeof(buf)), 0, "7 + NUL fits in 8");
	cr_assert_str_eq(buf, "1234567");
	memset(buf, 'z', sizeof(buf));
	cr_assert_eq(hipsvm_expand_path("12345678", 1, buf, sizeof(buf)), -ENAMETOOLONG);
	cr_assert_eq(buf[0], 'z', "untouched on failure");
	cr_assert_eq(hipsvm_expand_path("abc-%p", 123456, buf, sizeof(buf)), -ENAMETOOLONG);
	cr_assert_eq(hipsvm_expand_path("ab-%p", 1234, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "ab-1234");
	cr_assert_eq(hipsvm_expand_path("x", 1, buf, 0), -ENAMETOOLONG);
}

/* ---- docs/ENVIRONMENT.md documents exactly the table ---- */

static char *read_doc(void)
{
	const char *src = getenv("HIPSVM_TEST_SRCDIR");
	char path[4096];
	FILE *f;
	char *text;
	long len;

	cr_assert_not_null(src, "HIPSVM_TEST_SRCDIR is not set (run through meson test)");
	snprintf(path, sizeof(path), "%s/docs/ENVIRONMENT.md", src);
	f = fopen(path, "r");
	cr_assert_not_null(f, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = calloc(1, (size_t)len + 1);
	cr_assert_not_null(text);
	cr_assert_eq(fread(text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	return text;
}

static bool is_name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

Test(options, every_row_is_documented)
{
	const struct hipsvm_option_table *tabs[] = {
		&hipsvm_shim_option_table, &hipsvm_sim_option_table,
	};
	char *doc = read_doc();
	unsigned i, k;

	for (k = 0; k < 2; k++) {
		for (i = 0; i < tabs[k]->n; i++) {
			const char *name = hipsvm_opt_row(tabs[k], i)->name;
			char head[96];
			const char *p;

			snprintf(head, sizeof(head), "### HIPSVM_%s\n", name);
			p = strstr(doc, head);
			cr_expect(p && (p == doc || p[-1] == '\n'),
				  "docs/ENVIRONMENT.md has no entry '### HIPSVM_%s'", name);
		}
	}
	free(doc);
}

/* The page's last section lists the variables of the hipsvm tool and the
 * scripts: none of them may be an option (it would be read twice). */
#define NOT_OPTIONS "\n## Not options"

Test(options, doc_names_only_table_rows)
{
	char *doc = read_doc();
	const char *p = doc;
	char *tail = strstr(doc, NOT_OPTIONS);
	unsigned found = 0, others = 0;

	cr_assert_not_null(tail, "docs/ENVIRONMENT.md has no section '%s'", NOT_OPTIONS + 1);
	*tail = '\0';		/* the options' part; the rest checked below */

	while ((p = strstr(p, "HIPSVM_"))) {
		const char *name = p + 7, *end = name;
		enum hipsvm_opt_id id;
		enum hipsvm_sim_opt_id sid;
		char buf[96];

		if (p > doc && is_name_char(p[-1])) {
			p = name;
			continue;
		}
		while (is_name_char(*end))
			end++;
		p = end;
		if (end == name || (size_t)(end - name) >= sizeof(buf))
			continue;	/* "HIPSVM_<NAME>" in prose */
		memcpy(buf, name, (size_t)(end - name));
		buf[end - name] = '\0';
		if (!strncmp(buf, "TEST_", 5))
			continue;	/* reserved for tests, said so in the doc */
		if (*end == '*') {
			/* "HIPSVM_SIM_*": a table's scope, not a variable */
			cr_expect_str_eq(buf, hipsvm_sim_option_table.scope,
					 "docs/ENVIRONMENT.md names HIPSVM_%s*, not a table's scope", buf);
			continue;
		}
		cr_expect(hipsvm_option_lookup(buf, &id) == 0 ||
			  hipsvm_sim_option_lookup(buf, &sid) == 0,
			     "docs/ENVIRONMENT.md names HIPSVM_%s, which is not in the table", buf);
		found++;
	}
	cr_assert_gt(found, (unsigned)(HIPSVM_O_COUNT + HIPSVM_SIM_O_COUNT));
	for (p = tail + 1; (p = strstr(p, "### HIPSVM_")); others++) {
		const char *name = p + 11, *end = name;
		enum hipsvm_opt_id id;
		enum hipsvm_sim_opt_id sid;
		char buf[96];

		while (is_name_char(*end))
			end++;
		cr_assert_lt((size_t)(end - name), sizeof(buf));
		memcpy(buf, name, (size_t)(end - name));
		buf[end - name] = '\0';
		cr_expect(hipsvm_option_lookup(buf, &id) != 0 &&
			  hipsvm_sim_option_lookup(buf, &sid) != 0,
			  "HIPSVM_%s is an option: its entry belongs above '%s'", buf, NOT_OPTIONS + 1);
		{
			/* and no program under the shim is told it is unknown */
			struct hipsvm_options o;
			struct hipsvm_opt_error e;
			char var[128];
			char *envp[] = { var, NULL };

			snprintf(var, sizeof(var), "HIPSVM_%s=1", buf);
			cr_expect_eq(hipsvm_options_load(&o, envp, &e, 1), 0,
				     "the shim calls HIPSVM_%s unknown", buf);
		}
		p = end;
	}
	cr_assert_geq(others, 2u, "the tool's HIPSVM_SHIM_PATH and HIPSVM_SIM_DIR at least");
	free(doc);
}
