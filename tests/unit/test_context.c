/* SPDX-License-Identifier: MIT */
/* test_context.c - amd::Context's rules (src/simcore/ctx_model.c, docs/design.md). */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "simcore/ctx_model.h"
#include "simcore/ctx_model_test.h"

#define SVM(fgs, at) { .svm_capable = true, .fine_grained_system = (fgs), .atomics = (at) }

static void assert_order(const int *got, int n, const int *want, int nwant)
{
	int i;

	cr_assert_eq(n, nwant, "%d devices, expected %d", n, nwant);
	for (i = 0; i < n; i++)
		cr_assert_eq(got[i], want[i], "position %d: device %d, expected %d", i, got[i],
			     want[i]);
}

/* ---- construction and the swap rule ---- */

Test(context, init_errors_leave_out_untouched)
{
	struct hipsvm_devinfo info[4] = { SVM(0, 1), SVM(0, 1), SVM(0, 1), SVM(0, 1) };
	struct hipsvm_context c;
	int dup[] = { 0, 1, 0 }, neg[] = { -1 }, big[] = { HIPSVM_CTX_MAX_DEV }, ok[] = { 0 };

	memset(&c, 0x5a, sizeof(c));
	cr_assert_eq(hipsvm_ctx_init(&c, 0, ok, 0, info), -EINVAL, "no device");
	cr_assert_eq(hipsvm_ctx_init(&c, 0, dup, 3, info), -EINVAL, "duplicate device");
	cr_assert_eq(hipsvm_ctx_init(&c, 0, neg, 1, info), -EINVAL);
	cr_assert_eq(hipsvm_ctx_init(&c, 0, big, 1, info), -EINVAL);
	cr_assert_eq(hipsvm_ctx_init(&c, 0, NULL, 1, info), -EINVAL);
	cr_assert_eq(hipsvm_ctx_init(&c, 0, ok, 1, NULL), -EINVAL);
	cr_assert_eq(hipsvm_ctx_init(&c, 0, ok, HIPSVM_CTX_MAX_DEV + 1, info), -EINVAL);
	cr_assert_eq(hipsvm_ctx_init(NULL, 0, ok, 1, info), -EINVAL);
	cr_assert_eq(c.refcount, 0x5a5a5a5au, "untouched");
}

Test(context, one_device_no_swap)
{
	struct hipsvm_devinfo info[1] = { SVM(1, 1) };
	struct hipsvm_context c;
	int devs[] = { 0 };

	cr_assert_eq(hipsvm_ctx_init(&c, 0, devs, 1, info), 0);
	cr_assert_eq(c.refcount, 1u);
	cr_assert_eq(c.id, 0);
	cr_assert_eq(c.ndev, 1u);
	cr_assert_eq(c.nsvm, 1u);
	cr_assert_eq(c.svm_dev[0], 0);
	cr_assert_eq(c.host_alloc_dev, -1);
}

Test(context, first_fgs_swapped_with_first_non_fgs)
{
	/* 0 and 1 fine-grained-system, 2 not, 3 not: 0 trades with 2 */
	struct hipsvm_devinfo info[4] = { SVM(1, 1), SVM(1, 1), SVM(0, 1), SVM(0, 1) };
	struct hipsvm_context c;
	int devs[] = { 0, 1, 2, 3 };
	int want[] = { 2, 1, 0, 3 };

	cr_assert_eq(hipsvm_ctx_init(&c, HIPSVM_CTX_HOST, devs, 4, info), 0);
	assert_order(c.svm_dev, (int)c.nsvm, want, 4);
	/* construction order itself is kept */
	assert_order(c.dev, (int)c.ndev, devs, 4);
}

Test(context, first_not_fgs_no_swap)
{
	struct hipsvm_devinfo info[3] = { SVM(0, 1), SVM(1, 1), SVM(0, 1) };
	struct hipsvm_context c;
	int devs[] = { 0, 1, 2 };

	cr_assert_eq(hipsvm_ctx_init(&c, HIPSVM_CTX_HOST, devs, 3, info), 0);
	assert_order(c.svm_dev, (int)c.nsvm, devs, 3);
}

