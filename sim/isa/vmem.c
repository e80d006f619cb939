/* SPDX-License-Identifier: MIT */
/*
 * vmem.c - vector memory: FLAT/GLOBAL/SCRATCH, MUBUF, and LDS (DS).
 *
 * Global accesses of one instruction go to the memory backend in one call
 * (the active lanes' addresses in lane order), so that the backend can walk
 * each page once and copy in one guarded system call. Atomics go one lane
 * at a time, in lane order, as host atomics (flat atomics on LDS or
 * scratch: plain read-modify-writes, the workgroup's waves being on one
 * thread). Private memory (scratch) and
 * LDS are the interpreter's own: an access outside them reads 0 and a
 * write is dropped, as the hardware's range checks do.
 */
#include "operand.h"

#include <math.h>
#include <string.h>

struct vbuf {
	uint64_t addr[ISA_LANES];
	uint8_t data[ISA_LANES * 16];
};

static uint64_t vreg64(const struct isa_wave *w, unsigned r, unsigned l)
{
	return w->v[r & 0xff][l] | (uint64_t)w->v[(r + 1) & 0xff][l] << 32;
}

/* ---- gathers ----
 *
 * 32-bit loads from 64 scattered addresses: on x86-64 with AVX2 the
 * hardware's gathers (8 or 4 lanes an instruction), chosen per call from
 * the CPU's features (ISA_HAVE_AVX2); otherwise a plain loop. The caller
 * has checked every address; a gather reads exactly the bytes the loop
 * would. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target("avx2"))) static void gather_u64_avx2(uint8_t *out, const uint64_t *addr,
							     unsigned n)
{
	unsigned i = 0;

	for (; i + 4 <= n; i += 4) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(addr + i));

		_mm_storeu_si128((__m128i *)(void *)(out + 4 * i),
				 _mm256_i64gather_epi32((const int *)0, a, 1));
	}
	for (; i < n; i++)
		memcpy(out + 4 * i, (const void *)(uintptr_t)addr[i], 4);
}

__attribute__((target("avx2"))) static void gather_off_avx2(uint32_t *out, const uint8_t *base,
							     const uint32_t *off)
{
	ISA_UNROLL
	for (unsigned l = 0; l < ISA_LANES; l += 8) {
		__m256i o = _mm256_loadu_si256((const __m256i *)(off + l));

		_mm256_storeu_si256((__m256i *)(out + l),
				    _mm256_i32gather_epi32((const int *)base, o, 1));
	}
}

/* A flat or global instruction's 64 addresses from a VGPR pair plus the
 * offset, eight lanes a step: the 64-bit add in 32-bit halves (the low
 * dword's carry an unsigned compare), the halves interleaved into the
 * addresses, and the high dwords tested against the LDS and private
 * apertures on the way: true when a lane lies in one. The plain loops
 * built the addresses and tested the apertures in two passes, about 230
 * host instructions for a wave. */
__attribute__((target("avx2"))) static bool flat_addrs_avx2(uint64_t *addr, const uint32_t *lo,
							     const uint32_t *hi, uint64_t off)
{
	const __m256i s = _mm256_set1_epi32((int)0x80000000u);
	const __m256i olo = _mm256_set1_epi32((int)(uint32_t)off);
	const __m256i ohi = _mm256_set1_epi32((int)(uint32_t)(off >> 32));
	const __m256i priv = _mm256_set1_epi32((int)ISA_PRIVATE_HI);
	const __m256i shared = _mm256_set1_epi32((int)ISA_SHARED_HI);
	__m256i any = _mm256_setzero_si256();

	ISA_UNROLL
	for (unsigned c = 0; c < ISA_LANES; c += 8) {
		__m256i l = _mm256_loadu_si256((const __m256i *)(const void *)(lo + c));
		__m256i h = _mm256_loadu_si256((const __m256i *)(const void *)(hi + c));
		__m256i nl = _mm256_add_epi32(l, olo);
		/* -1 where the low add carried */
		__m256i cy = _mm256_cmpgt_epi32(_mm256_xor_si256(l, s), _mm256_xor_si256(nl, s));
		__m256i nh = _mm256_sub_epi32(_mm256_add_epi32(h, ohi), cy);
		__m256i a = _mm256_unpacklo_epi32(nl, nh), b = _mm256_unpackhi_epi32(nl, nh);

		any = _mm256_or_si256(any, _mm256_or_si256(_mm256_cmpeq_epi32(nh, priv),
							   _mm256_cmpeq_epi32(nh, shared)));
		_mm256_storeu_si256((__m256i *)(void *)(addr + c), _mm256_permute2x128_si256(a, b, 0x20));
		_mm256_storeu_si256((__m256i *)(void *)(addr + c + 4),
				    _mm256_permute2x128_si256(a, b, 0x31));
	}
	return !_mm256_testz_si256(any, any);
}
#else
#define gather_u64_avx2(o, a, n) ((void)0)
#define gather_off_avx2(o, b, f) ((void)0)
#define flat_addrs_avx2(a, l, h, o) ((void)(a), (void)(l), (void)(h), (void)(o), false)
#endif

void isa_gather32(void *buf, const uint64_t *addr, unsigned n)
{
	uint8_t *out = buf;

	if (ISA_HAVE_AVX2()) {
		gather_u64_avx2(out, addr, n);
		return;
	}
	for (unsigned i = 0; i < n; i++)
		memcpy(out + 4 * i, (const void *)(uintptr_t)addr[i], 4);
}

/* out[l] = the 32 bits at base + off[l], every lane (the LDS reads below:
 * offsets below 2^31, checked) */
static void gather_off(uint32_t *out, const uint8_t *base, const uint32_t *off)
{
	if (ISA_HAVE_AVX2()) {
		gather_off_avx2(out, base, off);
		return;
	}
	for (unsigned l = 0; l < ISA_LANES; l++)
		memcpy(&out[l], base + off[l], 4);
}

