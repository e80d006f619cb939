/* SPDX-License-Identifier: MIT */
/*
 * isa_golden.c - per-opcode golden tests of the gfx90a interpreter: each case
 * of isa_golden.txt, assembled by llvm-mc at build time, is decoded, checked
 * to be supported, run on one wave against plain memory, and its registers
 * and memory compared with the case's expectations (syntax: isa_golden.txt).
 * Also: every decoded encoding is one the decoder sizes exactly as llvm-mc
 * did, and a kernel descriptor sets up the SGPRs and v0 as documented.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/dispatch.h"
#include "isa/isa.h"
#include "isa/srd.h"

#include "isa_golden.h"

static uint8_t gmem[MEM_SIZE];

static int plain_access(struct isa_mem *m, const uint64_t *addr, unsigned n, unsigned size,
			bool write, void *buf)
{
	(void)m;
	for (unsigned i = 0; i < n; i++) {
		if (addr[i] < MEM_BASE || addr[i] + size > MEM_BASE + MEM_SIZE)
			return -ISA_E_FAULT;
		if (write)
			memcpy(gmem + (addr[i] - MEM_BASE), (uint8_t *)buf + (size_t)i * size, size);
		else
			memcpy((uint8_t *)buf + (size_t)i * size, gmem + (addr[i] - MEM_BASE), size);
	}
	return 0;
}

static int plain_atomic(struct isa_mem *m, const uint64_t *addr, unsigned n, unsigned size, int op,
			const uint64_t *src, const uint64_t *cmp, uint64_t *old)
{
	(void)m;
	for (unsigned i = 0; i < n; i++) {
		uint64_t v = 0, nv;

		if (addr[i] < MEM_BASE || addr[i] + size > MEM_BASE + MEM_SIZE)
			return -ISA_E_FAULT;
		memcpy(&v, gmem + (addr[i] - MEM_BASE), size);
		nv = op == ISA_AT_CMPSWAP ? (v == cmp[i] ? src[i] : v)
					  : isa_atomic_rmw(op, size, v, src[i]);
		memcpy(gmem + (addr[i] - MEM_BASE), &nv, size);
		old[i] = v;
	}
	return 0;
}

static struct isa_mem plain = { .access = plain_access, .atomic = plain_atomic };

/* ---- values ---- */

/* An expression over lane, left to right ("lane+1*4"), or a number. */
static bool eval(const char *s, unsigned lane, uint64_t *out, bool *wide)
{
	int64_t acc = 0;
	char op = '+';

	*wide = false;
	if (!strncmp(s, "f:", 2)) {
		float f = strtof(s + 2, NULL);
		uint32_t v;

		memcpy(&v, &f, 4);
		*out = v;
		return true;
	}
	if (!strncmp(s, "d:", 2)) {
		double d = strtod(s + 2, NULL);

		memcpy(out, &d, 8);
		*wide = true;
		return true;
	}
	if (!strncmp(s, "q:", 2)) {
		*out = strtoull(s + 2, NULL, 0);
		*wide = true;
		return true;
	}
	while (*s) {
		int64_t v;
		char *end;

		if (!strncmp(s, "lane", 4)) {
			v = lane;
			s += 4;
		} else {
			/* hex may use all 64 bits */
			v = !strncmp(s, "0x", 2) ? (int64_t)strtoull(s, &end, 0) : strtoll(s, &end, 0);
			if (end == s)
				return false;
			s = end;
		}
		switch (op) {
		case '+': acc += v; break;
		case '-': acc -= v; break;
		case '*': acc *= v; break;
		case '/': acc = v ? acc / v : 0; break;
		case '%': acc = v ? acc % v : 0; break;
		case '^': acc ^= v; break;
		case '&': acc &= v; break;
		case '|': acc |= v; break;
		default: return false;
		}
		if (!*s)
			break;
		op = *s++;
	}
	*out = (uint64_t)acc;
	return true;
}

/* ---- state ---- */

struct state {
	struct isa_wave w;
	uint8_t lds[1024];
	uint8_t scratch[ISA_LANES * 64];
};

