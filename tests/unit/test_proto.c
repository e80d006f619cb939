/* SPDX-License-Identifier: MIT */
/* The hook protocol: every command, every malformed form, bounds, round trips. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/proto.h"
#include "shared/ts.h"

static int parse(const char *s, struct hipsvm_cmd *c)
{
	return hipsvm_proto_parse(s, strlen(s), c);
}

Test(proto, simple_commands)
{
	struct hipsvm_cmd c;

	cr_assert_eq(parse("version", &c), 0);
	cr_assert_eq(c.op, HIPSVM_OP_VERSION);
	cr_assert_eq(parse("gpus\n", &c), 0);
	cr_assert_eq(c.op, HIPSVM_OP_GPUS);
	cr_assert_eq(parse("  stats \r\n", &c), 0);
	cr_assert_eq(c.op, HIPSVM_OP_STATS);
	cr_assert_eq(c.gpus, 0, "no list: the server's default GPUs");
	cr_assert_eq(parse("stats 8-15", &c), 0);
	cr_assert_eq(c.op, HIPSVM_OP_STATS);
	cr_assert_eq(c.gpus, 0xff00);
	cr_assert_eq(parse("stats all", &c), 0);
	cr_assert(c.all);
	cr_assert_eq(parse("log", &c), 0);
	cr_assert_eq(c.op, HIPSVM_OP_LOG);
}

Test(proto, gpu_sets)
{
	struct hipsvm_cmd c;

	cr_assert_eq(parse("set all", &c), 0);
	cr_assert(c.all);
	cr_assert_eq(c.gpus, ~UINT64_C(0));
	cr_assert_eq(parse("set 0,2,5", &c), 0);
	cr_assert_eq(c.gpus, 0x25);
	cr_assert_eq(parse("drain 1-3", &c), 0);
	cr_assert_eq(c.gpus, 0xe);
	cr_assert_eq(parse("drain 0,4-5,63", &c), 0);
	cr_assert_eq(c.gpus, (UINT64_C(1) << 63) | 0x31);
	cr_assert_eq(parse("clear 0=0x10,3=7", &c), 0);
	cr_assert_eq(c.gpus, 0x9);
	cr_assert_eq(c.has_value, 0x9);
	cr_assert_eq(c.value[0], 0x10);
	cr_assert_eq(c.value[3], 7);
	cr_assert_eq(parse("clear 1,2=5", &c), 0);
	cr_assert_eq(c.has_value, 0x4);
}

Test(proto, set_and_drain_arguments)
{
	struct hipsvm_cmd c;

	cr_assert_eq(parse("set 0 0x7f0000001000 8192", &c), 0);
	cr_assert(c.has_range);
	cr_assert_eq(c.addr, 0x7f0000001000ull);
	cr_assert_eq(c.len, 8192);
	cr_assert_eq(parse("drain all 250", &c), 0);
	cr_assert(c.has_timeout);
	cr_assert_eq(c.timeout_ms, 250);
	cr_assert_eq(parse("drain all", &c), 0);
	cr_assert_not(c.has_timeout);
}

Test(proto, drainclear)
{
	struct hipsvm_cmd c;
	char buf[HIPSVM_PROTO_MAX_REQ + 1];

	cr_assert_eq(parse("drainclear 0,1=0x10,3=0 500", &c), 0);
	cr_assert_eq(c.op, HIPSVM_OP_DRAINCLEAR);
	cr_assert_eq(c.gpus, 0xb);
	cr_assert_eq(c.has_value, 0xa, "only N=TS items are to be cleared");
	cr_assert_eq(c.value[1], 0x10);
	cr_assert_eq(c.value[3], 0, "a checkpoint at the wrap is a value");
	cr_assert(c.has_timeout);
	cr_assert_eq(c.timeout_ms, 500);
	cr_assert_eq(hipsvm_proto_format(&c, buf, sizeof(buf)), 30);
	cr_assert_str_eq(buf, "drainclear 0,1=0x10,3=0x0 500\n");
	cr_assert_eq(parse("drainclear all", &c), 0);
	cr_assert(c.all && !c.has_timeout);
	cr_assert_eq(parse("drainclear 0 600000", &c), 0, "the maximum");
	cr_assert_eq(HIPSVM_DRAIN_MAX_MS, 600000);
	cr_assert_eq(parse("drainclear 0 600001", &c), -EINVAL);
	cr_assert_eq(parse("drain 0=5", &c), -EINVAL, "a plain drain clears nothing");
	cr_assert_eq(parse("drainclear", &c), -EINVAL);
	cr_assert_eq(parse("drainclear 0=0x1000000000000", &c), -EINVAL);
	cr_assert_str_eq(hipsvm_op_name(HIPSVM_OP_DRAINCLEAR), "drainclear");
}

Test(proto, inject_and_ring)
{
	struct hipsvm_cmd c;

	cr_assert_eq(parse("inject 2 now 0x1000 w", &c), 0);
	cr_assert_eq(c.gpu, 2);
	cr_assert(c.ts_now);
	cr_assert(c.write);
	cr_assert_eq(parse("inject 0 0xffffffffffff 0x2000", &c), 0);
	cr_assert_eq(c.ts, HIPSVM_TS_MASK);
	cr_assert_not(c.write);
	cr_assert_eq(parse("ring 1 ih1 off", &c), 0);
	cr_assert_eq(c.ring, HIPSVM_RING_IH1);
	cr_assert_not(c.on);
	cr_assert_eq(parse("ring 1 soft on", &c), 0);
	cr_assert_eq(c.ring, HIPSVM_RING_SOFT);
	cr_assert(c.on);
}

Test(proto, malformed_is_einval)
{
	static const char *const bad[] = {
		"", "\n", " ", "bogus", "version extra", "gpus 1", "set", "set ,", "set 0,",
		"set ,0", "set 0,,1", "set 64", "set 3-1", "set -1", "set 1-", "set 0 0x1000",
		"set 0 0x1000 0", "set 0 0xffffffffffffffff 2", "set 0=5", "set 0 1 2 3",
		"drain", "drain all 600001", "drain all x", "drain all 1 2",
		"clear", "clear 0=0x1000000000000", "clear 0=", "clear =5", "clear 0=5=6",
		"inject", "inject 0 now", "inject 64 now 0", "inject 0 0x1000000000000 0",
		"inject 0 now 0x1000000000000", "inject 0 now 0 x", "inject 0 soon 0",
		"ring 0 ih2 on", "ring 0 ih1 maybe", "ring 0 ih1", "stats\nstats", "set\t0\x01",
		"stats 0 1", "stats 64", "stats 0=5", "stats ,",
		"set 99999999999999999999", "set 0x", "set 0xg", "VERSION", "version\n\n",
		"version\r", "set 0\xc3\xa9",
	};
	struct hipsvm_cmd c;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(parse(bad[i], &c), -EINVAL, "accepted \"%s\"", bad[i]);
	cr_expect_eq(hipsvm_proto_parse("version\0x", 9, &c), -EINVAL, "embedded NUL");
	cr_expect_eq(hipsvm_proto_parse(NULL, 3, &c), -EINVAL);
}

Test(proto, input_is_bounded)
{
	char buf[HIPSVM_PROTO_MAX_REQ + 8];
	struct hipsvm_cmd c;
	size_t n;

	/* "set 0,0,0,..." exactly at the bound is fine, one byte more is not. */
	strcpy(buf, "set 0");
	n = strlen(buf);
	while (n + 2 <= HIPSVM_PROTO_MAX_REQ) {
		memcpy(buf + n, ",0", 2);
		n += 2;
	}
	buf[n] = '\0';
	cr_assert_eq(hipsvm_proto_parse(buf, n, &c), 0, "len %zu", n);
	memset(buf, ' ', sizeof(buf));
	memcpy(buf, "version", 7);
	cr_assert_eq(hipsvm_proto_parse(buf, HIPSVM_PROTO_MAX_REQ, &c), 0);
	cr_assert_eq(hipsvm_proto_parse(buf, HIPSVM_PROTO_MAX_REQ + 1, &c), -EINVAL);
}

