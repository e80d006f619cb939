/* SPDX-License-Identifier: MIT */
/*
 * image.c - the texture unit: image_sample and image_load (MIMG), and the
 * typed buffer loads (buffer_load_format_*) that tex1Dfetch compiles to.
 *
 * The descriptors are the gfx9 ones of srd.h, read from the instruction's
 * SGPRs. The texels are read from global memory through the memory
 * backend, every tap of every lane in one call, so a texture over memory
 * that is not mapped faults as any other access does.
 *
 * Sampling as the hardware does it: normalized coordinates are scaled by
 * the image's size in fp32; the texel coordinate is then fixed point with
 * 8 fractional bits, rounded to nearest (why ockl floors normalized
 * coordinates itself before a point sample); point filtering takes the
 * texel the coordinate is in, bilinear the two (four, eight in 3D) around
 * coordinate - 0.5 with weights of the 8-bit fraction; each tap goes
 * through the address mode on its own (wrap, mirror, clamp to the last
 * texel, mirror once, border: transparent black); an array's layer is the
 * coordinate rounded to nearest even and clamped. Channels are read per
 * the data and number formats (unorm, snorm, uint, sint, float, sRGB with
 * alpha linear), then placed by the descriptor's DST_SEL and written to
 * the components DMASK selects. What the runtime never programs and
 * filtering of integer formats are refused (-ISA_E_DECODE: "an
 * instruction the interpreter cannot run"), never guessed.
 */
#include "operand.h"
#include "srd.h"

#include <math.h>
#include <string.h>

/* An element format: channels, bits per channel, NUM_FORMAT. */
struct efmt {
	unsigned ch, bits, num;
};

static bool efmt_of(unsigned dfmt, unsigned num, struct efmt *e)
{
	switch (dfmt) {
	case SRD_FMT_8: *e = (struct efmt){ 1, 8, num }; break;
	case SRD_FMT_16: *e = (struct efmt){ 1, 16, num }; break;
	case SRD_FMT_8_8: *e = (struct efmt){ 2, 8, num }; break;
	case SRD_FMT_32: *e = (struct efmt){ 1, 32, num }; break;
	case SRD_FMT_16_16: *e = (struct efmt){ 2, 16, num }; break;
	case SRD_FMT_8_8_8_8: *e = (struct efmt){ 4, 8, num }; break;
	case SRD_FMT_32_32: *e = (struct efmt){ 2, 32, num }; break;
	case SRD_FMT_16_16_16_16: *e = (struct efmt){ 4, 16, num }; break;
	case SRD_FMT_32_32_32_32: *e = (struct efmt){ 4, 32, num }; break;
	default: return false;
	}
	switch (num) {
	case SRD_NUM_UNORM:
	case SRD_NUM_SNORM:
		return e->bits < 32;
	case SRD_NUM_UINT:
	case SRD_NUM_SINT:
		return true;
	case SRD_NUM_FLOAT:
		return e->bits > 8;
	case SRD_NUM_SRGB:
		return e->bits == 8;
	}
	return false;
}

static bool is_int(const struct efmt *e)
{
	return e->num == SRD_NUM_UINT || e->num == SRD_NUM_SINT;
}