/* Non-zero when some lane's value differs from lane 0's: four lanes a
 * vector (GCC's vector extension; -O2 leaves the plain loop scalar). */
typedef uint64_t v4u64_t __attribute__((vector_size(32)));
typedef uint32_t v8u32_t __attribute__((vector_size(32)));

static inline uint64_t differ64(const uint64_t *a)
{
	v4u64_t b = { a[0], a[0], a[0], a[0] }, acc = { 0, 0, 0, 0 }, x;

	ISA_UNROLL
	for (unsigned l = 0; l < ISA_LANES; l += 4) {
		memcpy(&x, a + l, sizeof(x));
		acc |= x ^ b;
	}
	return acc[0] | acc[1] | acc[2] | acc[3];
}

static inline uint32_t differ32(const uint32_t *a)
{
	v8u32_t b = { a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0] }, acc = { 0 }, x;
	v4u64_t q;
	uint64_t r;

	ISA_UNROLL
	for (unsigned l = 0; l < ISA_LANES; l += 8) {
		memcpy(&x, a + l, sizeof(x));
		acc |= x ^ b;
	}
	/* folded as four 64-bit halves (a loop over the eight lanes stays
	 * eight extracts) */
	memcpy(&q, &acc, sizeof(q));
	r = q[0] | q[1] | q[2] | q[3];
	return (uint32_t)(r | r >> 32);
}

/* ---- private memory (scratch) ----
 *
 * Interleaved by dword as the hardware swizzles scratch (isa.h): a lane's
 * bytes are contiguous only within a dword, so an access is copied a dword
 * piece at a time. One past the lane's size is refused whole: it reads 0 and
 * a write is dropped, as the hardware's range check does. */

static bool priv_ok(const struct isa_env *env, uint64_t off, unsigned size)
{
	return env->scratch && off <= env->scratch_lane && size <= env->scratch_lane - off;
}

static uint8_t *priv_at(const struct isa_env *env, unsigned lane, uint32_t off)
{
	return env->scratch + ((size_t)(off >> 2) * ISA_LANES + lane) * 4 + (off & 3);
}

/* size bytes of lane's private memory at off (checked) to or from buf */
static void priv_copy(const struct isa_env *env, unsigned lane, uint32_t off, unsigned size,
		      void *buf, bool store)
{
	uint8_t *b = buf;

	while (size) {
		unsigned run = 4 - (off & 3);
		uint8_t *p = priv_at(env, lane, off);

		if (run > size)
			run = size;
		if (store)
			memcpy(p, b, run);
		else
			memcpy(b, p, run);
		b += run;
		off += run;
		size -= run;
	}
}

static uint8_t *lds(const struct isa_env *env, uint32_t a, unsigned size)
{
	if (a > env->lds_size || size > env->lds_size - a)
		return NULL;
	return env->lds + a;
}

/* ---- one load or store of every active lane ---- */

enum kind { K_U8, K_S8, K_U16, K_S16, K_D, K_U8_HI, K_U16_HI };

/* Loads: op -> (kind, dwords); stores likewise. Same numbering in FLAT and MUBUF. */
static bool load_shape(unsigned op, enum kind *k, unsigned *n)
{
	*n = 1;
	switch (op) {
	case 0x10: *k = K_U8; return true;
	case 0x11: *k = K_S8; return true;
	case 0x12: *k = K_U16; return true;
	case 0x13: *k = K_S16; return true;
	case 0x14: case 0x15: case 0x16: case 0x17: *k = K_D; *n = op - 0x13; return true;
	}
	return false;
}

static bool store_shape(unsigned op, enum kind *k, unsigned *n)
{
	*n = 1;
	switch (op) {
	case 0x18: *k = K_U8; return true;
	case 0x19: *k = K_U8_HI; return true;	/* the d16_hi forms store bits 31:16 */
	case 0x1a: *k = K_U16; return true;
	case 0x1b: *k = K_U16_HI; return true;
	case 0x1c: case 0x1d: case 0x1e: case 0x1f: *k = K_D; *n = op - 0x1b; return true;
	}
	return false;
}

static unsigned kind_size(enum kind k, unsigned n)
{
	return k == K_D ? 4 * n : (k == K_U8 || k == K_S8 || k == K_U8_HI) ? 1 : 2;
}

static uint32_t widen(enum kind k, const uint8_t *p)
{
	uint16_t h;

	switch (k) {
	case K_U8: return p[0];
	case K_S8: return (uint32_t)(int32_t)(int8_t)p[0];
	case K_U16: memcpy(&h, p, 2); return h;
	case K_S16: memcpy(&h, p, 2); return (uint32_t)(int32_t)(int16_t)h;
	default: { uint32_t v; memcpy(&v, p, 4); return v; }
	}
}

/* One lane's load or store of private memory at off: n dwords, or one
 * smaller piece, from or to VGPRs reg.. */
static void priv_lane(struct isa_wave *w, const struct isa_env *env, unsigned l, uint32_t off,
		      bool store, enum kind k, unsigned n, unsigned reg)
{
	unsigned sz = kind_size(k, n), piece = k == K_D ? 4 : sz;
	bool ok = priv_ok(env, off, sz);

	for (unsigned i = 0; i < n; i++) {
		uint32_t *r = &w->v[(reg + i) & 0xff][l];
		uint8_t b[4] = { 0 };

		if (store) {
			uint32_t v = *r;

			if (k == K_U8_HI || k == K_U16_HI)
				v >>= 16;
			memcpy(b, &v, 4);
			if (ok)
				priv_copy(env, l, off + 4 * i, piece, b, true);
		} else if (ok) {
			priv_copy(env, l, off + 4 * i, piece, b, false);
			*r = widen(k, b);
		} else {
			*r = 0;
		}
	}
}

/* Global (or flat, or raw buffer) load/store at b->addr[] for the lanes of ex.
 * Flat addresses in the private aperture go to scratch. */