/* One token "name=value" applied (set) or compared (!set). */
static void token(struct state *st, const struct golden *g, const char *tok, bool set, int err)
{
	char name[32], val[64];
	const char *eq = strchr(tok, '=');
	int lane = -1, last = -1, step = 1;
	unsigned idx;
	uint64_t v;
	bool wide;

	if (!strcmp(tok, "fault")) {
		cr_expect_eq(err, -ISA_E_FAULT, "%s (line %d): expected a fault, got %d", g->name,
			     g->line, err);
		return;
	}
	if (!strcmp(tok, "done")) {
		cr_expect_eq(st->w.state, W_DONE, "%s (line %d): not ended", g->name, g->line);
		return;
	}
	cr_assert(eq && eq - tok < (long)sizeof(name) && strlen(eq + 1) < sizeof(val),
		  "%s: bad token %s", g->name, tok);
	memcpy(name, tok, (size_t)(eq - tok));
	name[eq - tok] = 0;
	strcpy(val, eq + 1);
	/* @L: one lane; @A..B: lanes A to B; @A..B:S: every S-th of them */
	if (strchr(name, '@')) {
		char *at = strchr(name, '@'), *end;

		lane = (int)strtol(at + 1, &end, 10);
		last = lane;
		if (!strncmp(end, "..", 2))
			last = (int)strtol(end + 2, &end, 10);
		if (*end == ':')
			step = (int)strtol(end + 1, &end, 10);
		cr_assert(*end == 0 && lane >= 0 && last >= lane && last < ISA_LANES && step > 0,
			  "%s: bad lanes in %s", g->name, tok);
		*at = 0;
	}
	if (name[0] == 'v' && name[1] >= '0' && name[1] <= '9') {
		idx = (unsigned)atoi(name + 1);
		for (unsigned l = 0; l < ISA_LANES; l++) {
			if (lane >= 0 && ((int)l < lane || (int)l > last || ((int)l - lane) % step))
				continue;
			cr_assert(eval(val, l, &v, &wide), "%s: bad value %s", g->name, val);
			if (set) {
				st->w.v[idx][l] = (uint32_t)v;
				if (wide)
					st->w.v[idx + 1][l] = (uint32_t)(v >> 32);
			} else {
				uint64_t got = st->w.v[idx][l] |
					       (wide ? (uint64_t)st->w.v[idx + 1][l] << 32 : 0);
				uint64_t want = wide ? v : (uint32_t)v;

				cr_expect_eq(got, want, "%s (line %d): v%u lane %u = 0x%llx, want 0x%llx",
					     g->name, g->line, idx, l, (unsigned long long)got,
					     (unsigned long long)want);
			}
		}
		return;
	}
	cr_assert(eval(val, 0, &v, &wide), "%s: bad value %s", g->name, val);
	if (!strcmp(name, "exec") || !strcmp(name, "vcc")) {
		unsigned r = name[0] == 'e' ? ISA_EXEC_LO : ISA_VCC_LO;

		if (set) {
			isa_swrite64(&st->w, r, v);
		} else {
			uint64_t got = (uint64_t)st->w.s[r] | (uint64_t)st->w.s[r + 1] << 32;

			cr_expect_eq(got, v, "%s (line %d): %s = 0x%llx, want 0x%llx", g->name,
				     g->line, name, (unsigned long long)got, (unsigned long long)v);
		}
	} else if (!strcmp(name, "scc")) {
		if (set)
			st->w.scc = v != 0;
		else
			cr_expect_eq(st->w.scc, v != 0, "%s (line %d): scc", g->name, g->line);
	} else if (!strcmp(name, "m0")) {
		if (set)
			st->w.s[ISA_M0] = (uint32_t)v;
		else
			cr_expect_eq(st->w.s[ISA_M0], (uint32_t)v, "%s: m0", g->name);
	} else if (!strcmp(name, "pc")) {
		cr_expect_eq(st->w.pc, v, "%s (line %d): pc %llu", g->name, g->line,
			     (unsigned long long)st->w.pc);
	} else if (name[0] == 's') {
		idx = (unsigned)atoi(name + 1);
		if (set) {
			st->w.s[idx] = (uint32_t)v;
			if (wide)
				st->w.s[idx + 1] = (uint32_t)(v >> 32);
		} else {
			cr_expect_eq(st->w.s[idx], (uint32_t)v, "%s (line %d): s%u = 0x%x, want 0x%x",
				     g->name, g->line, idx, st->w.s[idx], (uint32_t)v);
		}
	} else if (!strncmp(name, "mem:", 4) || !strncmp(name, "lds:", 4)) {
		uint8_t *base = name[0] == 'm' ? gmem : st->lds;
		size_t off = strtoul(name + 4, NULL, 0), sz = wide ? 8 : 4;
		uint64_t got = 0;

		cr_assert(off + sz <= (name[0] == 'm' ? MEM_SIZE : sizeof(st->lds)));
		if (set) {
			memcpy(base + off, &v, sz);
		} else {
			memcpy(&got, base + off, sz);
			cr_expect_eq(got, wide ? v : (uint32_t)v, "%s (line %d): %s = 0x%llx, want 0x%llx",
				     g->name, g->line, name, (unsigned long long)got,
				     (unsigned long long)(wide ? v : (uint32_t)v));
		}
	} else {
		cr_assert_fail("%s: unknown name %s", g->name, name);
	}
}