Test(context, all_fgs_no_swap)
{
	struct hipsvm_devinfo info[3] = { SVM(1, 1), SVM(1, 1), SVM(1, 1) };
	struct hipsvm_context c;
	int devs[] = { 0, 1, 2 };

	cr_assert_eq(hipsvm_ctx_init(&c, HIPSVM_CTX_HOST, devs, 3, info), 0);
	assert_order(c.svm_dev, (int)c.nsvm, devs, 3);
}

Test(context, swap_counts_only_svm_devices)
{
	/* device 1 cannot do SVM at all: the list is 3, 0, 2 in construction
	 * order (3 is FGS), and 3 trades with 0 */
	struct hipsvm_devinfo info[4] = { SVM(0, 1), { 0 }, SVM(1, 1), SVM(1, 1) };
	struct hipsvm_context c;
	int devs[] = { 3, 1, 0, 2 };
	int want[] = { 0, 3, 2 };

	cr_assert_eq(hipsvm_ctx_init(&c, 7, devs, 4, info), 0);
	assert_order(c.svm_dev, (int)c.nsvm, want, 3);
	cr_assert_eq(c.ndev, 4u);
}

Test(context, host_alloc_device_is_first_with_custom_allocator)
{
	struct hipsvm_devinfo info[4] = { SVM(0, 1), SVM(0, 1), SVM(0, 1), SVM(0, 1) };
	struct hipsvm_context c;
	int devs[] = { 3, 1, 2 };

	cr_assert_eq(hipsvm_ctx_init(&c, HIPSVM_CTX_HOST, devs, 3, info), 0);
	cr_assert_eq(c.host_alloc_dev, -1, "none: plain aligned allocation");
	info[1].custom_host_alloc = true;
	info[2].custom_host_alloc = true;
	cr_assert_eq(hipsvm_ctx_init(&c, HIPSVM_CTX_HOST, devs, 3, info), 0);
	cr_assert_eq(c.host_alloc_dev, 1, "first in construction order, not by index");
	info[0].custom_host_alloc = true;	/* not in the context */
	cr_assert_eq(hipsvm_ctx_init(&c, HIPSVM_CTX_HOST, devs, 3, info), 0);
	cr_assert_eq(c.host_alloc_dev, 1);
}

Test(context, has_dev)
{
	struct hipsvm_devinfo info[4] = { SVM(0, 1), SVM(0, 1), SVM(0, 1), SVM(0, 1) };
	struct hipsvm_context c;
	int devs[] = { 1, 3 };

	cr_assert_eq(hipsvm_ctx_init(&c, HIPSVM_CTX_HOST, devs, 2, info), 0);
	cr_assert(hipsvm_ctx_has_dev(&c, 1));
	cr_assert(hipsvm_ctx_has_dev(&c, 3));
	cr_assert_not(hipsvm_ctx_has_dev(&c, 0));
	cr_assert_not(hipsvm_ctx_has_dev(&c, -1));
	cr_assert_not(hipsvm_ctx_has_dev(NULL, 1));
}

/* ---- svmAlloc / svmFree order ---- */