static inline int move(struct isa_wave *w, const struct isa_env *env, struct vbuf *b, uint64_t ex,
		bool store, enum kind k, unsigned n, unsigned dreg, unsigned vdst, bool maybe_ap)
{
	unsigned sz = kind_size(k, n), cnt = 0;
	uint64_t g[ISA_LANES];
	unsigned gl[ISA_LANES];

	/* every lane on, a dword each, all global: the VGPR is the buffer */
	if (k == K_D && n == 1 && ex == ~0ull) {
		bool ap = false;

		uint64_t diff = 0;
		uint32_t *r = w->v[(store ? dreg : vdst) & 0xff];

		if (maybe_ap)
			for (unsigned l = 0; l < ISA_LANES; l++)
				ap |= (b->addr[l] >> 32 == ISA_PRIVATE_HI) |
				      (b->addr[l] >> 32 == ISA_SHARED_HI);
		/* lanes 0 and 1 apart (a wave's usual access) settle it at once;
		 * the whole check costs a saxpy-like kernel 5 % otherwise */
		diff = b->addr[1] ^ b->addr[0];
		if (!diff)
			diff = differ64(b->addr);
		/* one address for the whole wave (a loop every work-item runs
		 * alike): one access; a load is every lane's, of stores the
		 * last lane's wins, as in lane order */
		if (!ap && !diff) {
			uint32_t v = store ? r[ISA_LANES - 1] : 0;

			if (env->mem->access(env->mem, b->addr, 1, 4, store, &v))
				return -ISA_E_FAULT;
			if (!store)
				for (unsigned l = 0; l < ISA_LANES; l++)
					r[l] = v;
			return 0;
		}
		if (!ap)
			return env->mem->access(env->mem, b->addr, ISA_LANES, 4, store, r)
				? -ISA_E_FAULT : 0;
	}
	LANES(ex) {
		uint64_t a = b->addr[l];
		uint8_t *p = NULL;

		if (a >> 32 == ISA_PRIVATE_HI) {
			priv_lane(w, env, (unsigned)l, (uint32_t)a, store, k, n, store ? dreg : vdst);
			continue;
		}
		if (a >> 32 == ISA_SHARED_HI) {
			if ((a & 0xffffffffu) <= env->lds_size && sz <= env->lds_size - (a & 0xffffffffu))
				p = env->lds + (a & 0xffffffffu);
			if (store) {
				for (unsigned i = 0; i < n && p; i++) {
					uint32_t v = w->v[(dreg + i) & 0xff][l];

					if (k == K_U8_HI || k == K_U16_HI)
						v >>= 16;

					memcpy(p + 4 * i, &v, k == K_D ? 4 : sz);
				}
			} else {
				for (unsigned i = 0; i < n; i++)
					w->v[(vdst + i) & 0xff][l] = p ? widen(k, p + 4 * i) : 0;
			}
			continue;
		}
		g[cnt] = a;
		if (store)
			for (unsigned i = 0; i < n; i++) {
				uint32_t v = w->v[(dreg + i) & 0xff][l];

				if (k == K_U8_HI || k == K_U16_HI)
					v >>= 16;

				memcpy(b->data + cnt * sz + 4 * i, &v, k == K_D ? 4 : sz);
			}
		gl[cnt++] = l;
	}
	if (!cnt)
		return 0;
	if (env->mem->access(env->mem, g, cnt, sz, store, b->data))
		return -ISA_E_FAULT;
	if (!store)
		for (unsigned c = 0; c < cnt; c++)
			for (unsigned i = 0; i < n; i++)
				w->v[(vdst + i) & 0xff][gl[c]] = widen(k, b->data + c * sz + 4 * i);
	return 0;
}

/* FLAT/GLOBAL atomics: 0x40.. 32-bit, 0x60.. 64-bit (same order). */
static int atomic_op(unsigned op, int *at, unsigned *size)
{
	static const int map[] = {
		ISA_AT_SWAP, ISA_AT_CMPSWAP, ISA_AT_ADD, ISA_AT_SUB, ISA_AT_SMIN, ISA_AT_UMIN,
		ISA_AT_SMAX, ISA_AT_UMAX, ISA_AT_AND, ISA_AT_OR, ISA_AT_XOR, ISA_AT_INC, ISA_AT_DEC,
	};

	if (op >= 0x40 && op <= 0x4c) {
		*at = map[op - 0x40];
		*size = 4;
		return 1;
	}
	if (op == 0x4d) {
		*at = ISA_AT_FADD32;
		*size = 4;
		return 1;
	}
	if (op == 0x4f || op == 0x50 || op == 0x51) {
		*at = op == 0x4f ? ISA_AT_FADD64 : op == 0x50 ? ISA_AT_FMIN64 : ISA_AT_FMAX64;
		*size = 8;
		return 1;
	}
	if (op >= 0x60 && op <= 0x6c) {
		*at = map[op - 0x60];
		*size = 8;
		return 1;
	}
	return 0;
}

/* The global lanes go to the backend in one call, in lane order; LDS and
 * scratch lanes are the interpreter's own memory. */
