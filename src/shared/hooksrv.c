/* SPDX-License-Identifier: MIT */
/* hooksrv.c - the server semantics of the hook protocol; see hooksrv.h. */
#include "shared/hooksrv.h"

const char *hipsvm_srv_drain_word(int res)
{
	switch (res) {
	case 0:
		return HIPSVM_W_OK;
	case -ETIME:
		return HIPSVM_W_TIMEOUT;
	case -ENODEV:
		return HIPSVM_W_NODEV;
	case HIPSVM_DRAIN_SKIPPED:
		return HIPSVM_W_SKIPPED;
	default:
		return HIPSVM_W_ERROR;
	}
}

/* The words of set and drain replies padded to 8 bytes, for
 * hipsvm_out_gpu_word8: written once per GPU of every unmap. */
struct word8 {
	char s[8];
	size_t n;
};
#define WORD8(w) { w, sizeof(w) - 1 }
static const struct word8 w8_none = WORD8(HIPSVM_W_NONE), w8_ok = WORD8(HIPSVM_W_OK),
			  w8_timeout = WORD8(HIPSVM_W_TIMEOUT), w8_nodev = WORD8(HIPSVM_W_NODEV),
			  w8_skipped = WORD8(HIPSVM_W_SKIPPED), w8_error = WORD8(HIPSVM_W_ERROR);

static const struct word8 *drain_word8(int res)
{
	switch (res) {
	case 0:
		return &w8_ok;
	case -ETIME:
		return &w8_timeout;
	case -ENODEV:
		return &w8_nodev;
	case HIPSVM_DRAIN_SKIPPED:
		return &w8_skipped;
	default:
		return &w8_error;
	}
}

static void log_ev(const struct hipsvm_srv_ops *ops, void *be, enum hipsvm_srv_ev ev,
		   unsigned g, bool has_x, uint64_t x, const char *word)
{
	if (ops->log)
		ops->log(be, ev, g, has_x, x, word);
}

/* The GPUs a request names: "all" is every GPU that exists. */
static uint64_t named(const struct hipsvm_cmd *c, unsigned n)
{
	if (c->all)
		return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
	return c->gpus;
}

/* Out of line, as do_drain: their GPU arrays stay off one frame (the
 * kernel's stack is small). __noinline__: the kernel defines noinline. */
static __attribute__((__noinline__)) void do_set(const struct hipsvm_srv_ops *ops, void *be,
						 const struct hipsvm_cmd *c, unsigned n,
						 uint64_t mask, struct hipsvm_out *o)
{
	uint64_t real = mask & (n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1), left, got = 0;
	uint64_t tsv[HIPSVM_MAX_GPUS];
	unsigned g;

	/* One event names the range, ahead of the per-GPU set events, so that
	 * the log shows which unmap a set / drain / clear sequence was for. */
	if (ops->range)
		ops->range(be, c, real);
	if (c->has_range && real) {
		for (g = 0; !(real >> g & 1); g++)
			;
		log_ev(ops, be, HIPSVM_SRV_EV_RANGE, g, true, c->addr, NULL);
	}
	if (ops->set_gpus && real)
		got = ops->set_gpus(be, real, c, tsv);
	for (left = mask; left; left &= left - 1) {
		uint64_t ts = 0;

		g = (unsigned)__builtin_ctzll(left);
		if (g >= n) {
			hipsvm_out_gpu_word(o, g, HIPSVM_W_NODEV);
			continue;
		}
		if (ops->set_gpus ? (got >> g & 1 && ((ts = tsv[g]), 1)) : ops->set(be, g, c, &ts) == 1) {
			hipsvm_out_gpu_key(o, g);
			hipsvm_out_hex(o, ts);
			log_ev(ops, be, HIPSVM_SRV_EV_SET, g, true, ts, NULL);
		} else {
			hipsvm_out_gpu_word8(o, g, w8_none.s, w8_none.n);
			log_ev(ops, be, HIPSVM_SRV_EV_SET, g, false, 0, HIPSVM_W_NONE);
		}
	}
}

