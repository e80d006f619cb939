/* SPDX-License-Identifier: MIT */
/*
 * test_outname.c - output names: %p %h %r %e{VAR} %% (src/shim/outname.h).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "shim/outname.h"

static char *const no_env[] = { NULL };

static const char *host(void)
{
	static struct utsname u;

	uname(&u);
	u.nodename[strcspn(u.nodename, ".")] = '\0';
	return u.nodename;
}

Test(outname, pid_percent_and_others)
{
	char buf[128];

	cr_assert_eq(hipsvm_outname("/tmp/r-%p.json", 1234, no_env, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "/tmp/r-1234.json");
	cr_assert_eq(hipsvm_outname("%p%p", 7, NULL, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "77");
	cr_assert_eq(hipsvm_outname("100%%-%p", 0, NULL, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "100%-0");
	cr_assert_eq(hipsvm_outname("%%p", 5, NULL, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "%p");
	cr_assert_eq(hipsvm_outname("a%xb%", 5, NULL, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "a%xb%", "other %% sequences are kept");
	cr_assert_eq(hipsvm_outname("%p", -3, NULL, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "-3");
}

Test(outname, host)
{
	char buf[512], want[512];

	cr_assert_eq(hipsvm_outname("t.%h.%p", 9, NULL, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "t.%s.9", host());
	cr_assert_str_eq(buf, want);
	cr_assert(strchr(buf + 2, '.') - buf == (long)(2 + strlen(host())), "no domain part");
}

/* Each launcher's variable alone, then the order when several are set. */
Test(outname, rank)
{
	static const struct {
		const char *var, *want;
	} one[] = {
		{ "OMPI_COMM_WORLD_RANK=3", "3" }, { "PMIX_RANK=4", "4" },
		{ "PMI_RANK=5", "5" }, { "SLURM_PROCID=6", "6" },
	};
	char *both[] = { (char *)"SLURM_PROCID=9", (char *)"PMI_RANK=1", NULL };
	char *slash[] = { (char *)"PMI_RANK=a/b", NULL };
	char *empty[] = { (char *)"OMPI_COMM_WORLD_RANK=", (char *)"PMIX_RANK=2", NULL };
	char *unrelated[] = { (char *)"RANK=7", (char *)"PMI_RANKX=8", NULL };
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
		char *env[] = { (char *)"PATH=/bin", (char *)one[i].var, NULL };

		cr_assert_eq(hipsvm_outname("r%r", 1, env, buf, sizeof(buf)), 0);
		cr_assert_str_eq(buf + 1, one[i].want, "%s", one[i].var);
	}
	cr_assert_eq(hipsvm_outname("%r", 1, both, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "1", "PMI_RANK comes before SLURM_PROCID");
	cr_assert_eq(hipsvm_outname("%r", 1, empty, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "2", "an empty value is not a rank");
	cr_assert_eq(hipsvm_outname("%r", 1, slash, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "a_b");
	cr_assert_eq(hipsvm_outname("%r", 1, unrelated, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "norank");
	cr_assert_eq(hipsvm_outname("%r", 1, NULL, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "norank");
}

Test(outname, env_var)
{
	char *env[] = { (char *)"JOB=42", (char *)"JOBX=no", (char *)"DIR=/scratch/u", NULL };
	char buf[64];

	cr_assert_eq(hipsvm_outname("%e{JOB}-%e{DIR}/x", 1, env, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "42-/scratch/u/x", "a variable's '/' is kept: it may name a directory");
	cr_assert_eq(hipsvm_outname("a%e{UNSET}b", 1, env, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "ab");
	cr_assert_eq(hipsvm_outname("%e{JO}", 1, env, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "", "a prefix of a name is not that name");
	cr_assert_eq(hipsvm_outname("%e", 1, env, buf, sizeof(buf)), -EINVAL);
	cr_assert_eq(hipsvm_outname("%e{JOB", 1, env, buf, sizeof(buf)), -EINVAL);
	cr_assert_eq(hipsvm_outname("%e{}", 1, env, buf, sizeof(buf)), -EINVAL);
	cr_assert_eq(hipsvm_outname("%e{A-B}", 1, env, buf, sizeof(buf)), -EINVAL);
	cr_assert_eq(hipsvm_outname(NULL, 1, env, buf, sizeof(buf)), -EINVAL);
}

/* Every cap from 0 up: never a byte written past it, -ENAMETOOLONG until
 * the whole name fits, then exactly the name. */
Test(outname, every_cap)
{
	char *env[] = { (char *)"OMPI_COMM_WORLD_RANK=12", (char *)"V=value", NULL };
	const char *tmpl = "out.%r.%p.%e{V}.%%.json";
	char full[128], buf[160];
	size_t cap, len;

	cr_assert_eq(hipsvm_outname(tmpl, 4321, env, full, sizeof(full)), 0);
	cr_assert_str_eq(full, "out.12.4321.value.%.json");
	len = strlen(full);
	for (cap = 1; cap < sizeof(buf) - 8; cap++) {
		int rc;

		memset(buf, 'Z', sizeof(buf));
		rc = hipsvm_outname(tmpl, 4321, env, buf, cap);
		cr_assert_eq(buf[cap], 'Z', "cap %zu: wrote past it", cap);
		if (cap <= len) {
			cr_assert_eq(rc, -ENAMETOOLONG, "cap %zu", cap);
		} else {
			cr_assert_eq(rc, 0, "cap %zu", cap);
			cr_assert_str_eq(buf, full);
		}
	}
	cr_assert_eq(hipsvm_outname(tmpl, 1, env, buf, 0), -EINVAL);
}

Test(outname, per_process)
{
	cr_assert(hipsvm_outname_per_process("a.%p.json"));
	cr_assert(!hipsvm_outname_per_process("a.%%p.json"));
	cr_assert(!hipsvm_outname_per_process("a.%r.%h.json"));
	cr_assert(!hipsvm_outname_per_process(NULL));
}