static int atomics(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in,
		   const struct vbuf *b, uint64_t ex, bool ap)
{
	uint64_t ga[ISA_LANES], src[ISA_LANES], cmp[ISA_LANES], got[ISA_LANES], old[ISA_LANES];
	unsigned gl[ISA_LANES], n = 0, size, d = in->data;
	int at;

	if (!atomic_op(in->op, &at, &size))
		return -ISA_E_DECODE;
	if (ex == ~0ull && !ap) {
		/* every lane on, all global: the lanes in order as they are */
		const uint32_t *s0 = w->v[d & 0xff], *s1 = w->v[(d + 1) & 0xff];

		if (size == 8) {
			for (unsigned l = 0; l < ISA_LANES; l++)
				src[l] = s0[l] | (uint64_t)s1[l] << 32;
			if (at == ISA_AT_CMPSWAP)
				for (unsigned l = 0; l < ISA_LANES; l++)
					cmp[l] = vreg64(w, d + 2, l);
		} else {
			for (unsigned l = 0; l < ISA_LANES; l++)
				src[l] = s0[l];
			if (at == ISA_AT_CMPSWAP)
				for (unsigned l = 0; l < ISA_LANES; l++)
					cmp[l] = s1[l];
		}
		if (env->mem->atomic(env->mem, b->addr, ISA_LANES, size, at, src,
				     at == ISA_AT_CMPSWAP ? cmp : NULL, got))
			return -ISA_E_FAULT;
		if (in->glc) {
			uint32_t *o0 = w->v[in->dst], *o1 = w->v[(in->dst + 1) & 0xff];

			for (unsigned l = 0; l < ISA_LANES; l++)
				o0[l] = (uint32_t)got[l];
			if (size == 8)
				for (unsigned l = 0; l < ISA_LANES; l++)
					o1[l] = (uint32_t)(got[l] >> 32);
		}
		return 0;
	}
	LANES(ex) {
		uint64_t a = b->addr[l], s = size == 8 ? vreg64(w, d, l) : w->v[d][l], c = 0, o = 0;

		if (at == ISA_AT_CMPSWAP)
			c = size == 8 ? vreg64(w, d + 2, l) : w->v[(d + 1) & 0xff][l];
		if (a >> 32 != ISA_PRIVATE_HI && a >> 32 != ISA_SHARED_HI) {
			ga[n] = a;
			src[n] = s;
			cmp[n] = c;
			gl[n++] = (unsigned)l;
			continue;
		}
		/* out of range: reads 0, the write dropped, as for loads and stores */
		bool pv = a >> 32 == ISA_PRIVATE_HI;
		uint8_t *p = pv ? NULL : lds(env, (uint32_t)a, size);

		if (pv ? priv_ok(env, (uint32_t)a, size) : p != NULL) {
			uint64_t nv;

			if (pv)
				priv_copy(env, (unsigned)l, (uint32_t)a, size, &o, false);
			else
				memcpy(&o, p, size);
			nv = at == ISA_AT_CMPSWAP ? (o == c ? s : o) : isa_atomic_rmw(at, size, o, s);
			if (pv)
				priv_copy(env, (unsigned)l, (uint32_t)a, size, &nv, true);
			else
				memcpy(p, &nv, size);
		}
		old[l] = o;
	}
	if (n && env->mem->atomic(env->mem, ga, n, size, at, src, at == ISA_AT_CMPSWAP ? cmp : NULL,
				  got))
		return -ISA_E_FAULT;
	for (unsigned i = 0; i < n; i++)
		old[gl[i]] = got[i];
	if (in->glc)
		LANES(ex) {
			w->v[in->dst][l] = (uint32_t)old[l];
			if (size == 8)
				w->v[(in->dst + 1) & 0xff][l] = (uint32_t)(old[l] >> 32);
		}
	return 0;
}

/*
 * A flat or global dword access of the whole wave whose lanes' addresses
 * are a, a + 4, ... a + 252 (a kernel's out[i] = ... over consecutive i):
 * true and *a when so. The registers tell it before any address is built:
 * the low dwords 4 apart without wrapping, the high dwords all alike (or
 * an SGPR base with 32-bit offsets), and neither end's high dword an
 * aperture's (the two ends bound it: the run crosses at most one 4 GiB
 * line). Then the access is one run of 256 bytes (isa_mem.run), and the 64
 * addresses, their aperture test and the memory side's check that they
 * are consecutive are left out.
 */
static inline __attribute__((always_inline)) bool
dword_run(const uint32_t *lo, const uint32_t *hi, bool sad, uint64_t sbase, int64_t off, uint64_t *a)
{
	uint32_t l0 = lo[0], h0 = hi[0], bad = 0;
	uint64_t b;

	/* lanes 0, 1 and the last settle most accesses that are no run (rows
	 * of a tile have the first two 4 apart) */
	if (lo[1] - l0 != 4 || lo[ISA_LANES - 1] - l0 != 4 * (ISA_LANES - 1) ||
	    l0 > UINT32_MAX - 4 * (ISA_LANES - 1))
		return false;
	ISA_UNROLL
	for (unsigned l = 0; l < ISA_LANES; l++)
		bad |= lo[l] - l0 - 4 * l;
	if (!sad) {
		ISA_UNROLL
		for (unsigned l = 0; l < ISA_LANES; l++)
			bad |= hi[l] ^ h0;
	}
	if (bad)
		return false;
	b = (sad ? sbase + l0 : (l0 | (uint64_t)h0 << 32)) + (uint64_t)off;
	uint32_t e0 = (uint32_t)(b >> 32), e1 = (uint32_t)((b + 4 * ISA_LANES - 1) >> 32);

	if (b + 4 * ISA_LANES - 1 < b || e0 == ISA_PRIVATE_HI || e0 == ISA_SHARED_HI ||
	    e1 == ISA_PRIVATE_HI || e1 == ISA_SHARED_HI)
		return false;
	*a = b;
	return true;
}

/*
 * One address for the whole wave (every work-item walking the same array, as
 * hip-tests' hipMemFaultStackAllocation does 10^5 times a wave): decided from
 * the registers before any lane's address is built. Not in an aperture, not
 * wrapped; the access is then one lane's, its n dwords given to every lane on
 * a load, and on a store the last lane's, which wins in lane order.
 */
static inline __attribute__((always_inline)) bool
one_address(const uint32_t *lo, const uint32_t *hi, bool sad, uint64_t sbase, int64_t off,
	    uint64_t *a)
{
	uint64_t b;
	uint32_t e;

	if (lo[1] != lo[0] || lo[ISA_LANES - 1] != lo[0] || differ32(lo) ||
	    (!sad && (hi[1] != hi[0] || differ32(hi))))
		return false;
	b = (sad ? sbase + lo[0] : (lo[0] | (uint64_t)hi[0] << 32)) + (uint64_t)off;
	e = (uint32_t)(b >> 32);
	if (e == ISA_PRIVATE_HI || e == ISA_SHARED_HI || b + 15 < b)
		return false;
	*a = b;
	return true;
}