static float srgb_to_linear(float c)
{
	return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

/* Channel c of the element at p: float bits for the float and normalized
 * formats, the integer for uint/sint. A channel the format lacks reads 0,
 * alpha 1. */
static uint32_t channel(const struct efmt *e, const uint8_t *p, unsigned c)
{
	uint32_t raw = 0;
	unsigned n = e->bits / 8;

	if (c >= e->ch)
		return c == 3 ? (is_int(e) ? 1u : u32(1.0f)) : 0u;
	memcpy(&raw, p + c * n, n);
	switch (e->num) {
	case SRD_NUM_UNORM:
		return u32((float)raw / (float)((1u << e->bits) - 1u));
	case SRD_NUM_SRGB: {
		float f = (float)raw / 255.0f;

		return u32(c < 3 ? srgb_to_linear(f) : f);
	}
	case SRD_NUM_SNORM: {
		int32_t s = (int32_t)(raw << (32 - e->bits)) >> (32 - e->bits);
		float f = (float)s / (float)((1u << (e->bits - 1)) - 1u);

		return u32(f < -1.0f ? -1.0f : f);
	}
	case SRD_NUM_UINT:
		return raw;
	case SRD_NUM_SINT:
		return e->bits == 32 ? raw : (uint32_t)((int32_t)(raw << (32 - e->bits)) >> (32 - e->bits));
	default:	/* FLOAT */
		return e->bits == 16 ? u32(isa_h2f(raw)) : raw;
	}
}

/* DST_SEL's constants: 0, 1 (an integer 1 for integer formats); the
 * reserved selects 2 and 3 read 0. */
static uint32_t pick(unsigned sel, bool integer)
{
	return sel == SRD_SEL_1 ? (integer ? 1u : u32(1.0f)) : 0u;
}

/* The components DMASK asks for, in order, to vdata.. of lane l. */
static void put(struct isa_wave *w, const struct isa_insn *in, unsigned l, const uint32_t *r)
{
	unsigned k = 0;

	for (unsigned c = 0; c < 4; c++)
		if (in->dmask >> c & 1)
			w->v[(in->data + k++) & 0xff][l] = r[c];
}

/* ---- addressing ---- */

/* An integer texel index through an address mode; -1: the border. */
static int64_t address(int64_t i, int64_t n, unsigned mode)
{
	int64_t j;

	switch (mode) {
	case SRD_CLAMP_WRAP:
		j = i % n;
		return j < 0 ? j + n : j;
	case SRD_CLAMP_MIRROR:
		j = i % (2 * n);
		j = j < 0 ? j + 2 * n : j;
		return j < n ? j : 2 * n - 1 - j;
	case SRD_CLAMP_LAST_TEXEL:
		return i < 0 ? 0 : i >= n ? n - 1 : i;
	case SRD_CLAMP_MIRROR_ONCE_LAST_TEXEL:
		j = i < 0 ? -1 - i : i;
		return j >= n ? n - 1 : j;
	case SRD_CLAMP_BORDER:
		return i < 0 || i >= n ? -1 : i;
	}
	return -2;	/* not programmed by the runtime: refused by the caller */
}

static bool mode_ok(unsigned mode)
{
	return mode <= SRD_CLAMP_MIRROR_ONCE_LAST_TEXEL || mode == SRD_CLAMP_BORDER;
}

/* A coordinate in texels as fixed point with 8 fractional bits, rounded to
 * nearest; NaN reads as 0 and the range is bounded. */
static int64_t fixed8(float u)
{
	double t = (double)u * 256.0;

	if (t != t)
		return 0;
	if (t > 1e15)
		t = 1e15;
	if (t < -1e15)
		t = -1e15;
	return (int64_t)floor(t + 0.5);
}

/* The layer of an array coordinate: round to nearest even, clamped. */
static int64_t layer(float c, int64_t n)
{
	float r = c != c ? 0.0f : rintf(c);

	return r < 0 ? 0 : r >= (float)n ? n - 1 : (int64_t)r;
}

/* ---- the image ---- */

struct img {
	uint64_t base;
	struct efmt e;
	unsigned type, dims;		/* dims: filtered dimensions (x, y, z) */
	int64_t size[3], pitch, layers;
	unsigned sel[4];
	unsigned bytes;
};

static bool image_of(const uint32_t *r, struct img *m)
{
	if (!efmt_of(SRD_IMG_DFMT(r), SRD_IMG_NFMT(r), &m->e) || SRD_IMG_SWMODE(r) != 0)
		return false;	/* the simulator's images are linear */
	m->base = SRD_IMG_BASE(r);
	m->type = SRD_IMG_TYPE(r);
	m->size[0] = SRD_IMG_WIDTH(r);
	m->size[1] = SRD_IMG_HEIGHT(r);
	m->size[2] = 1;
	m->layers = 1;
	m->pitch = SRD_IMG_PITCH(r);
	m->bytes = m->e.ch * m->e.bits / 8;
	switch (m->type) {
	case SRD_TYPE_1D: m->dims = 1; m->size[1] = 1; break;
	case SRD_TYPE_2D: m->dims = 2; break;
	case SRD_TYPE_3D: m->dims = 3; m->size[2] = SRD_IMG_DEPTH(r); break;
	case SRD_TYPE_1D_ARRAY: m->dims = 1; m->size[1] = 1; m->layers = SRD_IMG_DEPTH(r); break;
	case SRD_TYPE_2D_ARRAY: m->dims = 2; m->layers = SRD_IMG_DEPTH(r); break;
	default: return false;
	}
	for (unsigned c = 0; c < 4; c++)
		m->sel[c] = SRD_IMG_SEL(r, c);
	return true;
}

static uint64_t texel_addr(const struct img *m, int64_t x, int64_t y, int64_t z)
{
	return m->base + (uint64_t)(((z * m->size[1] + y) * m->pitch + x) * m->bytes);
}

/* Up to eight taps a lane, every active lane. */
#define TAPS 8

struct taps {
	uint64_t at[ISA_LANES][TAPS];		/* each lane's taps, as made */
	uint64_t addr[ISA_LANES * TAPS];	/* the fetch list, tap by tap */
	uint8_t data[ISA_LANES * TAPS * 16];
	int16_t slot[ISA_LANES][TAPS];		/* index into addr, -1: border */
	float wt[ISA_LANES][TAPS];
	unsigned ntap[ISA_LANES];
	unsigned n;
};

static void tap(struct taps *t, unsigned l, uint64_t a, bool border, float wt)
{
	unsigned k = t->ntap[l]++;

	t->wt[l][k] = wt;
	t->slot[l][k] = border ? -1 : 0;
	t->at[l][k] = a;
}

/* The fetch list, tap-major: the lanes' first taps, then their second...
 * so that a wave's worth of addresses is one tap of neighbouring lanes,
 * usually consecutive texels, which the backend copies at once. */
static void order(struct taps *t, uint64_t ex)
{
	t->n = 0;
	for (unsigned k = 0; k < TAPS; k++) {
		bool any = false;

		LANES(ex) {
			if (k >= t->ntap[l])
				continue;
			any = true;
			if (t->slot[l][k] >= 0) {
				t->slot[l][k] = (int16_t)t->n;
				t->addr[t->n++] = t->at[l][k];
			}
		}
		if (!any)
			break;
	}
}

/* The taps' texels, a wave's worth of addresses a call (the backend's
 * unit); a fault in any is the instruction's. */
static int fetch(const struct isa_env *env, struct taps *t, unsigned bytes)
{
	for (unsigned i = 0; i < t->n; i += ISA_LANES) {
		unsigned k = t->n - i < ISA_LANES ? t->n - i : ISA_LANES;

		if (env->mem->access(env->mem, t->addr + i, k, bytes, false,
				     t->data + (size_t)i * bytes))
			return -ISA_E_FAULT;
	}
	return 0;
}

/* Component sel (a DST_SEL) of tap k: a channel of the texel, a constant,
 * or the border's transparent black. */
static uint32_t comp(const struct img *m, const struct taps *t, unsigned l, unsigned k,
		     unsigned sel)
{
	if (t->slot[l][k] < 0)
		return 0;
	if (sel < SRD_SEL_X)
		return pick(sel, is_int(&m->e));
	return channel(&m->e, t->data + (size_t)t->slot[l][k] * m->bytes, sel - SRD_SEL_X);
}

/* The components of mask (DMASK's, or the first n) of the lane: its one
 * tap, or the weighted sum of its taps; each only read if asked for. */
static void resolve(const struct img *m, const struct taps *t, unsigned l, unsigned mask,
		    uint32_t *out)
{
	for (unsigned c = 0; c < 4; c++) {
		unsigned sel = m->sel[c];
		float acc = 0;

		out[c] = 0;
		if (!(mask >> c & 1))
			continue;
		if (t->ntap[l] == 1) {
			out[c] = comp(m, t, l, 0, sel);
			continue;
		}
		for (unsigned k = 0; k < t->ntap[l]; k++)
			if (t->slot[l][k] >= 0)
				acc += t->wt[l][k] * f32(comp(m, t, l, k, sel));
		out[c] = u32(acc);
	}
}

/* The taps every lane of ex asked for, fetched in one order, then each
 * lane's texel(s) resolved into its destination VGPRs. */
static int answer(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in,
		  const struct img *m, struct taps *t, uint64_t ex)
{
	order(t, ex);
	if (fetch(env, t, m->bytes))
		return -ISA_E_FAULT;
	LANES(ex) {
		uint32_t r[4];

		resolve(m, t, (unsigned)l, in->dmask, r);
		put(w, in, (unsigned)l, r);
	}
	return 0;
}

/* image_sample: the coordinates in vaddr.. as floats (x, y, z or the
 * layer, as the type has them). */
static int sample(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in,
		  const struct img *m, struct taps *t)
{
	const uint32_t *s = &w->s[in->saddr & 0x7f];
	bool unnorm = SRD_SAMP_UNNORM(s) || in->unorm;
	unsigned mag = SRD_SAMP_MAG(s), min = SRD_SAMP_MIN(s), mode[3];
	bool linear = mag == SRD_FILTER_BILINEAR;
	uint64_t ex = isa_exec(w);

	if (mag > SRD_FILTER_BILINEAR || mag != min || (linear && is_int(&m->e)))
		return -ISA_E_DECODE;	/* anisotropic, mixed, or filtered integers */
	for (unsigned d = 0; d < 3; d++) {
		mode[d] = SRD_SAMP_CLAMP(s, d);
		if (!mode_ok(mode[d]))
			return -ISA_E_DECODE;
	}
	LANES(ex) {
		int64_t i0[3] = { 0, 0, 0 }, fr[3] = { 0, 0, 0 }, z = 0;
		unsigned d;

		for (d = 0; d < m->dims; d++) {
			float c = f32(w->v[(in->addr + d) & 0xff][l]);
			int64_t q = fixed8(unnorm ? c : c * (float)m->size[d]);

			if (linear)
				q -= 128;	/* half a texel */
			i0[d] = q >> 8;
			fr[d] = q & 255;
		}
		if (m->type == SRD_TYPE_1D_ARRAY || m->type == SRD_TYPE_2D_ARRAY)
			z = layer(f32(w->v[(in->addr + m->dims) & 0xff][l]), m->layers);
		/* each dimension's two neighbours through its address mode and
		 * their weights, once; a tap combines one of each */
		int64_t at[3][2] = { { 0, 0 }, { 0, 0 }, { 0, 0 } };
		float wd[3][2] = { { 1, 0 }, { 1, 0 }, { 1, 0 } };

		for (d = 0; d < m->dims; d++) {
			at[d][0] = address(i0[d], m->size[d], mode[d]);
			if (linear) {
				at[d][1] = address(i0[d] + 1, m->size[d], mode[d]);
				wd[d][0] = (float)(256 - fr[d]) / 256.0f;
				wd[d][1] = (float)fr[d] / 256.0f;
			}
		}
		t->ntap[l] = 0;
		for (unsigned k = 0; k < (linear ? 1u << m->dims : 1u); k++) {
			unsigned h0 = k & 1, h1 = k >> 1 & 1, h2 = k >> 2 & 1;
			int64_t x = at[0][h0], y = at[1][h1], zz = m->dims == 3 ? at[2][h2] : z;
			bool border = x < 0 || y < 0 || zz < 0;

			tap(t, (unsigned)l, border ? 0 : texel_addr(m, x, y, zz), border,
			    wd[0][h0] * wd[1][h1] * wd[2][h2]);
		}
	}
	return answer(w, env, in, m, t, ex);
}

/* image_load: unsigned texel coordinates, no sampler; outside the image
 * every component reads 0. */
static int load(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in,
		const struct img *m, struct taps *t)
{
	uint64_t ex = isa_exec(w);
	bool arrayed = m->type == SRD_TYPE_1D_ARRAY || m->type == SRD_TYPE_2D_ARRAY;

	LANES(ex) {
		int64_t at[3] = { 0, 0, 0 }, n[3] = { m->size[0], m->size[1], m->size[2] };
		bool out = false;

		if (arrayed)
			n[m->dims] = m->layers;
		for (unsigned d = 0; d < m->dims + arrayed; d++) {
			at[d] = w->v[(in->addr + d) & 0xff][l];
			out |= at[d] >= n[d];
		}
		if (arrayed && m->dims == 1) {
			at[2] = at[1];	/* the layer is the slice */
			at[1] = 0;
		}
		t->ntap[l] = 0;
		tap(t, (unsigned)l, out ? 0 : texel_addr(m, at[0], at[1], at[2]), out, 1.0f);
	}
	return answer(w, env, in, m, t, ex);
}

int isa_h_image(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	struct taps t;
	struct img m;

	if (!in->dmask || !image_of(&w->s[in->srsrc & 0x7f], &m))
		return -ISA_E_DECODE;
	t.n = 0;
	if (in->op == 0x20)
		return sample(w, env, in, &m, &t);
	return load(w, env, in, &m, &t);
}

/* buffer_load_format_x..xyzw: the element at base + index * stride +
 * offset, converted per the descriptor's formats and DST_SEL; the first
 * 1..4 components written. An index past NUM_RECORDS reads 0 (the range
 * check of a strided buffer: index against the records). */
int isa_h_mubuf_format(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	const uint32_t *r = &w->s[in->srsrc & 0x7f];
	uint64_t ex = isa_exec(w), base = SRD_BUF_BASE(r);
	uint32_t stride = SRD_BUF_STRIDE(r), records = r[2], soff = isa_sreg32(w, in, in->soffset);
	unsigned ncomp = (in->op & 3) + 1, bytes;
	struct img m;
	struct taps t;

	if (!efmt_of(SRD_BUF_DFMT(r), SRD_BUF_NFMT(r), &m.e) || m.e.num == SRD_NUM_SRGB || !stride)
		return -ISA_E_DECODE;
	bytes = m.e.ch * m.e.bits / 8;
	m.bytes = bytes;
	for (unsigned c = 0; c < 4; c++)
		m.sel[c] = SRD_BUF_SEL(r, c);
	t.n = 0;
	LANES(ex) {
		uint64_t off, idx;

		isa_mubuf_lane(w, in, (unsigned)l, &idx, &off);
		t.ntap[l] = 0;
		tap(&t, (unsigned)l, base + idx * stride + off + soff, idx >= records, 1.0f);
	}
	order(&t, ex);
	if (fetch(env, &t, bytes))
		return -ISA_E_FAULT;
	LANES(ex) {
		uint32_t out[4];

		resolve(&m, &t, (unsigned)l, (1u << ncomp) - 1, out);
		for (unsigned c = 0; c < ncomp; c++)
			w->v[(in->data + c) & 0xff][l] = out[c];
	}
	return 0;
}