Test(context, svm_alloc_order)
{
	/* after the swap: 1, 0, 2, 3 (0 is FGS, 1 is not) */
	struct hipsvm_devinfo info[4] = { SVM(1, 1), SVM(0, 0), SVM(0, 1), SVM(1, 0) };
	struct hipsvm_context c;
	int devs[] = { 0, 1, 2, 3 }, out[HIPSVM_CTX_MAX_DEV];

	cr_assert_eq(hipsvm_ctx_init(&c, HIPSVM_CTX_HOST, devs, 4, info), 0);
	{
		int want[] = { 1, 0, 2, 3 };

		assert_order(out, hipsvm_ctx_svm_alloc_order(&c, -1, false, info, out), want, 4);
	}
	{
		int want[] = { 2, 1, 0, 3 };	/* cur_dev first, then the rest in order */

		assert_order(out, hipsvm_ctx_svm_alloc_order(&c, 2, false, info, out), want, 4);
	}
	{
		int want[] = { 3, 1, 0, 2 };

		assert_order(out, hipsvm_ctx_svm_alloc_order(&c, 3, false, info, out), want, 4);
	}
	{
		int want[] = { 0, 2 };	/* atomics: 1 and 3 have none */

		assert_order(out, hipsvm_ctx_svm_alloc_order(&c, -1, true, info, out), want, 2);
	}
	{
		int want[] = { 2, 0 };

		assert_order(out, hipsvm_ctx_svm_alloc_order(&c, 2, true, info, out), want, 2);
	}
	{
		int want[] = { 0, 2 };	/* cur_dev without atomics is not first, nor later */

		assert_order(out, hipsvm_ctx_svm_alloc_order(&c, 1, true, info, out), want, 2);
	}
}

Test(context, svm_alloc_order_cur_dev_outside)
{
	struct hipsvm_devinfo info[4] = { SVM(0, 1), SVM(0, 1), SVM(0, 1), { 0 } };
	struct hipsvm_context c;
	int devs[] = { 0, 1, 3 }, out[HIPSVM_CTX_MAX_DEV];
	int want[] = { 0, 1 };

	cr_assert_eq(hipsvm_ctx_init(&c, HIPSVM_CTX_HOST, devs, 3, info), 0);
	assert_order(out, hipsvm_ctx_svm_alloc_order(&c, 2, false, info, out), want, 2);
	assert_order(out, hipsvm_ctx_svm_alloc_order(&c, 3, false, info, out), want, 2);
	assert_order(out, hipsvm_ctx_svm_alloc_order(&c, 99, false, info, out), want, 2);
}

Test(context, svm_alloc_order_none_qualifies)
{
	struct hipsvm_devinfo info[2] = { SVM(0, 0), { 0 } };
	struct hipsvm_context c;
	int devs[] = { 0, 1 }, out[HIPSVM_CTX_MAX_DEV];

	cr_assert_eq(hipsvm_ctx_init(&c, HIPSVM_CTX_HOST, devs, 2, info), 0);
	cr_assert_eq(hipsvm_ctx_svm_alloc_order(&c, 0, true, info, out), -ENODEV);
	cr_assert_eq(hipsvm_ctx_svm_alloc_order(&c, 0, false, info, out), 1);
	cr_assert_eq(hipsvm_ctx_init(&c, 1, &devs[1], 1, info), 0);
	cr_assert_eq(hipsvm_ctx_svm_alloc_order(&c, 1, false, info, out), -ENODEV,
		     "no SVM device at all");
	cr_assert_eq(hipsvm_ctx_svm_alloc_order(NULL, 1, false, info, out), -EINVAL);
}

Test(context, svm_free_order)
{
	struct hipsvm_devinfo info[4] = { SVM(1, 1), SVM(1, 1), SVM(0, 1), { 0 } };
	struct hipsvm_context c;
	int devs[] = { 0, 1, 2, 3 }, out[HIPSVM_CTX_MAX_DEV];
	int want[] = { 2, 1, 0 };

	cr_assert_eq(hipsvm_ctx_init(&c, HIPSVM_CTX_HOST, devs, 4, info), 0);
	assert_order(out, hipsvm_ctx_svm_free_order(&c, out), want, 3);
	cr_assert_eq(hipsvm_ctx_svm_free_order(NULL, out), -EINVAL);
}

/* ---- null stream ---- */