static inline __attribute__((always_inline)) int
uniform(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in, uint64_t a,
	bool store, unsigned n)
{
	uint32_t v[4];
	unsigned reg = store ? in->data : in->dst;

	if (store)
		for (unsigned i = 0; i < n; i++)
			v[i] = w->v[(reg + i) & 0xff][ISA_LANES - 1];
	if (env->mem->run(env->mem, a, 1, 4 * n, store, v))
		return -ISA_E_FAULT;
	if (!store)
		for (unsigned i = 0; i < n; i++) {
			uint32_t *r = w->v[(reg + i) & 0xff];

			for (unsigned l = 0; l < ISA_LANES; l++)
				r[l] = v[i];
		}
	return 0;
}

ISA_WIDE int isa_h_flat(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	struct vbuf b;
	uint64_t ex = isa_exec(w);
	enum kind k = K_D;
	unsigned n = 0;
	bool sad = in->seg && in->saddr != 0x7f;
	uint64_t sbase = sad ? isa_sreg64(w, in, in->saddr, false) : 0;

	const uint32_t *lo = w->v[in->addr & 0xff], *hi = w->v[(in->addr + 1) & 0xff];
	int64_t off = in->offset;
	bool ap;

	/* 1 a load, 2 a store, 0 an atomic */
	int shape = load_shape(in->op, &k, &n) ? 1 : store_shape(in->op, &k, &n) ? 2 : 0;
	uint64_t a;

	if (shape && k == K_D && ex == ~0ull && in->seg != 1 && env->mem->run) {
		if (n == 1 && dword_run(lo, hi, sad, sbase, off, &a))
			return env->mem->run(env->mem, a, ISA_LANES, 4, shape == 2,
					     w->v[(shape == 2 ? in->data : in->dst) & 0xff])
				? -ISA_E_FAULT : 0;
		if (one_address(lo, hi, sad, sbase, off, &a))
			return uniform(w, env, in, a, shape == 2, n);
	}

	/* every lane's address (the inactive ones are not used), and whether
	 * any lies in the LDS or private aperture: a 32-bit OR of compares,
	 * which the compiler vectorises (a bool accumulator it does not) */
	if (in->seg == 1) {	/* scratch_*: a private offset */
		ISA_UNROLL
		for (unsigned l = 0; l < ISA_LANES; l++)
			b.addr[l] = ((uint64_t)ISA_PRIVATE_HI << 32) +
				    (uint32_t)((sad ? (uint32_t)sbase : lo[l]) + (uint32_t)off);
		ap = true;
	} else if (sad) {
		uint32_t any = 0;

		ISA_UNROLL
		for (unsigned l = 0; l < ISA_LANES; l++)
			b.addr[l] = sbase + lo[l] + (uint64_t)off;
		ISA_UNROLL
		for (unsigned l = 0; l < ISA_LANES; l++) {
			uint32_t h = (uint32_t)(b.addr[l] >> 32);

			any |= (uint32_t)(h == ISA_PRIVATE_HI) | (uint32_t)(h == ISA_SHARED_HI);
		}
		ap = any != 0;
	} else if (ISA_HAVE_AVX2()) {
		ap = flat_addrs_avx2(b.addr, lo, hi, (uint64_t)off);
	} else {
		/* the high dwords from the registers' dwords: 32-bit lanes,
		 * twice as many a step */
		uint32_t any = 0, olo = (uint32_t)off, ohi = (uint32_t)((uint64_t)off >> 32);

		ISA_UNROLL
		for (unsigned l = 0; l < ISA_LANES; l++)
			b.addr[l] = (lo[l] | (uint64_t)hi[l] << 32) + (uint64_t)off;
		ISA_UNROLL
		for (unsigned l = 0; l < ISA_LANES; l++) {
			uint32_t h = hi[l] + ohi + (uint32_t)(lo[l] + olo < lo[l]);

			any |= (uint32_t)(h == ISA_PRIVATE_HI) | (uint32_t)(h == ISA_SHARED_HI);
		}
		ap = any != 0;
	}
	if (shape == 1)
		return move(w, env, &b, ex, false, k, n, 0, in->dst, ap);
	if (shape == 2)
		return move(w, env, &b, ex, true, k, n, in->data, 0, ap);
	return atomics(w, env, in, &b, ex, ap);
}

/*
 * A MUBUF access through the scratch resource, straight to each lane's
 * private memory: what move() does for private-aperture lanes, without
 * building the flat addresses first. The private arrays of spilled or
 * indexed locals make this most of some kernels' work (hip-tests'
 * hipMemFaultStackAllocation reads a 1024-int stack array 10^10 times).
 * Every lane on, a dword each at one aligned offset in range: the wave's
 * 64 dwords are neighbours, one copy.
 */
static inline __attribute__((always_inline)) void
scratch_move(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in,
	     uint64_t ex, uint32_t soff, bool store, enum kind k, unsigned n,
	     unsigned reg)
{
	unsigned va = in->addr + (in->idxen ? 1 : 0);
	const uint32_t *voff = in->offen ? w->v[va & 0xff] : NULL;
	uint32_t base = (uint32_t)in->offset + soff / ISA_LANES;

	if (k == K_D && ex == ~0ull) {
		uint32_t o0 = base + (voff ? voff[0] : 0), diff = 0;

		if (voff && !(diff = voff[1] ^ voff[0]))
			diff = differ32(voff);
		if (!diff && !(o0 & 3) && priv_ok(env, o0, 4 * n)) {
			for (unsigned i = 0; i < n; i++) {
				uint8_t *p = priv_at(env, 0, o0 + 4 * i);
				uint32_t *r = w->v[(reg + i) & 0xff];

				if (store)
					memcpy(p, r, ISA_LANES * 4);
				else
					memcpy(r, p, ISA_LANES * 4);
			}
			return;
		}
	}
	LANES(ex)
		priv_lane(w, env, (unsigned)l, (uint32_t)(base + (voff ? voff[l] : 0)), store, k, n,
			  reg);
}