static void random_cmd(struct hipsvm_cmd *c, unsigned *seed)
{
	static const enum hipsvm_op ops[] = {
		HIPSVM_OP_VERSION, HIPSVM_OP_GPUS, HIPSVM_OP_SET, HIPSVM_OP_DRAIN,
		HIPSVM_OP_CLEAR, HIPSVM_OP_STATS, HIPSVM_OP_LOG, HIPSVM_OP_INJECT, HIPSVM_OP_RING,
	};
	unsigned g;

	memset(c, 0, sizeof(*c));
	c->op = ops[rand_r(seed) % 9];
	if (c->op == HIPSVM_OP_SET || c->op == HIPSVM_OP_DRAIN || c->op == HIPSVM_OP_CLEAR ||
	    (c->op == HIPSVM_OP_STATS && rand_r(seed) % 2)) {
		if (rand_r(seed) % 8 == 0) {
			c->all = true;
			c->gpus = ~UINT64_C(0);
		} else {
			/* Few GPUs, so that every request fits in the bound. */
			for (g = 0; g < 1 + (unsigned)rand_r(seed) % 6; g++)
				c->gpus |= UINT64_C(1) << (rand_r(seed) % 64);
		}
	}
	if (c->op == HIPSVM_OP_SET && rand_r(seed) % 2) {
		c->has_range = true;
		c->addr = ((uint64_t)rand_r(seed) << 20) & 0xffffffffff000ull;
		c->len = 1 + (uint64_t)rand_r(seed);
	}
	if (c->op == HIPSVM_OP_DRAIN && rand_r(seed) % 2) {
		c->has_timeout = true;
		c->timeout_ms = (uint32_t)rand_r(seed) % 600001;
	}
	if (c->op == HIPSVM_OP_CLEAR && !c->all)
		for (g = 0; g < 64; g++)
			if ((c->gpus >> g & 1) && rand_r(seed) % 2) {
				c->has_value |= UINT64_C(1) << g;
				c->value[g] = 1 + ((uint64_t)rand_r(seed) << 17) % HIPSVM_TS_MASK;
			}
	if (c->op == HIPSVM_OP_INJECT) {
		c->gpu = (unsigned)rand_r(seed) % 64;
		c->ts_now = rand_r(seed) % 2;
		if (!c->ts_now)
			c->ts = ((uint64_t)rand_r(seed) << 24) & HIPSVM_TS_MASK;
		c->addr = ((uint64_t)rand_r(seed) << 16) & 0xffffffffffffull;
		c->write = rand_r(seed) % 2;
	}
	if (c->op == HIPSVM_OP_RING) {
		c->gpu = (unsigned)rand_r(seed) % 64;
		c->ring = (enum hipsvm_ring_id)(rand_r(seed) % 3);
		c->on = rand_r(seed) % 2;
	}
}