static void each_token(struct state *st, const struct golden *g, const char *list, bool set,
		       int err)
{
	char *copy = strdup(list), *save = NULL;

	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
		token(st, g, t, set, err);
	free(copy);
}

static int run_case(const struct golden *g, struct state *st)
{
	struct isa_env env = {
		.mem = &plain,
		.lds = st->lds,
		.lds_size = sizeof(st->lds),
		.scratch = st->scratch,
		.scratch_lane = 64,
		.code = g->code,
		.code_size = g->len,
	};
	int err = 0;

	memset(gmem, 0, sizeof(gmem));
	memset(st, 0, sizeof(*st));
	isa_swrite64(&st->w, ISA_EXEC_LO, ~0ull);
	each_token(st, g, g->setup, true, 0);
	for (unsigned steps = 0; steps < 64 && st->w.state == W_RUN && st->w.pc < g->len; steps++) {
		err = isa_step(&st->w, &env);
		if (err)
			break;
	}
	return err;
}

Test(isa_golden, every_case)
{
	static struct state st;
	unsigned n = sizeof(golden_cases) / sizeof(golden_cases[0]);

	for (unsigned i = 0; i < n; i++) {
		const struct golden *g = &golden_cases[i];
		size_t pc = 0;
		unsigned count = 0;
		int err;

		if (!strncmp(g->name, "kernel:", 7))
			continue;

		/* the decoder sizes every instruction as llvm-mc encoded it, and
		 * the semantics say they implement it */
		while (pc < g->len) {
			struct isa_insn in;
			char d[48];

			cr_assert_eq(isa_decode(g->code + pc, g->len - pc, &in), 0, "%s: decode at +%zu",
				     g->name, pc);
			isa_describe(&in, d, sizeof(d));
			cr_expect(isa_supported(&in), "%s: %s not supported (%s)", g->name, d, g->asm_text);
			pc += 4u * in.words;
			count++;
		}
		cr_expect_eq(pc, g->len, "%s: decoded length", g->name);
		cr_expect_eq(count, g->ninsn, "%s: %u instructions decoded, %u assembled", g->name,
			     count, g->ninsn);
		err = run_case(g, &st);
		if (!strstr(g->expect, "fault"))
			cr_expect_eq(err, 0, "%s (line %d): error %d (%s)", g->name, g->line, err,
				     g->asm_text);
		each_token(&st, g, g->expect, false, err);
	}
	cr_log_info("%u golden cases", n);
}

/* An encoding the interpreter does not know is refused, not misread. */
/* DPP and SDWA extend only operations with 32- or 16-bit operands: a 64-bit
 * one decodes, is named with its suffix, and is not run (the kernel falls
 * back, naming it). */
Test(isa_golden, dpp_sdwa_on_64_bit_operands_are_refused)
{
	static const uint32_t words[][2] = {
		{ 0x7e0220fau, 0xff000000u },	/* v_cvt_f64_f32_dpp v[1:2], v0 quad_perm:[0,0,0,0] */
		{ 0x7e0220f9u, 0x06060600u },	/* v_cvt_f64_f32_sdwa */
		{ 0x7e0204fau, 0xff000000u },	/* v_readfirstlane_b32 with DPP */
	};
	static const char *const names[] = { "v_cvt_f64_f32_dpp", "v_cvt_f64_f32_sdwa",
					      "v_readfirstlane_b32_dpp" };

	for (unsigned i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		struct isa_insn in;
		char d[48];

		cr_assert_eq(isa_decode((const uint8_t *)words[i], sizeof(words[i]), &in), 0);
		cr_expect_eq(in.words, 2);
		isa_describe(&in, d, sizeof(d));
		cr_expect_str_eq(d, names[i]);
		cr_expect(!isa_supported(&in), "%s is claimed", d);
	}
}