ISA_WIDE int isa_h_mubuf(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	struct vbuf b;
	uint64_t ex = isa_exec(w), base;
	uint32_t soff, stride;
	enum kind k;
	unsigned n;

	if ((in->op >= 0x28 && in->op <= 0x29) || in->op == 0x3e || in->op == 0x3f)
		return 0;	/* cache write-back / invalidate: in order, nothing */
	base = isa_sreg64(w, in, in->srsrc, false) & 0xffffffffffffull;
	stride = (w->s[(in->srsrc + 1) & 0x7f] >> 16) & 0x3fff;
	soff = isa_sreg32(w, in, in->soffset);
	if (base == ISA_SCRATCH_BASE) {
		bool store = !load_shape(in->op, &k, &n);

		if (store && !store_shape(in->op, &k, &n))
			return -ISA_E_DECODE;
		scratch_move(w, env, in, ex, soff, store, k, n, in->data);
		return 0;
	}
	LANES(ex) {
		uint64_t off, idx;

		isa_mubuf_lane(w, in, (unsigned)l, &idx, &off);
		/* The scratch buffer is swizzled per lane (4-byte elements, 64
		 * lanes): soffset, a stack pointer such as s32, counts bytes of
		 * the whole wave, 64 per byte of one lane's stack. */
		if (base == ISA_SCRATCH_BASE)
			b.addr[l] = ((uint64_t)ISA_PRIVATE_HI << 32) + (uint32_t)(off + soff / ISA_LANES);
		else
			b.addr[l] = base + idx * stride + off + soff;
	}
	if (load_shape(in->op, &k, &n))
		return move(w, env, &b, ex, false, k, n, 0, in->data, true);
	if (store_shape(in->op, &k, &n))
		return move(w, env, &b, ex, true, k, n, in->data, 0, true);
	return -ISA_E_DECODE;
}

/* ---- LDS ---- */

static uint32_t lds_rmw(unsigned op, uint32_t old, uint32_t v)
{
	switch (op & 0x1f) {
	case 0x00: return old + v;
	case 0x01: return old - v;
	case 0x02: return v - old;
	case 0x03: return old >= v ? 0 : old + 1;
	case 0x04: return old == 0 || old > v ? v : old - 1;
	case 0x05: return (int32_t)old < (int32_t)v ? old : v;
	case 0x06: return (int32_t)old > (int32_t)v ? old : v;
	case 0x07: return old < v ? old : v;
	case 0x08: return old > v ? old : v;
	case 0x09: return old & v;
	case 0x0a: return old | v;
	default: return old ^ v;
	}
}

static uint64_t lds_rmw64(unsigned op, uint64_t old, uint64_t v)
{
	switch (op & 0x1f) {
	case 0x00: return old + v;
	case 0x01: return old - v;
	case 0x02: return v - old;
	case 0x03: return old >= v ? 0 : old + 1;
	case 0x04: return old == 0 || old > v ? v : old - 1;
	case 0x05: return (int64_t)old < (int64_t)v ? old : v;
	case 0x06: return (int64_t)old > (int64_t)v ? old : v;
	case 0x07: return old < v ? old : v;
	case 0x08: return old > v ? old : v;
	case 0x09: return old & v;
	case 0x0a: return old | v;
	default: return old ^ v;
	}
}

static bool ds_atomic_has(unsigned op)
{
	unsigned base = op & ~0x20u;

	return base == 0x10 || base == 0x11 || base == 0x12 || base == 0x13 || base == 0x15 ||
	       (base >= 0x40 && base <= 0x4b) || base == 0x50 || base == 0x52 || base == 0x53 ||
	       base == 0x5c || op == 0x2d || op == 0x6d;
}

/*
 * The LDS atomics beyond the integer family, one lane at a time in lane
 * order (what makes them atomic here): compare-and-store (DATA0 is the
 * value compared, DATA1 the one stored: the reverse of the FLAT cmpswap),
 * exchange, float add/min/max, and the 64-bit integer family. The _rtn
 * forms (op | 0x20) return the old value. 0 or 1 (not one of these).
 */
static int ds_atomic(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in,
		     uint64_t ex, uint32_t off16)
{
	unsigned op = in->op, base = op & ~0x20u, a = in->addr, d0 = in->data, d1 = in->data1;
	bool wide = base >= 0x40, rtn = op & 0x20;

	if (!ds_atomic_has(op))
		return 1;
	LANES(ex) {
		uint8_t *p = lds(env, w->v[a][l] + off16, wide ? 8 : 4);
		uint64_t old = 0, nv, v = wide ? vreg64(w, d0, l) : w->v[d0][l];

		if (p)
			memcpy(&old, p, wide ? 8 : 4);
		switch (base) {
		case 0x10: case 0x50:		/* cmpst_b32/b64 */
			nv = old == v ? (wide ? vreg64(w, d1, l) : w->v[d1][l]) : old;
			break;
		case 0x11:			/* cmpst_f32: compared as floats */
			nv = f32((uint32_t)old) == f32((uint32_t)v) ? w->v[d1][l] : old;
			break;
		case 0x0d:			/* wrxchg_rtn_b32 */
			nv = v;
			break;
		case 0x12: nv = u32(fminf(f32((uint32_t)old), f32((uint32_t)v))); break;
		case 0x13: nv = u32(fmaxf(f32((uint32_t)old), f32((uint32_t)v))); break;
		case 0x15: nv = u32(f32((uint32_t)old) + f32((uint32_t)v)); break;
		case 0x52: nv = u64(fmin(f64(old), f64(v))); break;
		case 0x53: nv = u64(fmax(f64(old), f64(v))); break;
		case 0x5c: nv = u64(f64(old) + f64(v)); break;
		default: nv = base == 0x4d ? v : lds_rmw64(base, old, v); break;
		}
		if (p)
			memcpy(p, &nv, wide ? 8 : 4);
		if (rtn) {
			w->v[in->dst][l] = (uint32_t)old;
			if (wide)
				w->v[(in->dst + 1) & 0xff][l] = (uint32_t)(old >> 32);
		}
	}
	return 0;
}