Test(proto, format_parse_round_trip)
{
	const char *env = getenv("HIPSVM_TEST_SEED");
	unsigned seed = env ? (unsigned)strtoul(env, NULL, 0) : 20261129u;
	unsigned start = seed;
	int i;

	cr_log_info("seed %u", start);
	for (i = 0; i < 100000; i++) {
		struct hipsvm_cmd a, b;
		char buf[HIPSVM_PROTO_MAX_REQ + 1];
		int n;

		random_cmd(&a, &seed);
		n = hipsvm_proto_format(&a, buf, sizeof(buf));
		cr_assert_gt(n, 0, "seed %u iter %d: format failed", start, i);
		cr_assert_eq(hipsvm_proto_parse(buf, (size_t)n, &b), 0, "seed %u iter %d: \"%s\"",
			     start, i, buf);
		cr_assert_eq(memcmp(&a, &b, sizeof(a)), 0, "seed %u iter %d: \"%s\" differs", start,
			     i, buf);
	}
}

Test(proto, random_bytes_never_crash)
{
	unsigned seed = 7;
	int i;

	cr_log_info("seed %u", seed);
	for (i = 0; i < 200000; i++) {
		char buf[64];
		struct hipsvm_cmd c;
		size_t n = (size_t)rand_r(&seed) % sizeof(buf), k;
		static const char alphabet[] = "setdrainclearall0123456789,-=x \n";

		for (k = 0; k < n; k++)
			buf[k] = rand_r(&seed) % 4 ? alphabet[rand_r(&seed) % (sizeof(alphabet) - 1)]
						   : (char)rand_r(&seed);
		(void)hipsvm_proto_parse(buf, n, &c);
	}
}

