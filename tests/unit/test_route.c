/* SPDX-License-Identifier: MIT */
/* test_route.c - routing decisions and the quota ledger (src/shim/route.c). */
#include <criterion/criterion.h>

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "shim/route.h"

static struct hipsvm_policy pol(const char *text)
{
	struct hipsvm_policy p;

	cr_assert_eq(hipsvm_policy_parse(text, &p, NULL, 0), 0, "%s", text);
	return p;
}

Test(route, default_is_the_hip_table)
{
	struct hipsvm_policy p = pol("default");
	struct hipsvm_route r;
	unsigned api;

	for (api = 0; api < HIPSVM_API_COUNT; api++) {
		const struct hipsvm_api_row *row = hipsvm_api_row(api);

		if (row->rule == HIPSVM_RULE_BY_POINTER) {
			cr_expect_eq(hipsvm_route_decide(&p, api, 2, &r), -EINVAL);
			continue;
		}
		cr_assert_eq(hipsvm_route_decide(&p, api, 2, &r), 0, "%s", row->name);
		cr_expect_eq(r.ctx, row->rule == HIPSVM_RULE_HOST ? HIPSVM_CTX_HOST : 2, "%s",
			     row->name);
		cr_expect_eq(r.tag, HIPSVM_ROUTE_AS_HIP);
		cr_expect(!r.advise_all && !r.advise_preferred && !r.quota && !r.may_oversubscribe);
		cr_expect(!hipsvm_route_needs_device_first(&p, api));
	}
	cr_expect_eq(hipsvm_route_decide(&p, HIPSVM_API_MALLOC, -1, &r), -EINVAL);
	cr_expect_eq(hipsvm_route_decide(&p, HIPSVM_API_MALLOC, 64, &r), -EINVAL);
}

Test(route, managed_local)
{
	struct hipsvm_policy p = pol("managed-local");
	struct hipsvm_route r;

	cr_expect(hipsvm_route_needs_device_first(&p, HIPSVM_API_MALLOC_MANAGED));
	cr_assert_eq(hipsvm_route_decide(&p, HIPSVM_API_MALLOC_MANAGED, 3, &r), 0);
	cr_expect_eq(r.ctx, 3);
	cr_expect_eq(r.tag, HIPSVM_ROUTE_MANAGED_LOCAL);
	cr_expect(r.advise_preferred);
	/* host allocations stay in host_context */
	cr_assert_eq(hipsvm_route_decide(&p, HIPSVM_API_HOST_MALLOC, 3, &r), 0);
	cr_expect_eq(r.ctx, HIPSVM_CTX_HOST);
	cr_expect_eq(r.tag, HIPSVM_ROUTE_AS_HIP);
}

Test(route, map_all_only_host_context_managed_and_host)
{
	struct hipsvm_policy p = pol("map-all");
	struct hipsvm_route r;

	cr_assert_eq(hipsvm_route_decide(&p, HIPSVM_API_MALLOC_MANAGED, 0, &r), 0);
	cr_expect(r.advise_all && r.tag == HIPSVM_ROUTE_MAPPED_ALL);
	cr_assert_eq(hipsvm_route_decide(&p, HIPSVM_API_HOST_MALLOC, 0, &r), 0);
	cr_expect(r.advise_all);
	cr_assert_eq(hipsvm_route_decide(&p, HIPSVM_API_HOST_REGISTER, 0, &r), 0);
	cr_expect(!r.advise_all);
	cr_assert_eq(hipsvm_route_decide(&p, HIPSVM_API_MALLOC, 0, &r), 0);
	cr_expect(!r.advise_all && r.ctx == 0);
	/* managed-local wins over map-all for managed memory */
	p = pol("map-all,managed-local");
	cr_assert_eq(hipsvm_route_decide(&p, HIPSVM_API_MALLOC_MANAGED, 1, &r), 0);
	cr_expect(!r.advise_all && r.ctx == 1);
}

Test(route, quota_and_oversubscribe_flags)
{
	struct hipsvm_policy p = pol("quota=1:1M,oversubscribe");
	struct hipsvm_route r;

	cr_expect(hipsvm_route_needs_device_first(&p, HIPSVM_API_MALLOC));
	cr_expect(hipsvm_route_needs_device_first(&p, HIPSVM_API_MALLOC_PITCH));
	cr_expect(!hipsvm_route_needs_device_first(&p, HIPSVM_API_HOST_MALLOC));
	cr_assert_eq(hipsvm_route_decide(&p, HIPSVM_API_MALLOC, 1, &r), 0);
	cr_expect(r.quota && r.may_oversubscribe);
	cr_assert_eq(hipsvm_route_decide(&p, HIPSVM_API_MALLOC_ASYNC, 1, &r), 0);
	cr_expect(r.quota && !r.may_oversubscribe);
	cr_assert_eq(hipsvm_route_decide(&p, HIPSVM_API_EXT_MALLOC_SIGNAL, 1, &r), 0);
	cr_expect(!r.quota);
}

Test(route, quota_ledger)
{
	struct hipsvm_policy p = pol("quota=1:1M");
	struct hipsvm_quota q;

	memset(&q, 0, sizeof(q));
	cr_expect_eq(hipsvm_quota_charge(&q, &p, 1, 512 << 10), 0);
	cr_expect_eq(hipsvm_quota_charge(&q, &p, 1, 512 << 10), 0);
	cr_expect_eq(hipsvm_quota_charge(&q, &p, 1, 1), -ENOMEM);
	cr_expect_eq(q.used[1], 1 << 20);
	hipsvm_quota_uncharge(&q, 1, 4096);
	cr_expect_eq(hipsvm_quota_charge(&q, &p, 1, 4096), 0);
	/* no quota on device 0: charged, never refused */
	cr_expect_eq(hipsvm_quota_charge(&q, &p, 0, UINT64_C(1) << 40), 0);
	cr_expect_eq(hipsvm_quota_charge(&q, &p, 0, UINT64_MAX), -ENOMEM);	/* overflow */
	/* saturating give-back */
	hipsvm_quota_uncharge(&q, 1, UINT64_C(1) << 30);
	cr_expect_eq(q.used[1], 0);
	cr_expect_eq(hipsvm_quota_charge(&q, &p, 64, 1), -EINVAL);
}

static struct hipsvm_policy tpol;
static struct hipsvm_quota tq;
static int granted[4];

static void *charger(void *arg)
{
	int id = (int)(intptr_t)arg, i;

	for (i = 0; i < 10000; i++)
		if (hipsvm_quota_charge(&tq, &tpol, 0, 4096) == 0)
			granted[id]++;
	return NULL;
}

Test(route, quota_never_overcommits_under_threads)
{
	pthread_t t[4];
	int i, total = 0;

	tpol = pol("quota=0:4M");
	memset(&tq, 0, sizeof(tq));
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, charger, (void *)(intptr_t)i);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 4; i++)
		total += granted[i];
	cr_expect_eq(total, 1024);
	cr_expect_eq(tq.used[0], 4 << 20);
}

Test(route, names)
{
	cr_expect_str_eq(hipsvm_route_name(HIPSVM_ROUTE_AS_HIP), "as_hip");
	cr_expect_str_eq(hipsvm_route_name(HIPSVM_ROUTE_MANAGED_LOCAL), "managed_local");
	cr_expect_str_eq(hipsvm_route_name(HIPSVM_ROUTE_OVERSUBSCRIBED), "oversubscribed");
	cr_expect_str_eq(hipsvm_route_name(HIPSVM_ROUTE_MAPPED_ALL), "mapped_all");
	cr_expect_str_eq(hipsvm_route_name(99), "unknown");
}