int isa_h_ds(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	uint64_t ex = isa_exec(w);
	uint32_t off16 = (uint32_t)in->offset | (uint32_t)in->offset1 << 8;
	unsigned op = in->op, a = in->addr, d0 = in->data, d1 = in->data1, vd = in->dst;
	uint32_t tmp[ISA_LANES];

	switch (op) {
	case 0x00: case 0x01: case 0x02: case 0x03: case 0x04: case 0x05: case 0x06: case 0x07:
	case 0x08: case 0x09: case 0x0a: case 0x0b:
	case 0x20: case 0x21: case 0x22: case 0x23: case 0x24: case 0x25: case 0x26: case 0x27:
	case 0x28: case 0x29: case 0x2a: case 0x2b:
		LANES(ex) {
			uint8_t *p = lds(env, w->v[a][l] + off16, 4);
			uint32_t old = 0;

			if (p) {
				memcpy(&old, p, 4);
				uint32_t nv = lds_rmw(op, old, w->v[d0][l]);

				memcpy(p, &nv, 4);
			}
			if (op >= 0x20)
				w->v[vd][l] = old;
		}
		return 0;
	case 0x0d: case 0x1e: case 0x1f: case 0x4d: {	/* write b32, b8, b16, b64 */
		unsigned sz = op == 0x0d ? 4 : op == 0x1e ? 1 : op == 0x1f ? 2 : 8;

		LANES(ex) {
			uint8_t *p = lds(env, w->v[a][l] + off16, sz);
			uint64_t v = op == 0x4d ? vreg64(w, d0, l) : w->v[d0][l];

			if (p)
				memcpy(p, &v, sz);
		}
		return 0;
	}
	case 0x0e: case 0x0f: case 0x4e: case 0x4f: {	/* write2(st64) b32/b64 */
		unsigned sz = op < 0x40 ? 4 : 8, mul = sz * ((op & 1) ? 64 : 1);

		LANES(ex) {
			uint8_t *p0 = lds(env, w->v[a][l] + in->offset * mul, sz);
			uint8_t *p1 = lds(env, w->v[a][l] + in->offset1 * mul, sz);
			uint64_t v0 = sz == 8 ? vreg64(w, d0, l) : w->v[d0][l];
			uint64_t v1 = sz == 8 ? vreg64(w, d1, l) : w->v[d1][l];

			if (p0)
				memcpy(p0, &v0, sz);
			if (p1)
				memcpy(p1, &v1, sz);
		}
		return 0;
	}
	case 0x36: case 0x39: case 0x3a: case 0x3b: case 0x3c: case 0x76: {	/* reads */
		unsigned sz = op == 0x36 ? 4 : op == 0x76 ? 8 : op <= 0x3a ? 1 : 2;

		LANES(ex) {
			uint8_t *p = lds(env, w->v[a][l] + off16, sz);
			uint64_t v = 0;

			if (p)
				memcpy(&v, p, sz);
			if (op == 0x39)
				v = (uint32_t)(int32_t)(int8_t)v;
			else if (op == 0x3b)
				v = (uint32_t)(int32_t)(int16_t)v;
			w->v[vd][l] = (uint32_t)v;
			if (sz == 8)
				w->v[(vd + 1) & 0xff][l] = (uint32_t)(v >> 32);
		}
		return 0;
	}
	case 0x37: case 0x38: case 0x77: case 0x78: {	/* read2(st64) b32/b64 */
		unsigned sz = op < 0x40 ? 4 : 8, mul = sz * ((op == 0x38 || op == 0x78) ? 64 : 1);
		unsigned step = sz / 4;

		LANES(ex) {
			uint8_t *p0 = lds(env, w->v[a][l] + in->offset * mul, sz);
			uint8_t *p1 = lds(env, w->v[a][l] + in->offset1 * mul, sz);
			uint64_t v0 = 0, v1 = 0;

			if (p0)
				memcpy(&v0, p0, sz);
			if (p1)
				memcpy(&v1, p1, sz);
			w->v[vd][l] = (uint32_t)v0;
			if (step == 2)
				w->v[(vd + 1) & 0xff][l] = (uint32_t)(v0 >> 32);
			w->v[(vd + step) & 0xff][l] = (uint32_t)v1;
			if (step == 2)
				w->v[(vd + 3) & 0xff][l] = (uint32_t)(v1 >> 32);
		}
		return 0;
	}
	case 0xde: case 0xdf: case 0xfe: case 0xff: {	/* write/read b96, b128 */
		unsigned nd = op & 1 ? 4 : 3;

		LANES(ex) {
			uint8_t *p = lds(env, w->v[a][l] + off16, 4 * nd);

			for (unsigned i = 0; i < nd; i++) {
				if (op < 0xe0) {
					if (p)
						memcpy(p + 4 * i, &w->v[(d0 + i) & 0xff][l], 4);
				} else {
					uint32_t v = 0;

					if (p)
						memcpy(&v, p + 4 * i, 4);
					w->v[(vd + i) & 0xff][l] = v;
				}
			}
		}
		return 0;
	}
	case 0x3e: /* ds_permute_b32: lane l's data goes to lane addr/4 */
		memcpy(tmp, w->v[vd], sizeof(tmp));
		LANES(ex)
			tmp[((w->v[a][l] + off16) >> 2) & 63] = w->v[d0][l];
		LANES(ex)
			w->v[vd][l] = tmp[l];
		return 0;
	case 0x3f: /* ds_bpermute_b32: lane l reads lane addr/4 */
		LANES(ex)
			tmp[l] = w->v[d0][((w->v[a][l] + off16) >> 2) & 63];
		LANES(ex)
			w->v[vd][l] = tmp[l];
		return 0;
	}
	if (ds_atomic_has(op))
		return ds_atomic(w, env, in, ex, off16) ? -ISA_E_DECODE : 0;
	return -ISA_E_DECODE;
}