Test(proto, replies)
{
	struct hipsvm_reply r;
	char buf[HIPSVM_PROTO_MAX_REPLY];
	struct hipsvm_out o;
	int n;

	hipsvm_out_init(&o, buf, sizeof(buf));
	hipsvm_out_str(&o, "ok drain");
	hipsvm_out_gpu_word(&o, 0, "ok");
	hipsvm_out_gpu_word(&o, 3, "timeout");
	hipsvm_out_kv(&o, "sets", 18446744073709551615ull);
	n = hipsvm_out_end(&o);
	cr_assert_gt(n, 0);
	cr_assert_str_eq(buf, "ok drain 0=ok 3=timeout sets=18446744073709551615\n");
	cr_assert_eq(hipsvm_proto_parse_reply(buf, (size_t)n, &r), 0);
	cr_assert_eq(r.status, 0);
	cr_assert_str_eq(r.op, "drain");
	cr_assert_eq(r.ntok, 3);
	cr_assert_str_eq(hipsvm_reply_get(&r, "3"), "timeout");
	cr_assert_null(hipsvm_reply_get(&r, "1"));

	n = hipsvm_proto_error(buf, sizeof(buf), -EINVAL, "bad gpu set");
	cr_assert_str_eq(buf, "err EINVAL bad gpu set\n");
	cr_assert_eq(hipsvm_proto_parse_reply(buf, (size_t)n, &r), 0);
	cr_assert_eq(r.status, -EINVAL);
	cr_assert_str_eq(r.detail, "bad gpu set");
	cr_assert_eq(hipsvm_proto_parse_reply("nonsense\n", 9, &r), -EINVAL);
	cr_assert_eq(hipsvm_proto_parse_reply("ok\n", 3, &r), -EINVAL);
}

Test(proto, writer_overflow_is_reported)
{
	char buf[16];
	struct hipsvm_out o;

	hipsvm_out_init(&o, buf, sizeof(buf));
	hipsvm_out_str(&o, "ok stats");
	hipsvm_out_kv(&o, "faults_handled", 12345);
	cr_assert_eq(hipsvm_out_end(&o), -ENOSPC);
	cr_assert_lt(strlen(buf), sizeof(buf));
	hipsvm_out_init(&o, buf, sizeof(buf));
	hipsvm_out_hex(&o, 0);
	cr_assert_eq(hipsvm_out_end(&o), 4);
	cr_assert_str_eq(buf, "0x0\n");
}

/* The text is what the kernel module and the amdgpu series speak: the
 * formatter and the shared server's writers (rewritten without strlen and
 * printf) must produce these bytes exactly. */