Test(context, null_stream_rule)
{
	struct hipsvm_devinfo info[3] = { SVM(0, 1), SVM(0, 1), SVM(0, 1) };
	struct hipsvm_ctxset s;
	struct hipsvm_context other;
	int devs[] = { 0, 2 };

	cr_assert_eq(hipsvm_ctxset_init(&s, 3, info), 0);
	cr_assert_eq(hipsvm_ctx_null_stream_dev(&s.primary[1], 0), 1, "a primary: its device");
	cr_assert_eq(hipsvm_ctx_null_stream_dev(&s.primary[2], -1), 2);
	cr_assert_eq(hipsvm_ctx_null_stream_dev(&s.host, 2), 2, "host: the current device");
	cr_assert_eq(hipsvm_ctx_null_stream_dev(&s.host, 0), 0);
	cr_assert_eq(hipsvm_ctx_null_stream_dev(&s.host, -1), -1);
	cr_assert_eq(hipsvm_ctx_null_stream_dev(&s.host, 5), -1, "current device not a GPU here");
	/* any other context: none */
	cr_assert_eq(hipsvm_ctx_init(&other, 0, devs, 2, info), 0);
	cr_assert_eq(hipsvm_ctx_null_stream_dev(&other, 0), -1, "id 0 but two devices");
	cr_assert_eq(hipsvm_ctx_init(&other, -7, devs, 1, info), 0);
	cr_assert_eq(hipsvm_ctx_null_stream_dev(&other, 0), -1);
	cr_assert_eq(hipsvm_ctx_init(&other, 1, devs, 1, info), 0);
	cr_assert_eq(hipsvm_ctx_null_stream_dev(&other, 0), -1, "id 1 over device 0");
	cr_assert_eq(hipsvm_ctx_null_stream_dev(NULL, 0), -1);
}

/* ---- the context set ---- */

Test(context, ctxset_primary_and_host)
{
	struct hipsvm_devinfo info[4] = { SVM(1, 1), SVM(0, 1), SVM(1, 0), SVM(0, 1) };
	struct hipsvm_ctxset s;
	unsigned i;

	info[2].custom_host_alloc = true;
	cr_assert_eq(hipsvm_ctxset_init(&s, 4, info), 0);
	cr_assert_eq(s.ndev, 4u);
	for (i = 0; i < 4; i++) {
		struct hipsvm_context *p = hipsvm_ctxset_get(&s, (int)i);

		cr_assert_eq(p, &s.primary[i]);
		cr_assert_eq(p->id, (int)i);
		cr_assert_eq(p->ndev, 1u);
		cr_assert_eq(p->dev[0], (int)i);
		cr_assert_eq(p->refcount, 1u);
		cr_assert_eq(p->nsvm, 1u);
		cr_assert_eq(p->host_alloc_dev, i == 2 ? 2 : -1);
	}
	cr_assert_eq(hipsvm_ctxset_get(&s, HIPSVM_CTX_HOST), &s.host);
	cr_assert_eq(s.host.id, HIPSVM_CTX_HOST);
	cr_assert_eq(s.host.ndev, 4u, "host_context holds every GPU");
	cr_assert_eq(s.host.svm_dev[0], 1, "the swap rule applies to host_context");
	cr_assert_eq(s.host.svm_dev[1], 0);
	cr_assert_eq(s.host.host_alloc_dev, 2);
	cr_assert_null(hipsvm_ctxset_get(&s, 4));
	cr_assert_null(hipsvm_ctxset_get(&s, -2));
	cr_assert_null(hipsvm_ctxset_get(NULL, 0));
}

Test(context, ctxset_init_errors)
{
	struct hipsvm_devinfo info[1] = { SVM(0, 1) };
	static struct hipsvm_ctxset s;

	memset(&s, 0x33, sizeof(s));
	cr_assert_eq(hipsvm_ctxset_init(&s, 0, info), -EINVAL);
	cr_assert_eq(hipsvm_ctxset_init(&s, HIPSVM_CTX_MAX_DEV + 1, info), -EINVAL);
	cr_assert_eq(hipsvm_ctxset_init(&s, 1, NULL), -EINVAL);
	cr_assert_eq(s.ndev, 0x33333333u, "untouched");
}