/* The common LDS reads and writes with every lane on, as whole-wave loops:
 * the lanes' addresses first (32-bit sums, as the general form makes
 * them), the range checked once for the highest; anything else (a partial
 * EXEC, a lane out of range) takes the general form above. */
static bool lds_addrs(const struct isa_wave *w, const struct isa_env *env, unsigned a,
		      uint32_t off, unsigned size, uint32_t *ad)
{
	uint32_t hi = 0;

	ISA_UNROLL
	for (unsigned l = 0; l < ISA_LANES; l++) {
		ad[l] = w->v[a][l] + off;
		hi = ad[l] > hi ? ad[l] : hi;
	}
	return env->lds_size >= size && hi <= env->lds_size - size;
}

ISA_WIDE int isa_h_ds_rw(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	uint32_t off16 = (uint32_t)in->offset | (uint32_t)in->offset1 << 8, ad[ISA_LANES], ad1[ISA_LANES];
	unsigned op = in->op, a = in->addr, d0 = in->data, d1 = in->data1, vd = in->dst;
	const uint8_t *lds_ = env->lds;

	if (isa_exec(w) != ~0ull)
		return isa_h_ds(w, env, in);
	switch (op) {
	case 0x36:	/* ds_read_b32 */
		if (!lds_addrs(w, env, a, off16, 4, ad))
			break;
		{
			gather_off(w->v[vd], lds_, ad);
		}
		return 0;
	case 0x0d:	/* ds_write_b32: lane order, the last lane's value stays */
		if (!lds_addrs(w, env, a, off16, 4, ad))
			break;
		{
			/* the pointers in locals: a byte store could be
			 * env->lds itself, for all the compiler knows */
			uint8_t *ld = env->lds;
			const uint32_t *dv = w->v[d0];
			uint32_t apart = 0;

			/* the lanes' addresses one dword apart, in lane order
			 * (a row of a tile, mostly): one 256-byte copy, as the
			 * lanes do not overlap (in range, checked above, so no
			 * address wraps) */
			ISA_UNROLL
			for (unsigned l = 0; l < ISA_LANES; l++)
				apart |= ad[l] ^ (ad[0] + 4 * l);
			if (!apart) {
				ISA_UNROLL
				for (unsigned c = 0; c < ISA_LANES; c += 8)
					*(isa_lanes8 *)(void *)(ld + ad[0] + 4 * c) =
						*(const isa_lanes8 *)(const void *)(dv + c);
				return 0;
			}
			/* four lanes a step, unrolled by hand (a scatter has
			 * no wide form, and -O2 does not unroll) */
			for (unsigned l = 0; l < ISA_LANES; l += 4) {
				memcpy(ld + ad[l], &dv[l], 4);
				memcpy(ld + ad[l + 1], &dv[l + 1], 4);
				memcpy(ld + ad[l + 2], &dv[l + 2], 4);
				memcpy(ld + ad[l + 3], &dv[l + 3], 4);
			}
		}
		return 0;
	case 0x37: case 0x77: {	/* ds_read2_b32, ds_read2_b64 */
		unsigned sz = op == 0x37 ? 4 : 8;
		uint32_t f0 = (uint32_t)in->offset * sz, f1 = (uint32_t)in->offset1 * sz, hv = 0;
		const uint32_t *av = w->v[a];

		/* one range check for both: the highest lane's address plus
		 * the larger offset, without a 32-bit wrap (a lane that wraps,
		 * or is out of range, takes the general form); the gathers
		 * then take the lanes' addresses as they are, the offset in
		 * their base */
		ISA_UNROLL
		for (unsigned l = 0; l < ISA_LANES; l++)
			hv = av[l] > hv ? av[l] : hv;
		if ((uint64_t)hv + (f0 > f1 ? f0 : f1) + sz > env->lds_size)
			break;
		uint32_t *o0 = w->v[vd & 0xff], *o1 = w->v[(vd + 1) & 0xff];
		uint32_t *o2 = w->v[(vd + 2) & 0xff], *o3 = w->v[(vd + 3) & 0xff];
		/* straight into the destinations; the addresses copied first
		 * when one of them is the address register */
		if (((a - vd) & 0xff) < sz / 2) {
			memcpy(ad, av, sizeof(ad));
			av = ad;
		}
		if (sz == 4) {
			gather_off(o0, lds_ + f0, av);
			gather_off(o1, lds_ + f1, av);
		} else {
			/* each 64-bit element as its two dwords (little-endian) */
			gather_off(o0, lds_ + f0, av);
			gather_off(o1, lds_ + f0 + 4, av);
			gather_off(o2, lds_ + f1, av);
			gather_off(o3, lds_ + f1 + 4, av);
		}
		return 0;
	}
	case 0x0e:	/* ds_write2_b32 */
		if (!lds_addrs(w, env, a, (uint32_t)in->offset * 4, 4, ad) ||
		    !lds_addrs(w, env, a, (uint32_t)in->offset1 * 4, 4, ad1))
			break;
		{
			uint8_t *ld = env->lds;
			const uint32_t *dv0 = w->v[d0], *dv1 = w->v[d1];

			for (unsigned l = 0; l < ISA_LANES; l++) {
				memcpy(ld + ad[l], &dv0[l], 4);
				memcpy(ld + ad1[l], &dv1[l], 4);
			}
		}
		return 0;
	}
	return isa_h_ds(w, env, in);
}