Test(isa_golden, unknown_encodings_are_refused)
{
	static const uint32_t bad[] = {
		0xf0000000u,	/* MIMG */
		0xe8000000u,	/* MTBUF */
		0xc4000000u,	/* EXP */
		0x7e0202f9u, 0x07000000u,	/* VOP1 with SDWA: src0_sel 7 */
		0x7e0202f9u, 0x00000700u,	/* dst_sel 7 */
		0x7e0202f9u, 0x00001800u,	/* dst_unused 3 */
		0x7e0202fau, 0x00010000u,	/* VOP1 with DPP: dpp_ctrl 0x100 */
		0x7e0202fau, 0x00014400u,	/* dpp_ctrl 0x144 */
		0x7e0202fau,			/* a DPP dword cut off */
		0x2e0202fau, 0,			/* v_madmk_f32 with DPP */
	};
	/* pairs: an instruction word and the dword after it */
	static const unsigned start[] = { 0, 1, 2, 3, 5, 7, 9, 11, 13, 14 };
	uint8_t buf[16] = { 0 };

	for (unsigned i = 0; i < sizeof(start) / sizeof(start[0]); i++) {
		struct isa_insn in;
		unsigned n = i + 1 < sizeof(start) / sizeof(start[0]) ? start[i + 1] - start[i] : 1;
		size_t len = i == 8 ? 4 : sizeof(buf);	/* the cut-off one ends there */

		memset(buf, 0, sizeof(buf));
		memcpy(buf, &bad[start[i]], 4 * n);
		cr_expect_neq(isa_decode(buf, len, &in), 0, "0x%08x decoded", bad[start[i]]);
	}
}

/* s_sleep hands the turn to the workgroup's other waves (isa_golden.txt,
 * "kernel: sleep"). */
Test(isa_golden, s_sleep_lets_other_waves_run)
{
	const struct golden *g = NULL;
	uint8_t kd[64] = { 0 };
	uint32_t lds = 16;
	struct isa_kernel k;
	struct isa_dispatch d;
	char why[128];

	for (unsigned i = 0; i < sizeof(golden_cases) / sizeof(golden_cases[0]); i++)
		if (!strcmp(golden_cases[i].name, "kernel: sleep"))
			g = &golden_cases[i];
	cr_assert(g);
	memcpy(kd, &lds, 4);
	cr_assert_eq(isa_kernel_prepare(&k, kd, g->code, g->len, 0x1000, why, sizeof(why)), 0,
		     "%s", why);
	memset(&d, 0, sizeof(d));
	d.k = &k;
	d.grid[0] = 128;
	d.grid[1] = d.grid[2] = 1;
	d.block[0] = 128;
	d.block[1] = d.block[2] = 1;
	d.mem = &plain;
	d.threads = 1;
	cr_assert_eq(isa_dispatch_run(&d), 0);
	cr_expect_lt(d.insns, 100, "%llu wave-instructions", (unsigned long long)d.insns);
	isa_kernel_release(&k);
}

/* The wave set-up a kernel descriptor asks for, through isa_dispatch_run:
 * dispatch pointer then kernarg pointer, workgroup ids x and y after them,
 * v0 = x | y << 10 | z << 20, and exactly the work-items of the grid (a
 * partial EXEC in each group's last wave), on three threads. */