Test(context, ctxset_max_devices)
{
	static struct hipsvm_devinfo info[HIPSVM_CTX_MAX_DEV];
	static struct hipsvm_ctxset s;
	int out[HIPSVM_CTX_MAX_DEV];
	unsigned i;

	for (i = 0; i < HIPSVM_CTX_MAX_DEV; i++)
		info[i] = (struct hipsvm_devinfo)SVM(i < 60, 1);
	cr_assert_eq(hipsvm_ctxset_init(&s, HIPSVM_CTX_MAX_DEV, info), 0);
	cr_assert_eq(s.host.nsvm, (unsigned)HIPSVM_CTX_MAX_DEV);
	cr_assert_eq(s.host.svm_dev[0], 60);
	cr_assert_eq(s.host.svm_dev[60], 0);
	cr_assert_eq(hipsvm_ctx_svm_alloc_order(&s.host, 63, false, info, out), HIPSVM_CTX_MAX_DEV);
	cr_assert_eq(out[0], 63);
	cr_assert_eq(out[1], 60);
}

/* ---- the per-API table ---- */

struct api_want {
	enum hipsvm_api api;
	const char *name;
	enum hipsvm_ctx_rule rule;
	enum hipsvm_kind kind;
	bool remembers;
};

static const struct api_want api_want[] = {
	{ HIPSVM_API_MALLOC, "hipMalloc", HIPSVM_RULE_PRIMARY_CURRENT, HIPSVM_KIND_DEVICE, false },
	{ HIPSVM_API_MALLOC_PITCH, "hipMallocPitch", HIPSVM_RULE_PRIMARY_CURRENT, HIPSVM_KIND_DEVICE, false },
	{ HIPSVM_API_MALLOC_3D, "hipMalloc3D", HIPSVM_RULE_PRIMARY_CURRENT, HIPSVM_KIND_DEVICE, false },
	{ HIPSVM_API_MALLOC_ASYNC, "hipMallocAsync", HIPSVM_RULE_PRIMARY_CURRENT, HIPSVM_KIND_DEVICE, false },
	{ HIPSVM_API_EXT_MALLOC_WITH_FLAGS, "hipExtMallocWithFlags", HIPSVM_RULE_PRIMARY_CURRENT,
	  HIPSVM_KIND_DEVICE, false },
	{ HIPSVM_API_EXT_MALLOC_SIGNAL, NULL, HIPSVM_RULE_HOST, HIPSVM_KIND_SIGNAL, false },
	{ HIPSVM_API_HOST_MALLOC, "hipHostMalloc", HIPSVM_RULE_HOST, HIPSVM_KIND_HOST, false },
	{ HIPSVM_API_EXT_HOST_ALLOC, "hipExtHostAlloc", HIPSVM_RULE_HOST, HIPSVM_KIND_HOST, false },
	{ HIPSVM_API_MALLOC_HOST, "hipMallocHost", HIPSVM_RULE_HOST, HIPSVM_KIND_HOST, false },
	{ HIPSVM_API_HOST_ALLOC, "hipHostAlloc", HIPSVM_RULE_HOST, HIPSVM_KIND_HOST, false },
	{ HIPSVM_API_MALLOC_MANAGED, "hipMallocManaged", HIPSVM_RULE_HOST, HIPSVM_KIND_MANAGED, true },
	{ HIPSVM_API_HOST_REGISTER, "hipHostRegister", HIPSVM_RULE_HOST, HIPSVM_KIND_REGISTERED, false },
	{ HIPSVM_API_FREE, "hipFree", HIPSVM_RULE_BY_POINTER, 0, false },
	{ HIPSVM_API_HOST_FREE, "hipHostFree", HIPSVM_RULE_BY_POINTER, 0, false },
	{ HIPSVM_API_FREE_ASYNC, "hipFreeAsync", HIPSVM_RULE_BY_POINTER, 0, false },
	{ HIPSVM_API_HOST_UNREGISTER, "hipHostUnregister", HIPSVM_RULE_BY_POINTER, 0, false },
	/* device memory on the device the call names (the current one when
	 * the call names none), looked up by the core before routing */
	{ HIPSVM_API_MALLOC_FROM_POOL, "hipMallocFromPoolAsync", HIPSVM_RULE_PRIMARY_CURRENT,
	  HIPSVM_KIND_DEVICE, false },
	{ HIPSVM_API_POOL_IMPORT, "hipMemPoolImportPointer", HIPSVM_RULE_PRIMARY_CURRENT,
	  HIPSVM_KIND_DEVICE, false },
	{ HIPSVM_API_MEM_CREATE, "hipMemCreate", HIPSVM_RULE_PRIMARY_CURRENT, HIPSVM_KIND_DEVICE,
	  false },
	{ HIPSVM_API_IPC_OPEN, "hipIpcOpenMemHandle", HIPSVM_RULE_PRIMARY_CURRENT,
	  HIPSVM_KIND_DEVICE, false },
	{ HIPSVM_API_MEM_ALLOC_PITCH, "hipMemAllocPitch", HIPSVM_RULE_PRIMARY_CURRENT,
	  HIPSVM_KIND_DEVICE, false },
	{ HIPSVM_API_MEM_ALLOC_HOST, "hipMemAllocHost", HIPSVM_RULE_HOST, HIPSVM_KIND_HOST, false },
	{ HIPSVM_API_MALLOC_ARRAY, "hipMallocArray", HIPSVM_RULE_PRIMARY_CURRENT, HIPSVM_KIND_DEVICE,
	  false },
	{ HIPSVM_API_MALLOC_3D_ARRAY, "hipMalloc3DArray", HIPSVM_RULE_PRIMARY_CURRENT,
	  HIPSVM_KIND_DEVICE, false },
	{ HIPSVM_API_ARRAY_CREATE, "hipArrayCreate", HIPSVM_RULE_PRIMARY_CURRENT, HIPSVM_KIND_DEVICE,
	  false },
	{ HIPSVM_API_ARRAY_3D_CREATE, "hipArray3DCreate", HIPSVM_RULE_PRIMARY_CURRENT,
	  HIPSVM_KIND_DEVICE, false },
	{ HIPSVM_API_MEM_RELEASE, "hipMemRelease", HIPSVM_RULE_BY_POINTER, 0, false },
	{ HIPSVM_API_IPC_CLOSE, "hipIpcCloseMemHandle", HIPSVM_RULE_BY_POINTER, 0, false },
	{ HIPSVM_API_FREE_ARRAY, "hipFreeArray", HIPSVM_RULE_BY_POINTER, 0, false },
	{ HIPSVM_API_ARRAY_DESTROY, "hipArrayDestroy", HIPSVM_RULE_BY_POINTER, 0, false },
};

