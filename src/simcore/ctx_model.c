/* SPDX-License-Identifier: MIT */
/*
 * context.c - amd::Context's rules as data and small pure functions.
 *
 * Nothing here allocates or locks: the caller owns the memory of a context and
 * the lock that ROCclr takes around svmAlloc/svmFree (these functions only say
 * in which order the devices are visited). Device retain/release is the
 * caller's business too; the devices of this project are plain indices.
 */
#include "simcore/ctx_model.h"
#include "simcore/ctx_model_test.h"

#include <errno.h>
#include <string.h>

static bool valid_dev(int d)
{
	return d >= 0 && d < HIPSVM_CTX_MAX_DEV;
}

int hipsvm_ctx_init(struct hipsvm_context *c, int id, const int *devs, unsigned n,
		    const struct hipsvm_devinfo *info)
{
	struct hipsvm_context t;
	unsigned i, j;

	if (!c || !devs || !info || n == 0 || n > HIPSVM_CTX_MAX_DEV)
		return -EINVAL;
	memset(&t, 0, sizeof(t));
	t.refcount = 1;
	t.id = id;
	t.host_alloc_dev = -1;
	for (i = 0; i < n; i++) {
		if (!valid_dev(devs[i]))
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (devs[j] == devs[i])
				return -EINVAL;
		t.dev[t.ndev++] = devs[i];
		if (t.host_alloc_dev < 0 && info[devs[i]].custom_host_alloc)
			t.host_alloc_dev = devs[i];
		if (info[devs[i]].svm_capable)
			t.svm_dev[t.nsvm++] = devs[i];
	}
	/* ROCclr: allocate first on a device that is NOT fine-grained-system
	 * capable, so the first SVM device that supports it trades places with
	 * the first that does not. All capable (or one device): no change. */
	if (t.nsvm > 1 && info[t.svm_dev[0]].fine_grained_system) {
		for (i = 1; i < t.nsvm; i++) {
			if (!info[t.svm_dev[i]].fine_grained_system) {
				int tmp = t.svm_dev[0];

				t.svm_dev[0] = t.svm_dev[i];
				t.svm_dev[i] = tmp;
				break;
			}
		}
	}
	*c = t;
	return 0;
}

void hipsvm_ctx_retain(struct hipsvm_context *c)
{
	__atomic_fetch_add(&c->refcount, 1, __ATOMIC_RELAXED);
}

uint32_t hipsvm_ctx_release(struct hipsvm_context *c)
{
	uint32_t cur = __atomic_load_n(&c->refcount, __ATOMIC_RELAXED);

	/* Never below zero: a release too many is the caller's bug, and a
	 * wrapped count would keep a dead context "alive" forever. Acq_rel so
	 * that whoever sees 0 also sees every other holder's last writes. */
	while (cur != 0) {
		if (__atomic_compare_exchange_n(&c->refcount, &cur, cur - 1, true,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return cur - 1;
	}
	return 0;
}

bool hipsvm_ctx_has_dev(const struct hipsvm_context *c, int dev)
{
	unsigned i;

	for (i = 0; c && i < c->ndev; i++)
		if (c->dev[i] == dev)
			return true;
	return false;
}

static bool is_svm_dev(const struct hipsvm_context *c, int dev)
{
	unsigned i;

	for (i = 0; i < c->nsvm; i++)
		if (c->svm_dev[i] == dev)
			return true;
	return false;
}

/* cur_dev must be one of the context's SVM devices: svmAlloc on a device
 * that cannot do SVM would fail, and one outside the context is not its to
 * use. */
int hipsvm_ctx_svm_alloc_order(const struct hipsvm_context *c, int cur_dev, bool atomics,
			       const struct hipsvm_devinfo *info, int *out)
{
	unsigned i;
	int n = 0;

	if (!c || !info || !out)
		return -EINVAL;
	if (cur_dev >= 0 && is_svm_dev(c, cur_dev) && (!atomics || info[cur_dev].atomics))
		out[n++] = cur_dev;
	for (i = 0; i < c->nsvm; i++) {
		int d = c->svm_dev[i];

		if (d == cur_dev)
			continue;	/* first already, or refused for atomics */
		if (atomics && !info[d].atomics)
			continue;
		out[n++] = d;
	}
	return n ? n : -ENODEV;
}

int hipsvm_ctx_svm_free_order(const struct hipsvm_context *c, int *out)
{
	unsigned i;

	if (!c || !out)
		return -EINVAL;
	for (i = 0; i < c->nsvm; i++)
		out[i] = c->svm_dev[i];
	return (int)c->nsvm;
}

/* A primary context is one device whose index is the context's id. */
static bool is_primary(const struct hipsvm_context *c)
{
	return c->id >= 0 && c->ndev == 1 && c->dev[0] == c->id;
}

int hipsvm_ctx_null_stream_dev(const struct hipsvm_context *c, int current_dev)
{
	if (!c)
		return -1;
	if (is_primary(c))
		return c->id;
	if (c->id == HIPSVM_CTX_HOST && current_dev >= 0 && hipsvm_ctx_has_dev(c, current_dev))
		return current_dev;
	return -1;
}

int hipsvm_ctxset_init(struct hipsvm_ctxset *s, unsigned ndev, const struct hipsvm_devinfo *info)
{
	int devs[HIPSVM_CTX_MAX_DEV];
	unsigned i;
	int err;

	if (!s || !info || ndev == 0 || ndev > HIPSVM_CTX_MAX_DEV)
		return -EINVAL;
	/* Build into s only after validating: the contexts below cannot fail
	 * with valid, distinct device indices. */
	memset(s, 0, sizeof(*s));
	s->ndev = ndev;
	memcpy(s->info, info, ndev * sizeof(*info));
	for (i = 0; i < ndev; i++) {
		devs[i] = (int)i;
		err = hipsvm_ctx_init(&s->primary[i], (int)i, &devs[i], 1, s->info);
		if (err)
			return err;
	}
	return hipsvm_ctx_init(&s->host, HIPSVM_CTX_HOST, devs, ndev, s->info);
}

struct hipsvm_context *hipsvm_ctxset_get(struct hipsvm_ctxset *s, int id)
{
	if (!s)
		return NULL;
	if (id == HIPSVM_CTX_HOST)
		return &s->host;
	if (id < 0 || (unsigned)id >= s->ndev)
		return NULL;
	return &s->primary[id];
}

struct hipsvm_context *hipsvm_ctxset_for_api(struct hipsvm_ctxset *s, enum hipsvm_api api,
					     int current_dev)
{
	const struct hipsvm_api_row *row = hipsvm_api_row(api);

	if (!s || !row)
		return NULL;
	switch (row->rule) {
	case HIPSVM_RULE_PRIMARY_CURRENT:
		if (current_dev < 0 || (unsigned)current_dev >= s->ndev)
			return NULL;
		return &s->primary[current_dev];
	case HIPSVM_RULE_HOST:
		return &s->host;
	case HIPSVM_RULE_BY_POINTER:
		break;
	}
	return NULL;
}