Test(isa_golden, dispatch_sets_up_sgprs_and_v0)
{
	const struct golden *g = NULL;
	uint8_t kd[64] = { 0 };
	struct isa_kernel k;
	struct isa_dispatch d;
	uint32_t rsrc2 = (4u << 1) | (1u << 7) | (1u << 8), count;
	uint16_t props = KCP_DISPATCH_PTR | KCP_KERNARG_PTR;
	uint64_t out = MEM_BASE + 0x100;
	static bool seen[3][2][7][10];
	char why[128];

	for (unsigned i = 0; i < sizeof(golden_cases) / sizeof(golden_cases[0]); i++)
		if (!strcmp(golden_cases[i].name, "kernel: ids"))
			g = &golden_cases[i];
	cr_assert(g);
	memcpy(kd + 52, &rsrc2, 4);
	memcpy(kd + 56, &props, 2);
	cr_assert_eq(isa_kernel_prepare(&k, kd, g->code, g->len, 0x1000, why, sizeof(why)), 0,
		     "%s", why);
	memset(gmem, 0, sizeof(gmem));
	memcpy(gmem, &out, 8);
	memset(&d, 0, sizeof(d));
	d.k = &k;
	d.grid[0] = 30;
	d.grid[1] = 14;
	d.grid[2] = 1;
	d.block[0] = 10;
	d.block[1] = 7;
	d.block[2] = 1;
	d.kernarg = MEM_BASE;
	d.packet = MEM_BASE + 0x40;
	d.mem = &plain;
	d.threads = 1;	/* the plain memory's atomics are not thread-safe */
	isa_dispatch_packet(gmem + 0x40, &d);
	cr_assert_eq(isa_dispatch_run(&d), 0);
	memcpy(&count, gmem + 0x100, 4);
	cr_assert_eq(count, 3 * 2 * 70, "%u work-items ran", count);
	cr_expect_eq(d.waves, 3 * 2 * 2);
	for (unsigned i = 0; i < count; i++) {
		uint32_t r[4], x, y, z;

		memcpy(r, gmem + 0x110 + 16 * i, 16);
		x = r[0] & 0x3ff;
		y = r[0] >> 10 & 0x3ff;
		z = r[0] >> 20;
		cr_assert(x < 10 && y < 7 && z == 0 && r[1] < 3 && r[2] < 2, "record %u: %x %u %u",
			  i, r[0], r[1], r[2]);
		cr_expect_eq(r[3], 10u | 7u << 16, "workgroup_size from the packet");
		cr_expect(!seen[r[1]][r[2]][y][x], "work-item ran twice");
		seen[r[1]][r[2]][y][x] = true;
	}
	isa_kernel_release(&k);
	/* A descriptor for wave32 code is refused. */
	props |= KCP_WAVE32;
	memcpy(kd + 56, &props, 2);
	cr_expect_neq(isa_kernel_prepare(&k, kd, g->code, g->len, 0x1000, why, sizeof(why)), 0);
}

/* Every row of the opcode table that is run has semantics: each handler
 * once on a scratch wave (operands in VGPR 0/SGPR 0.. pointing at plain
 * memory), through the decoded form the table binds, and it must not
 * answer "cannot run". */
