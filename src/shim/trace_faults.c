/* SPDX-License-Identifier: MIT */
/*
 * trace_faults.c - the GPU fault counters, asked of the hook and written as
 * "faults" trace lines (trace.h): by the shim after each drain, and by the
 * hipsvm command at a fixed period while the program runs.
 */
#include "shim/trace.h"

#include <errno.h>
#include <string.h>

#include "shim/hook.h"

static const char *const fault_names[HIPSVM_TRACE_FAULT_KINDS] = {
	"raised", "handled", "dropped", "real",
};

/* "g<N>.faults_<kind>" to N and the kind's index; -EINVAL otherwise. */
static int fault_tok(const char *k, unsigned *dev, unsigned *kind)
{
	static const char pre[] = ".faults_";
	const char *p = k + 1;
	unsigned d = 0, i;

	if (k[0] != 'g' || *p < '0' || *p > '9')
		return -EINVAL;
	while (*p >= '0' && *p <= '9' && d < 1000)
		d = d * 10 + (unsigned)(*p++ - '0');
	if (d >= HIPSVM_MAX_GPUS || strncmp(p, pre, sizeof(pre) - 1) != 0)
		return -EINVAL;
	p += sizeof(pre) - 1;
	for (i = 0; i < HIPSVM_TRACE_FAULT_KINDS; i++) {
		if (strcmp(p, fault_names[i]) == 0) {
			*dev = d;
			*kind = i;
			return 0;
		}
	}
	return -EINVAL;
}

int hipsvm_trace_faults(int fd, struct hipsvm_hook *h, uint64_t gpus,
			uint64_t (*last)[HIPSVM_TRACE_FAULT_KINDS])
{
	struct hipsvm_reply r;
	unsigned base, i, dev, kind;
	int err;

	if (fd < 0 || !gpus)
		return 0;
	for (base = 0; base < HIPSVM_MAX_GPUS; base += HIPSVM_HOOK_STATS_GPUS) {
		uint64_t chunk = gpus & (((UINT64_C(1) << HIPSVM_HOOK_STATS_GPUS) - 1) << base);
		uint64_t v[HIPSVM_HOOK_STATS_GPUS][HIPSVM_TRACE_FAULT_KINDS];
		unsigned seen[HIPSVM_HOOK_STATS_GPUS] = { 0 };

		if (!chunk)
			continue;
		err = hipsvm_hook_stats(h, chunk, &r);
		if (err)
			return err;
		if (r.status)
			return r.status;
		memset(v, 0, sizeof(v));
		for (i = 0; i < r.ntok && i < HIPSVM_PROTO_MAX_TOKENS; i++) {
			uint64_t x;

			if (fault_tok(r.tok[i].key, &dev, &kind) || !(chunk >> dev & 1) ||
			    hipsvm_proto_u64(r.tok[i].val, strlen(r.tok[i].val), &x))
				continue;
			v[dev - base][kind] = x;
			seen[dev - base] |= 1u << kind;
		}
		for (dev = base; dev < base + HIPSVM_HOOK_STATS_GPUS; dev++) {
			uint64_t *c = v[dev - base];

			if (!(chunk >> dev & 1) || !seen[dev - base])
				continue;
			if (last) {
				if (!memcmp(last[dev], c, sizeof(last[dev])))
					continue;
				memcpy(last[dev], c, sizeof(last[dev]));
			}
			struct hipsvm_tfield f[] = {
				HIPSVM_TF_U("dev", dev),
				HIPSVM_TF_U("raised", c[0]),
				HIPSVM_TF_U("handled", c[1]),
				HIPSVM_TF_U("dropped", c[2]),
				HIPSVM_TF_U("real", c[3]),
			};
			err = hipsvm_trace_emit(fd, "faults", f, 5);
			if (err)
				return err;
		}
	}
	return 0;
}