Test(context, api_table_rows)
{
	unsigned i, j;

	cr_assert_eq(sizeof(api_want) / sizeof(api_want[0]), (size_t)HIPSVM_API_COUNT);
	for (i = 0; i < HIPSVM_API_COUNT; i++) {
		const struct api_want *w = &api_want[i];
		const struct hipsvm_api_row *r = hipsvm_api_row(w->api);

		cr_assert_not_null(r);
		cr_assert_eq(r->api, w->api, "row %u is indexed by its api", i);
		cr_assert_not_null(r->name);
		if (w->name)
			cr_assert_str_eq(r->name, w->name);
		else
			cr_assert_eq(strncmp(r->name, "hipExtMallocWithFlags", 21), 0);
		cr_assert_eq(r->rule, w->rule, "%s", r->name);
		if (w->rule != HIPSVM_RULE_BY_POINTER)
			cr_assert_eq(r->kind, w->kind, "%s", r->name);
		cr_assert_eq(r->remembers_device, w->remembers, "%s", r->name);
		for (j = 0; j < i; j++)
			cr_assert_str_neq(r->name, hipsvm_api_row(j)->name, "names are distinct");
	}
	cr_assert_null(hipsvm_api_row(HIPSVM_API_COUNT));
	cr_assert_null(hipsvm_api_row((enum hipsvm_api)-1));
}