/* One GPU: fresh checkpoint(s), the backend's wait, the accounting. */
static int drain_gpu(const struct hipsvm_srv_ops *ops, void *be, unsigned g, uint32_t ms)
{
	struct hipsvm_drain d;
	int res = hipsvm_cp_drain_begin(ops->irq(be, g), &d);

	if (res == 0) {
		res = ops->wait(be, g, &d, ms);
		if (res == -EINTR)
			return res;
		if (res == 0)
			res = d.err;
	}
	hipsvm_cp_drain_account(ops->cp(be, g), res);
	if (res == 0) {
		unsigned left = hipsvm_cp_drain_left(&d);

		if (left) {
			HIPSVM_ADD(&ops->cp(be, g)->stats.drains_early, 1);
			HIPSVM_ADD(&ops->cp(be, g)->stats.drain_left, left);
		}
	}
	return res;
}

static bool clear_gpu(const struct hipsvm_srv_ops *ops, void *be, const struct hipsvm_cmd *c,
		      unsigned g)
{
	uint64_t expect = (c->has_value >> g & 1) ? c->value[g] : HIPSVM_CP_ANY;
	bool reset = hipsvm_cp_clear(ops->cp(be, g), expect) == 1;

	if (ops->cleared)
		ops->cleared(be, g, reset);
	log_ev(ops, be, HIPSVM_SRV_EV_CLEAR, g, false, 0, reset ? HIPSVM_W_CLEARED : HIPSVM_W_KEPT);
	return reset;
}

/* drain, and for drainclear the clear of each GPU given as N=TS whose drain
 * passed its checkpoint: ok, or skipped (a reset emptied the rings). A GPU
 * that timed out or whose ring is off keeps its checkpoint: stale faults may
 * still be queued, and a checkpoint left behind only drops faults raised
 * before it (the first newer fault clears it). */
static __attribute__((__noinline__)) int do_drain(const struct hipsvm_srv_ops *ops, void *be,
						  const struct hipsvm_cmd *c, unsigned n,
						  uint64_t mask, struct hipsvm_out *o)
{
	uint32_t ms = c->has_timeout ? c->timeout_ms : HIPSVM_DRAIN_DEFAULT_MS;
	bool and_clear = c->op == HIPSVM_OP_DRAINCLEAR;
	const char *range[HIPSVM_MAX_GPUS];
	int res[HIPSVM_MAX_GPUS];
	uint64_t left, done = 0;
	unsigned g;

	/* Every GPU's drain (each followed by the backend's drained, or all
	 * by its drained_gpus at once), then the words and the clears. */
	for (left = mask; left; left &= left - 1) {
		g = (unsigned)__builtin_ctzll(left);
		if (g >= n)
			break;	/* the bits are in order: none above exists */
		res[g] = drain_gpu(ops, be, g, ms);
		range[g] = NULL;
		if (res[g] == -EINTR)
			break;
		done |= UINT64_C(1) << g;
		if (!ops->drained_gpus && ops->drained)
			range[g] = ops->drained(be, g, res[g]);
	}
	if (ops->drained_gpus && done)
		ops->drained_gpus(be, done, range);
	for (left = mask; left; left &= left - 1) {
		const struct word8 *w8;

		g = (unsigned)__builtin_ctzll(left);
		if (g >= n) {
			hipsvm_out_gpu_word(o, g, HIPSVM_W_NODEV);
			continue;
		}
		if (!(done >> g & 1))
			return -EINTR;
		w8 = drain_word8(res[g]);
		log_ev(ops, be, HIPSVM_SRV_EV_DRAIN, g, false, 0,
		       res[g] == 0 && range[g] ? range[g] : hipsvm_srv_drain_word(res[g]));
		hipsvm_out_gpu_word8(o, g, w8->s, w8->n);
		if (and_clear && (c->has_value >> g & 1) &&
		    (res[g] == 0 || res[g] == HIPSVM_DRAIN_SKIPPED)) {
			char sep = HIPSVM_W_SEP;

			hipsvm_out_mem(o, &sep, 1);
			hipsvm_out_str(o, clear_gpu(ops, be, c, g) ? HIPSVM_W_CLEARED : HIPSVM_W_KEPT);
		}
	}
	return 0;
}

static void do_clear(const struct hipsvm_srv_ops *ops, void *be, const struct hipsvm_cmd *c,
		     unsigned n, uint64_t mask, struct hipsvm_out *o)
{
	uint64_t left;
	unsigned g;

	for (left = mask; left; left &= left - 1) {
		g = (unsigned)__builtin_ctzll(left);
		if (g >= n) {
			hipsvm_out_gpu_word(o, g, HIPSVM_W_NODEV);
			continue;
		}
		hipsvm_out_gpu_word(o, g, clear_gpu(ops, be, c, g) ? HIPSVM_W_CLEARED : HIPSVM_W_KEPT);
	}
}