Test(proto, exact_bytes)
{
	struct hipsvm_cmd c;
	struct hipsvm_out o;
	char buf[HIPSVM_PROTO_MAX_REQ + 1];

	memset(&c, 0, sizeof(c));
	c.op = HIPSVM_OP_SET;
	c.gpus = (UINT64_C(1) << 63) | (UINT64_C(1) << 10) | 5;
	c.has_range = true;
	c.addr = 0x7f12345000;
	c.len = 18446744073709551615u;
	cr_assert_gt(hipsvm_proto_format(&c, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "set 0,2,10,63 0x7f12345000 18446744073709551615\n");
	memset(&c, 0, sizeof(c));
	c.op = HIPSVM_OP_DRAINCLEAR;
	c.gpus = 0xf;
	c.has_value = 0x9;
	c.value[0] = 0xabcdef012345;
	c.value[3] = 0;
	c.has_timeout = true;
	c.timeout_ms = 1000;
	cr_assert_gt(hipsvm_proto_format(&c, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "drainclear 0=0xabcdef012345,1,2,3=0x0 1000\n");
	hipsvm_out_init(&o, buf, sizeof(buf));
	hipsvm_out_lit(&o, "ok set");
	hipsvm_out_gpu_key(&o, 0);
	hipsvm_out_hex(&o, 0x1f00);
	hipsvm_out_gpu_word(&o, 9, "none");
	hipsvm_out_gpu_word(&o, 10, "nodev");
	hipsvm_out_gpu_key(&o, 63);
	hipsvm_out_hex(&o, 0);
	hipsvm_out_kv(&o, "n", 0);
	cr_assert_gt(hipsvm_out_end(&o), 0);
	cr_assert_str_eq(buf, "ok set 0=0x1f00 9=none 10=nodev 63=0x0 n=0\n");
	/* a line of 16 bytes does not fit in 16 (the NUL): found by fuzz_proto
	 * in the first form of the one-pass string writer */
	memset(&c, 0, sizeof(c));
	c.op = HIPSVM_OP_RING;
	c.gpu = 1;
	c.ring = HIPSVM_RING_SOFT;
	cr_assert_eq(hipsvm_proto_format(&c, buf, 16), -ENOSPC);
	cr_assert_eq(hipsvm_proto_format(&c, buf, 17), 16);
	cr_assert_str_eq(buf, "ring 1 soft off\n");
}

/* The number parser (rewritten without a division per digit) against
 * strtoull on random decimal and hex strings, overflow included. */
Test(proto, numbers_against_strtoull)
{
	const char *env = getenv("HIPSVM_TEST_SEED");
	unsigned seed = env ? (unsigned)strtoul(env, NULL, 0) : 20261201u, start = seed;
	int i;

	cr_log_info("seed %u", start);
	for (i = 0; i < 200000; i++) {
		char s[32];
		unsigned n = 1 + (unsigned)rand_r(&seed) % 22, k = 0, j;
		bool hex = rand_r(&seed) % 2;
		uint64_t got = 7, want;
		char *end;
		int rc;

		if (hex) {
			s[k++] = '0';
			s[k++] = rand_r(&seed) % 2 ? 'x' : 'X';
		}
		for (j = 0; j < n; j++)
			s[k++] = hex ? "0123456789abcdefABCDEF"[rand_r(&seed) % 22] :
				       (char)('0' + rand_r(&seed) % 10);
		if (rand_r(&seed) % 50 == 0)
			s[rand_r(&seed) % k] = "g-+ \n"[rand_r(&seed) % 5];
		s[k] = '\0';
		errno = 0;
		want = strtoull(s, &end, hex ? 16 : 10);
		rc = hipsvm_proto_u64(s, k, &got);
		if (errno == ERANGE || *end || end == s || s[0] == '-' || s[0] == '+' ||
		    s[0] == ' ' || s[0] == '\n' || (hex && (k == 2 || !strchr("0123456789abcdefABCDEF", s[2])))) {
			cr_assert_eq(rc, -EINVAL, "seed %u iter %d: \"%s\" accepted", start, i, s);
			cr_assert_eq(got, 7, "out touched on failure");
		} else {
			cr_assert_eq(rc, 0, "seed %u iter %d: \"%s\" refused", start, i, s);
			cr_assert_eq(got, want, "seed %u iter %d: \"%s\"", start, i, s);
		}
	}
}

/* The in-place reader of the unmap hook and the copying parser read the
 * same tokens from random reply lines. */
Test(proto, reply_iterator_matches_parser)
{
	static const char *const parts[] = { " ", "  ", "\t", "0=ok", "1=0x1f00", "12=none",
					     "3=ok/cleared", "n=4", "x", "=", "a=b=c", "ok",
					     "err", "EINVAL", "set", "\n", "\r" };
	const char *env = getenv("HIPSVM_TEST_SEED");
	unsigned seed = env ? (unsigned)strtoul(env, NULL, 0) : 20261201u, start = seed;
	static struct hipsvm_reply r;
	int i;

	cr_log_info("seed %u", start);
	for (i = 0; i < 50000; i++) {
		char line[256];
		size_t len = 0;
		unsigned n = (unsigned)rand_r(&seed) % 12, j, t = 0;
		struct hipsvm_reply_it it;
		struct hipsvm_span w, k, v;
		int rc, rc2, status;

		if (rand_r(&seed) % 4)
			len += (size_t)sprintf(line + len, rand_r(&seed) % 8 ? "ok drain" : "err ENODEV");
		for (j = 0; j < n; j++)
			len += (size_t)sprintf(line + len, "%s",
					       parts[rand_r(&seed) % (sizeof(parts) / sizeof(parts[0]))]);
		rc = hipsvm_proto_parse_reply(line, len ? len : 1, &r);
		rc2 = hipsvm_reply_open(line, len ? len : 1, &it, &w, &status);
		cr_assert_eq(rc < 0, rc2 < 0, "seed %u iter %d: \"%s\"", start, i, line);
		if (rc < 0)
			continue;
		cr_assert_eq(status, r.status, "seed %u iter %d", start, i);
		if (rc2 == 1)
			continue;
		cr_assert_eq(memcmp(w.p, r.op, strlen(r.op)), 0);
		while (hipsvm_reply_next(&it, &k, &v)) {
			cr_assert_lt(t, r.ntok, "seed %u iter %d: \"%s\"", start, i, line);
			/* the copies are cut to their fields */
			size_t kn = k.n < sizeof(r.tok[0].key) ? k.n : sizeof(r.tok[0].key) - 1;
			size_t vn = v.n < sizeof(r.tok[0].val) ? v.n : sizeof(r.tok[0].val) - 1;

			cr_assert_eq(kn, strlen(r.tok[t].key), "seed %u iter %d", start, i);
			cr_assert_eq(memcmp(k.p, r.tok[t].key, kn), 0);
			cr_assert_eq(vn, strlen(r.tok[t].val), "seed %u iter %d", start, i);
			cr_assert_eq(memcmp(v.p, r.tok[t].val, vn), 0);
			t++;
		}
		cr_assert_eq(t, r.ntok, "seed %u iter %d: \"%s\"", start, i, line);
	}
}
