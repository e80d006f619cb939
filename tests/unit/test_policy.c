/* SPDX-License-Identifier: MIT */
/* test_policy.c - HIPSVM_POLICY parsing (src/shim/policy.c, docs/routing.md). */
#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "shim/policy.h"

#define MIB (UINT64_C(1) << 20)
#define GIB (UINT64_C(1) << 30)

Test(policy, default_and_empty)
{
	struct hipsvm_policy p;
	char buf[64];

	cr_assert_eq(hipsvm_policy_parse(NULL, &p, NULL, 0), 0);
	cr_expect(hipsvm_policy_is_default(&p));
	cr_assert_eq(hipsvm_policy_parse("", &p, NULL, 0), 0);
	cr_expect(hipsvm_policy_is_default(&p));
	cr_assert_eq(hipsvm_policy_parse("default", &p, NULL, 0), 0);
	cr_expect(hipsvm_policy_is_default(&p));
	hipsvm_policy_format(&p, buf, sizeof(buf));
	cr_expect_str_eq(buf, "default");
}

Test(policy, each_item_and_combinations)
{
	struct hipsvm_policy p;
	char buf[128];

	cr_assert_eq(hipsvm_policy_parse("managed-local", &p, NULL, 0), 0);
	cr_expect(p.managed_local && !p.oversubscribe && !p.map_all && !p.quota_mask);
	cr_assert_eq(hipsvm_policy_parse(" Oversubscribe , MAP-ALL ", &p, NULL, 0), 0);
	cr_expect(!p.managed_local && p.oversubscribe && p.map_all);
	cr_assert_eq(hipsvm_policy_parse("managed-local,oversubscribe,map-all,quota=1G", &p,
					 NULL, 0), 0);
	hipsvm_policy_format(&p, buf, sizeof(buf));
	cr_expect(!strncmp(buf, "managed-local,oversubscribe,map-all,quota=0:1073741824;1:", 57),
		  "%s", buf);
}

Test(policy, quota_forms)
{
	struct hipsvm_policy p;
	uint64_t q = 0;

	cr_assert_eq(hipsvm_policy_parse("quota=512M", &p, NULL, 0), 0);
	cr_expect_eq(p.quota_mask, ~UINT64_C(0));
	cr_expect(hipsvm_policy_quota(&p, 63, &q) && q == 512 * MIB);

	cr_assert_eq(hipsvm_policy_parse("quota=0:1G;1:2G", &p, NULL, 0), 0);
	cr_expect_eq(p.quota_mask, 3);
	cr_expect(hipsvm_policy_quota(&p, 1, &q) && q == 2 * GIB);
	cr_expect(!hipsvm_policy_quota(&p, 2, &q));

	/* a comma continues the quota with DEV:SIZE parts */
	cr_assert_eq(hipsvm_policy_parse("quota=0:1G,1:2G,managed-local", &p, NULL, 0), 0);
	cr_expect_eq(p.quota_mask, 3);
	cr_expect(p.managed_local);

	/* ranges, and a later part overriding an earlier one */
	cr_assert_eq(hipsvm_policy_parse("quota=4G;2-3:1M", &p, NULL, 0), 0);
	cr_expect(hipsvm_policy_quota(&p, 2, &q) && q == MIB);
	cr_expect(hipsvm_policy_quota(&p, 3, &q) && q == MIB);
	cr_expect(hipsvm_policy_quota(&p, 4, &q) && q == 4 * GIB);

	/* zero bytes is a quota too: everything denied */
	cr_assert_eq(hipsvm_policy_parse("quota=1:0", &p, NULL, 0), 0);
	cr_expect(hipsvm_policy_quota(&p, 1, &q) && q == 0);
	cr_expect(!hipsvm_policy_quota(&p, -1, &q));
}

Test(policy, malformed_is_einval_and_untouched)
{
	static const char *const bad[] = {
		"bogus", "managed-local,", ",", "quota=", "quota=x", "quota=1:", "quota=64:1G",
		"quota=3-1:1G", "quota=1G;", "quota=-1", "map-all,1:2G", "managed-local;map-all",
		"quota=0:1G,nonsense", "quota=1:2:3",
	};
	struct hipsvm_policy p;
	unsigned i;
	char what[32];

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&p, 0x5a, sizeof(p));
		what[0] = '\0';
		cr_expect_eq(hipsvm_policy_parse(bad[i], &p, what, sizeof(what)), -EINVAL, "%s",
			     bad[i]);
		cr_expect_eq(((unsigned char *)&p)[0], 0x5a, "%s: out touched", bad[i]);
	}
	hipsvm_policy_parse("managed-local,bogus", &p, what, sizeof(what));
	cr_expect_str_eq(what, "bogus");
}

Test(policy, format_truncates)
{
	struct hipsvm_policy p;
	char buf[8];
	size_t n;

	hipsvm_policy_parse("managed-local,oversubscribe", &p, NULL, 0);
	n = hipsvm_policy_format(&p, buf, sizeof(buf));
	cr_expect_eq(n, strlen("managed-local,oversubscribe"));
	cr_expect_eq(strlen(buf), 7);
}