Test(isa_golden, every_row_runs)
{
	static struct state st;
	static const uint8_t code[64];
	unsigned n = 0;

	for (unsigned r = 1; r < isa_nops; r++) {
		const struct isa_opdef *o = &isa_ops[r];
		struct isa_insn in;
		struct isa_env env = {
			.mem = &plain, .lds = st.lds, .lds_size = sizeof(st.lds),
			.scratch = st.scratch, .scratch_lane = 64,
			.code = code, .code_size = sizeof(code),
		};
		int err;

		cr_assert_eq(isa_row(o->fmt, o->op), r, "%s: the index misses its row", o->name);
		if (o->flags & O_HOSTCALL)
			continue;
		cr_assert(o->fn, "%s: no handler", o->name);
		memset(&in, 0, sizeof(in));
		in.fmt = o->fmt;
		in.op = o->op;
		in.row = (uint16_t)r;
		in.fn = o->fn;
		in.words = 1;
		for (unsigned i = 0; i < 3; i++)
			in.sand[i] = ~0u;
		memset(&st, 0, sizeof(st));
		memset(gmem, 0, sizeof(gmem));
		isa_swrite64(&st.w, ISA_EXEC_LO, ~0ull);
		st.w.s[0] = MEM_BASE;	/* SMEM base, FLAT saddr */
		st.w.s[4] = (uint32_t)ISA_SCRATCH_BASE;	/* a scratch descriptor */
		st.w.s[5] = (uint32_t)(ISA_SCRATCH_BASE >> 32);
		for (unsigned l = 0; l < ISA_LANES; l++) {
			st.w.v[0][l] = 0;
			st.w.v[2][l] = MEM_BASE + 64 * l;	/* v[2:3]: addresses */
		}
		in.src[0] = 256;
		in.src[1] = 256;
		in.src[2] = 256;
		in.dst = in.fmt == F_VOP3P ? 256 + 8 : 8;
		in.sdst = 10;
		in.addr = in.fmt == F_FLAT ? 2 : 0;
		in.data = 4;
		in.data1 = 5;
		in.saddr = 0x7f;
		in.seg = 2;
		in.srsrc = 4;
		in.soffset = in.fmt == F_SMEM ? 0xffff : 128;
		if (in.fmt == F_MIMG || o->fn == isa_h_mubuf_format) {
			/* a texture's descriptors (srd.h) in s[8:15], a sampler (all
			 * zeros: normalized, wrap, point) in s[16:19]: a 4x4 float
			 * image, or a buffer of 16 floats, at MEM_BASE */
			bool img = in.fmt == F_MIMG;

			st.w.s[8] = img ? MEM_BASE >> 8 : MEM_BASE;
			st.w.s[9] = img ? srd_put(SRD_FMT_32, 20, 6) | srd_put(SRD_NUM_FLOAT, 26, 4)
					: srd_put(4, 16, 14);
			st.w.s[10] = img ? 3u | 3u << 14 : 16u;
			st.w.s[11] = img ? SRD_SEL_X | srd_put(SRD_TYPE_2D, 28, 4)
					 : SRD_SEL_X | srd_put(SRD_NUM_FLOAT, 12, 3) |
					   srd_put(SRD_FMT_32, 15, 4);
			st.w.s[12] = img ? srd_put(3, 13, 16) : 0;
			in.srsrc = 8;
			in.saddr = 16;
			in.dmask = 1;
			in.addr = 0;
		}
		err = isa_exec_insn(&st.w, &env, &in);
		cr_expect(err != -ISA_E_DECODE && err != -ISA_E_FAULT, "%s: error %d (%s)", o->name,
			  err, isa_strerror(err));
		n++;
	}
	cr_log_info("%u rows run", n);
}

/* The instructions of a golden case, decoded, with the mnemonics llvm-mc
 * assembled them from. */
static void each_insn(const struct golden *g, void (*fn)(const struct golden *g,
							   const struct isa_insn *in, const char *mn, void *arg),
		      void *arg)
{
	char *copy = strdup(g->asm_text), *save = NULL, *line;
	size_t pc = 0;

	line = strtok_r(copy, "|", &save);
	while (pc < g->len && line) {
		struct isa_insn in;
		char mn[64];

		while (*line == ' ')
			line++;
		sscanf(line, "%63s", mn);
		if (isa_decode(g->code + pc, g->len - pc, &in))
			break;
		fn(g, &in, mn, arg);
		pc += 4u * in.words;
		line = strtok_r(NULL, "|", &save);
	}
	free(copy);
}

/* The table's mnemonics are llvm-mc's (the encoding suffixes aside). */
static void check_name(const struct golden *g, const struct isa_insn *in, const char *mn, void *arg)
{
	char want[64], got[64];
	size_t n;

	(void)arg;
	snprintf(want, sizeof(want), "%s", mn);
	n = strlen(want);
	if (n > 4 && (!strcmp(want + n - 4, "_e32") || !strcmp(want + n - 4, "_e64")))
		want[n - 4] = 0;
	isa_describe(in, got, sizeof(got));
	cr_expect_str_eq(got, want, "%s (line %d): decoded as %s", g->name, g->line, got);
}

Test(isa_golden, mnemonics_are_llvm_mc_s)
{
	for (unsigned i = 0; i < sizeof(golden_cases) / sizeof(golden_cases[0]); i++)
		each_insn(&golden_cases[i], check_name, NULL);
}

static void mark_row(const struct golden *g, const struct isa_insn *in, const char *mn, void *arg)
{
	(void)g;
	(void)mn;
	((bool *)arg)[in->row] = true;
}

/* Every row has a golden case, except those in isa_golden_gaps.txt; a row
 * that gains one must leave that list (so the list is exactly the gap). */