static int run(const struct hipsvm_srv_ops *ops, void *be, const struct hipsvm_cmd *c,
	       struct hipsvm_out *o, const char **detail)
{
	unsigned n = ops->ngpus(be);
	uint64_t mask = named(c, n), ts = 0;
	int err;

	if ((c->op == HIPSVM_OP_INJECT || c->op == HIPSVM_OP_RING) && c->gpu >= n) {
		*detail = "no such gpu";
		return -ENODEV;
	}
	switch (c->op) {
	case HIPSVM_OP_VERSION:
		hipsvm_out_lit(o, " ");
		hipsvm_out_u64(o, HIPSVM_PROTO_VERSION);
		hipsvm_out_lit(o, " hipsvm-hook");
		return 0;
	case HIPSVM_OP_GPUS:
		hipsvm_out_kv(o, "n", n);
		return 0;
	case HIPSVM_OP_SET:
		do_set(ops, be, c, n, mask, o);
		return 0;
	case HIPSVM_OP_DRAIN:
	case HIPSVM_OP_DRAINCLEAR:
		err = do_drain(ops, be, c, n, mask, o);
		if (err)
			*detail = "interrupted";
		return err;
	case HIPSVM_OP_CLEAR:
		do_clear(ops, be, c, n, mask, o);
		return 0;
	case HIPSVM_OP_STATS:
		ops->stats(be, c, o);
		return 0;
	case HIPSVM_OP_LOG:
		ops->log_format(be, o);
		return 0;
	case HIPSVM_OP_INJECT:
		err = ops->inject(be, c, &ts, detail);
		if (err)
			return err;
		hipsvm_out_gpu_key(o, c->gpu);
		hipsvm_out_hex(o, ts);
		return 0;
	case HIPSVM_OP_RING:
		return ops->ring(be, c, detail);
	default:
		*detail = "unknown command";
		return -EINVAL;
	}
}

int hipsvm_srv_request(const struct hipsvm_srv_ops *ops, void *be, struct hipsvm_cmd *cmd,
		       const char *req, size_t len, char *out, size_t cap, size_t *reply_len)
{
	const char *detail = "";
	struct hipsvm_out o;
	int err, n;

	*reply_len = 0;
	if (hipsvm_proto_parse(req, len, cmd)) {
		err = -EINVAL;
		detail = "malformed request";
		goto fail;
	}
	hipsvm_out_init(&o, out, cap);
	hipsvm_out_lit(&o, "ok ");
	hipsvm_out_str(&o, hipsvm_op_name(cmd->op));
	err = run(ops, be, cmd, &o, &detail);
	if (err)
		goto fail;
	n = hipsvm_out_end(&o);
	if (n < 0) {
		err = n;
		detail = "reply too long";
		goto fail;
	}
	*reply_len = (size_t)n;
	return 0;
fail:
	n = hipsvm_proto_error(out, cap, err, detail);
	*reply_len = n > 0 ? (size_t)n : 0;
	return err;
}

void hipsvm_srv_cp_sum(const struct hipsvm_srv_ops *ops, void *be, unsigned n,
		       struct hipsvm_cp_stats *s)
{
	unsigned g;

	memset(s, 0, sizeof(*s));
	for (g = 0; g < n; g++) {
		const struct hipsvm_cp_stats *c = &ops->cp(be, g)->stats;

		s->sets += HIPSVM_LOAD(&c->sets);
		s->sets_empty += HIPSVM_LOAD(&c->sets_empty);
		s->handled += HIPSVM_LOAD(&c->handled);
		s->dropped += HIPSVM_LOAD(&c->dropped);
		s->cleared_by_fault += HIPSVM_LOAD(&c->cleared_by_fault);
		s->clears += HIPSVM_LOAD(&c->clears);
		s->drains += HIPSVM_LOAD(&c->drains);
		s->drain_timeouts += HIPSVM_LOAD(&c->drain_timeouts);
		s->drain_nodev += HIPSVM_LOAD(&c->drain_nodev);
		s->drain_skipped += HIPSVM_LOAD(&c->drain_skipped);
		s->stale += HIPSVM_LOAD(&c->stale);
		s->drains_early += HIPSVM_LOAD(&c->drains_early);
		s->drain_left += HIPSVM_LOAD(&c->drain_left);
	}
}