Test(context, for_api_every_row)
{
	struct hipsvm_devinfo info[3] = { SVM(0, 1), SVM(0, 1), SVM(0, 1) };
	struct hipsvm_ctxset s;
	unsigned i;

	cr_assert_eq(hipsvm_ctxset_init(&s, 3, info), 0);
	for (i = 0; i < HIPSVM_API_COUNT; i++) {
		const struct api_want *w = &api_want[i];
		int cur;

		for (cur = -1; cur <= 3; cur++) {
			struct hipsvm_context *c = hipsvm_ctxset_for_api(&s, w->api, cur);
			struct hipsvm_context *want = NULL;

			if (w->rule == HIPSVM_RULE_HOST)
				want = &s.host;
			else if (w->rule == HIPSVM_RULE_PRIMARY_CURRENT && cur >= 0 && cur < 3)
				want = &s.primary[cur];
			cr_assert_eq(c, want, "api %u (%s) with current device %d", i,
				     hipsvm_api_row(w->api)->name, cur);
		}
	}
	cr_assert_null(hipsvm_ctxset_for_api(&s, HIPSVM_API_COUNT, 0));
	cr_assert_null(hipsvm_ctxset_for_api(NULL, HIPSVM_API_MALLOC, 0));
}

Test(context, kinds)
{
	cr_assert_not(hipsvm_kind_is_svm(HIPSVM_KIND_DEVICE));
	cr_assert(hipsvm_kind_is_svm(HIPSVM_KIND_MANAGED));
	cr_assert(hipsvm_kind_is_svm(HIPSVM_KIND_HOST));
	cr_assert(hipsvm_kind_is_svm(HIPSVM_KIND_REGISTERED));
	cr_assert(hipsvm_kind_is_svm(HIPSVM_KIND_SIGNAL));
	cr_assert_not(hipsvm_kind_is_svm(HIPSVM_KIND_COUNT));
}

/* ---- reference counts ---- */

Test(context, refcount)
{
	struct hipsvm_devinfo info[1] = { SVM(0, 1) };
	struct hipsvm_context c;
	int devs[] = { 0 };

	cr_assert_eq(hipsvm_ctx_init(&c, 0, devs, 1, info), 0);
	cr_assert_eq(c.refcount, 1u);
	hipsvm_ctx_retain(&c);
	hipsvm_ctx_retain(&c);
	cr_assert_eq(c.refcount, 3u);
	cr_assert_eq(hipsvm_ctx_release(&c), 2u);
	cr_assert_eq(hipsvm_ctx_release(&c), 1u);
	cr_assert_eq(hipsvm_ctx_release(&c), 0u, "dead");
	cr_assert_eq(hipsvm_ctx_release(&c), 0u, "a release too many does not wrap");
	cr_assert_eq(c.refcount, 0u);
}

#define RC_THREADS 4
#define RC_ITERS 100000

static void *rc_worker(void *arg)
{
	struct hipsvm_context *c = arg;
	int i;

	for (i = 0; i < RC_ITERS; i++) {
		hipsvm_ctx_retain(c);
		hipsvm_ctx_retain(c);
		hipsvm_ctx_release(c);
	}
	for (i = 0; i < RC_ITERS; i++)
		hipsvm_ctx_release(c);
	return NULL;
}

Test(context, refcount_is_atomic)
{
	struct hipsvm_devinfo info[1] = { SVM(0, 1) };
	static struct hipsvm_context c;
	pthread_t t[RC_THREADS];
	int devs[] = { 0 }, i;

	cr_assert_eq(hipsvm_ctx_init(&c, 0, devs, 1, info), 0);
	for (i = 0; i < RC_THREADS; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, rc_worker, &c), 0);
	for (i = 0; i < RC_THREADS; i++)
		pthread_join(t[i], NULL);
	cr_assert_eq(c.refcount, 1u, "every retain matched by a release: %u", c.refcount);
	cr_assert_eq(hipsvm_ctx_release(&c), 0u);
}