Test(isa_golden, every_row_has_a_golden_case)
{
	bool *seen = calloc(isa_nops, sizeof(*seen));
	unsigned gaps = 0, missing = 0;

	cr_assert(seen);
	for (unsigned i = 0; i < sizeof(golden_cases) / sizeof(golden_cases[0]); i++)
		each_insn(&golden_cases[i], mark_row, seen);
	for (unsigned r = 1; r < isa_nops; r++) {
		bool listed = false;

		for (unsigned k = 0; k < sizeof(golden_gaps) / sizeof(golden_gaps[0]); k++)
			if (!strcmp(golden_gaps[k], isa_ops[r].name))
				listed = true;
		if (seen[r])
			cr_expect(!listed, "%s has a golden case now: take it off isa_golden_gaps.txt",
				  isa_ops[r].name);
		else if (!listed)
			cr_expect_fail("%s has no golden case (and is not in isa_golden_gaps.txt)",
				       isa_ops[r].name);
		gaps += !seen[r];
		missing += !seen[r] && !listed;
	}
	for (unsigned k = 0; k < sizeof(golden_gaps) / sizeof(golden_gaps[0]); k++) {
		bool row = !golden_gaps[k][0];	/* the list's end */

		for (unsigned r = 1; r < isa_nops; r++)
			row |= !strcmp(golden_gaps[k], isa_ops[r].name);
		cr_expect(row, "isa_golden_gaps.txt: %s is not a row of ops.def", golden_gaps[k]);
	}
	cr_log_info("%u of %u rows without a golden case", gaps, isa_nops - 1);
	free(seen);
}

/* docs/simulator.md states the count of what is interpreted, per family:
 * it must be the table's (rows that run and are not refused at prepare). */
Test(isa_golden, documented_count_is_the_table_s)
{
	static const char *const fams[] = { "SOP1", "SOP2", "SOPC", "SOPK", "SOPP", "SMEM", "VALU",
					    "VOP3P", "FLAT/GLOBAL/SCRATCH", "MUBUF", "DS", "MIMG" };
	static const uint8_t fmts[] = { F_SOP1, F_SOP2, F_SOPC, F_SOPK, F_SOPP, F_SMEM, F_VOP3,
					F_VOP3P, F_FLAT, F_MUBUF, F_DS, F_MIMG };
	unsigned count[12] = { 0 }, total = 0, cmps = 0;
	const char *path = getenv("ISA_DOCS");
	char want[512], *text;
	size_t len = 0;
	int o;
	FILE *f;

	cr_assert(path, "ISA_DOCS (docs/simulator.md) not set");
	f = fopen(path, "r");
	cr_assert(f, "%s", path);
	text = calloc(1, 1 << 20);
	cr_assert(text);
	len = fread(text, 1, (1 << 20) - 1, f);
	fclose(f);
	/* line breaks and indentation are the writer's: compare words */
	for (size_t i = 0, j = 0; i <= len; i++) {
		char c = i < len ? text[i] : 0;

		if (c == '\n' || c == '\t')
			c = ' ';
		if (c == ' ' && j && text[j - 1] == ' ')
			continue;
		text[j++] = c;
	}
	for (unsigned r = 1; r < isa_nops; r++) {
		const struct isa_opdef *op = &isa_ops[r];

		if (!op->fn || (op->flags & O_HOSTCALL))
			continue;
		for (unsigned i = 0; i < 12; i++)
			count[i] += op->fmt == fmts[i];
		cmps += op->fmt == F_VOP3 && op->op < 0x100;
		total++;
	}
	o = snprintf(want, sizeof(want), "**What is interpreted**: %u opcodes, counted per encoding "
		     "family with the VOP1, VOP2 and VOPC forms counted once with their VOP3 form (", total);
	for (unsigned i = 0; i < 12; i++) {
		o += snprintf(want + o, sizeof(want) - (size_t)o, "%s%s %u", i ? ", " : "", fams[i], count[i]);
		if (fmts[i] == F_VOP3)
			o += snprintf(want + o, sizeof(want) - (size_t)o, ", of which %u are comparisons", cmps);
	}
	snprintf(want + o, sizeof(want) - (size_t)o, ").");
	cr_expect(strstr(text, want), "docs/simulator.md should say:\n%s", want);
	free(text);
}
