// isa_texture: texture fetches the simulator's texture unit runs
// (sim/isa/image.c), checked against a C model of the sampler. Randomised:
// the seed is fixed and printed (argument: another seed). Each round makes
// an array of a random shape (1D, 2D, 3D, 1D or 2D layered) and element
// format, a texture object with random coordinates mode, address mode,
// filter and read mode, and samples it at random coordinates (tex1D, tex2D,
// tex3D, tex1DLayered, tex2DLayered as float4, so every component and the
// descriptor's DST_SEL are seen); then tex1Dfetch of a linear resource,
// indices past its end included. Exit 2 on the first wrong value.
//
// The model is the sampler of docs/simulator.md ("Textures"): normalized
// coordinates scaled in fp32 (ockl floors a point sample's coordinate in
// texels first), the texel coordinate rounded to 1/256, point
// or bilinear with 8-bit weights, each tap through the address mode (ROCm
// turns wrap and mirror into clamp for unnormalized coordinates), border
// transparent black; unnormalized or normalized reads of the channels.
#include <hip/hip_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#define CHECK(x)                                                                        \
	do {                                                                            \
		hipError_t e_ = (x);                                                    \
		if (e_ != hipSuccess) {                                                 \
			printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #x, hipGetErrorName(e_)); \
			exit(1);                                                        \
		}                                                                       \
	} while (0)

enum shape { S1D, S2D, S3D, S1DA, S2DA, NSHAPE };

__global__ void sample(hipTextureObject_t t, const float4 *c, float4 *o, int shape, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;
	float4 p = c[i], r;
	switch (shape) {
	case S1D: r = tex1D<float4>(t, p.x); break;
	case S2D: r = tex2D<float4>(t, p.x, p.y); break;
	case S3D: r = tex3D<float4>(t, p.x, p.y, p.z); break;
	case S1DA: r = tex1DLayered<float4>(t, p.x, (int)p.w); break;
	default: r = tex2DLayered<float4>(t, p.x, p.y, (int)p.w); break;
	}
	o[i] = r;
}

__global__ void fetch(hipTextureObject_t t, const int *idx, float4 *o, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		o[i] = tex1Dfetch<float4>(t, idx[i]);
}

static uint64_t rng;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static int irand(int lo, int hi) { return lo + (int)(rnd() % (uint32_t)(hi - lo + 1)); }
static float frand(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() % 1000000) / 1e6f; }

struct fmt {
	const char *name;
	hipChannelFormatKind kind;
	int bits, ch;
	bool norm;	// read as normalized float (8 and 16-bit integers)
};

static const fmt fmts[] = {
	{ "float1", hipChannelFormatKindFloat, 32, 1, false },
	{ "float2", hipChannelFormatKindFloat, 32, 2, false },
	{ "float4", hipChannelFormatKindFloat, 32, 4, false },
	{ "half1", hipChannelFormatKindFloat, 16, 1, false },
	{ "half4", hipChannelFormatKindFloat, 16, 4, false },
	{ "uchar1 norm", hipChannelFormatKindUnsigned, 8, 1, true },
	{ "uchar4 norm", hipChannelFormatKindUnsigned, 8, 4, true },
	{ "char2 norm", hipChannelFormatKindSigned, 8, 2, true },
	{ "ushort1 norm", hipChannelFormatKindUnsigned, 16, 1, true },
	{ "short4 norm", hipChannelFormatKindSigned, 16, 4, true },
	{ "uchar2", hipChannelFormatKindUnsigned, 8, 2, false },
	{ "short4", hipChannelFormatKindSigned, 16, 4, false },
	{ "int1", hipChannelFormatKindSigned, 32, 1, false },
	{ "uint4", hipChannelFormatKindUnsigned, 32, 4, false },
};

static bool is_int(const fmt &f) { return f.kind != hipChannelFormatKindFloat && !f.norm; }

static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

// channel c of element e as the sampler returns it (float or integer bits)
static uint32_t chan(const fmt &f, const uint8_t *e, int c)
{
	if (c >= f.ch)
		return c == 3 ? (is_int(f) ? 1u : fbits(1.0f)) : 0u;
	uint32_t raw = 0;
	memcpy(&raw, e + c * f.bits / 8, f.bits / 8);
	bool sgn = f.kind == hipChannelFormatKindSigned;
	int32_t s = f.bits == 32 ? (int32_t)raw : (int32_t)(raw << (32 - f.bits)) >> (32 - f.bits);
	if (f.kind == hipChannelFormatKindFloat && f.bits == 16) {
		_Float16 h;
		memcpy(&h, e + c * 2, 2);
		return fbits((float)h);
	}
	if (f.kind == hipChannelFormatKindFloat)
		return raw;
	if (!f.norm)
		return sgn ? (uint32_t)s : raw;
	if (!sgn)
		return fbits((float)raw / (float)((1u << f.bits) - 1u));
	float v = (float)s / (float)((1u << (f.bits - 1)) - 1u);
	return fbits(v < -1.0f ? -1.0f : v);
}

// an address mode on a texel index; -1: the border
static long addr(long i, long n, hipTextureAddressMode m)
{
	switch (m) {
	case hipAddressModeWrap: { long j = i % n; return j < 0 ? j + n : j; }
	case hipAddressModeMirror: {
		long j = i % (2 * n);
		j = j < 0 ? j + 2 * n : j;
		return j < n ? j : 2 * n - 1 - j;
	}
	case hipAddressModeClamp: return i < 0 ? 0 : i >= n ? n - 1 : i;
	default: return i < 0 || i >= n ? -1 : i;
	}
}

struct tex {
	fmt f;
	shape sh;
	int size[3], layers;
	bool normalized, linear;
	hipTextureAddressMode mode;
	std::vector<uint8_t> data;
};

static int dims(shape s) { return s == S1D || s == S1DA ? 1 : s == S3D ? 3 : 2; }

static void model(const tex &t, float4 p, uint32_t *out)
{
	int nd = dims(t.sh), es = t.f.bits / 8 * t.f.ch;
	float c[3] = { p.x, p.y, p.z };
	long i0[3] = { 0, 0, 0 }, fr[3] = { 0, 0, 0 }, z = 0;
	// ROCm: unnormalized coordinates clamp where wrap or mirror was asked
	hipTextureAddressMode m = !t.normalized && (t.mode == hipAddressModeWrap ||
						  t.mode == hipAddressModeMirror) ? hipAddressModeClamp : t.mode;

	for (int d = 0; d < nd; d++) {
		float u = t.normalized ? c[d] * (float)t.size[d] : c[d];
		long q;

		if (!t.linear)	// ockl floors a point sample's coordinate itself
			u = t.normalized ? floorf(u) : floorf(c[d]);
		q = (long)floor((double)u * 256.0 + 0.5);
		if (t.linear)
			q -= 128;
		i0[d] = q >> 8;
		fr[d] = q & 255;
	}
	if (t.sh == S1DA || t.sh == S2DA) {
		float r = rintf(p.w);
		z = r < 0 ? 0 : r >= t.layers ? t.layers - 1 : (long)r;
	}
	float acc[4] = { 0, 0, 0, 0 };
	int taps = t.linear ? 1 << nd : 1;
	for (int k = 0; k < taps; k++) {
		long at[3] = { 0, 0, 0 };
		float w = 1.0f;
		bool border = false;

		for (int d = 0; d < nd; d++) {
			int hi = t.linear ? k >> d & 1 : 0;
			at[d] = addr(i0[d] + hi, t.size[d], m);
			border |= at[d] < 0;
			if (t.linear)
				w *= hi ? (float)fr[d] / 256.0f : (float)(256 - fr[d]) / 256.0f;
		}
		uint32_t v[4] = { 0, 0, 0, 0 };
		if (!border) {
			long zz = nd == 3 ? at[2] : z;
			long h = nd >= 2 ? t.size[1] : 1;
			const uint8_t *e = &t.data[(size_t)(((zz * h + at[1]) * t.size[0] + at[0]) * es)];

			for (int ch = 0; ch < 4; ch++)
				v[ch] = chan(t.f, e, ch);
		}
		if (!t.linear) {
			memcpy(out, v, sizeof(v));
			return;
		}
		for (int ch = 0; ch < 4; ch++)
			acc[ch] += w * bitsf(v[ch]);
	}
	for (int ch = 0; ch < 4; ch++)
		out[ch] = fbits(acc[ch]);
}

static bool same(uint32_t got, uint32_t want, bool integer)
{
	if (integer)
		return got == want;
	float g = bitsf(got), w = bitsf(want);
	if (isnan(g) && isnan(w))
		return true;
	return fabsf(g - w) <= 1e-5f * fmaxf(1.0f, fabsf(w));
}

static void fill(std::vector<uint8_t> &d, const fmt &f, size_t n)
{
	d.resize(n * f.bits / 8 * f.ch);
	for (size_t i = 0; i < n * f.ch; i++) {
		if (f.kind == hipChannelFormatKindFloat && f.bits == 16) {
			_Float16 h = (_Float16)frand(-100.0f, 100.0f);
			memcpy(&d[i * 2], &h, 2);
		} else if (f.kind == hipChannelFormatKindFloat) {
			float v = frand(-100.0f, 100.0f);
			memcpy(&d[i * 4], &v, 4);
		} else {
			uint32_t v = rnd();
			memcpy(&d[i * f.bits / 8], &v, f.bits / 8);
		}
	}
}

static int round_of(int r)
{
	static const hipTextureAddressMode modes[] = { hipAddressModeWrap, hipAddressModeClamp,
						       hipAddressModeMirror, hipAddressModeBorder };
	const int N = 200;
	tex t;

	t.f = fmts[irand(0, sizeof(fmts) / sizeof(fmts[0]) - 1)];
	t.sh = (shape)irand(0, NSHAPE - 1);
	t.size[0] = irand(1, 37);
	t.size[1] = dims(t.sh) >= 2 ? irand(1, 19) : 1;
	t.size[2] = t.sh == S3D ? irand(1, 7) : 1;
	t.layers = t.sh == S1DA || t.sh == S2DA ? irand(1, 5) : 1;
	t.normalized = rnd() & 1;
	t.linear = !is_int(t.f) && (rnd() & 1);
	t.mode = modes[irand(0, 3)];
	size_t n = (size_t)t.size[0] * t.size[1] * t.size[2] * t.layers;
	fill(t.data, t.f, n);

	hipChannelFormatDesc cd = hipCreateChannelDesc(t.f.bits, t.f.ch > 1 ? t.f.bits : 0,
						       t.f.ch > 2 ? t.f.bits : 0, t.f.ch > 2 ? t.f.bits : 0,
						       t.f.kind);
	hipExtent ext = make_hipExtent(t.size[0], dims(t.sh) >= 2 ? t.size[1] : 0,
				       t.sh == S3D ? t.size[2] : t.layers > 1 || t.sh >= S1DA ? t.layers : 0);
	hipArray *a = NULL;
	CHECK(hipMalloc3DArray(&a, &cd, ext, t.sh >= S1DA ? hipArrayLayered : hipArrayDefault));
	hipMemcpy3DParms cp;
	memset(&cp, 0, sizeof(cp));
	size_t row = (size_t)t.size[0] * t.f.bits / 8 * t.f.ch;
	cp.srcPtr = make_hipPitchedPtr(t.data.data(), row, t.size[0], t.size[1]);
	cp.dstArray = a;
	cp.extent = make_hipExtent(t.size[0], t.size[1], t.size[2] * t.layers);
	cp.kind = hipMemcpyHostToDevice;
	CHECK(hipMemcpy3D(&cp));

	hipResourceDesc rd;
	memset(&rd, 0, sizeof(rd));
	rd.resType = hipResourceTypeArray;
	rd.res.array.array = a;
	hipTextureDesc td;
	memset(&td, 0, sizeof(td));
	td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = t.mode;
	td.filterMode = t.linear ? hipFilterModeLinear : hipFilterModePoint;
	td.readMode = t.f.norm ? hipReadModeNormalizedFloat : hipReadModeElementType;
	td.normalizedCoords = t.normalized;
	hipTextureObject_t o;
	CHECK(hipCreateTextureObject(&o, &rd, &td, NULL));

	std::vector<float4> c(N), got(N);
	for (int i = 0; i < N; i++) {
		float span[3];
		for (int d = 0; d < 3; d++)
			span[d] = t.normalized ? 1.0f : (float)t.size[d];
		c[i].x = frand(-1.5f * span[0], 2.5f * span[0]);
		c[i].y = frand(-1.5f * span[1], 2.5f * span[1]);
		c[i].z = frand(-1.5f * span[2], 2.5f * span[2]);
		c[i].w = (float)irand(-1, t.layers);	// tex*Layered take an int
	}
	float4 *dc, *dout;
	CHECK(hipMalloc(&dc, N * sizeof(float4)));
	CHECK(hipMalloc(&dout, N * sizeof(float4)));
	CHECK(hipMemcpy(dc, c.data(), N * sizeof(float4), hipMemcpyHostToDevice));
	hipLaunchKernelGGL(sample, dim3((N + 63) / 64), dim3(64), 0, 0, o, dc, dout, (int)t.sh, N);
	CHECK(hipGetLastError());
	CHECK(hipMemcpy(got.data(), dout, N * sizeof(float4), hipMemcpyDeviceToHost));
	for (int i = 0; i < N; i++) {
		uint32_t want[4], g[4];
		memcpy(g, &got[i], 16);
		model(t, c[i], want);
		for (int ch = 0; ch < 4; ch++)
			if (!same(g[ch], want[ch], is_int(t.f))) {
				printf("round %d: %s shape %d size %dx%dx%d layers %d %s %s mode %d: "
				       "at (%g, %g, %g, %g) component %d: got %08x (%g), want %08x (%g)\n",
				       r, t.f.name, t.sh, t.size[0], t.size[1], t.size[2], t.layers,
				       t.normalized ? "normalized" : "unnormalized",
				       t.linear ? "linear" : "point", t.mode, c[i].x, c[i].y, c[i].z,
				       c[i].w, ch, g[ch], bitsf(g[ch]), want[ch], bitsf(want[ch]));
				return 2;
			}
	}
	CHECK(hipDestroyTextureObject(o));
	CHECK(hipFreeArray(a));
	CHECK(hipFree(dc));
	CHECK(hipFree(dout));
	return 0;
}

// tex1Dfetch on a linear resource: element reads, and 0 for an index past
// NUM_RECORDS (width * element bytes, as ROCr sets it).
static int fetch_round(int r)
{
	const int N = 128;
	fmt f = fmts[irand(0, sizeof(fmts) / sizeof(fmts[0]) - 1)];
	int es = f.bits / 8 * f.ch, width = irand(1, 300);
	std::vector<uint8_t> data;
	fill(data, f, (size_t)width);
	void *buf;
	CHECK(hipMalloc(&buf, data.size()));
	CHECK(hipMemcpy(buf, data.data(), data.size(), hipMemcpyHostToDevice));
	hipResourceDesc rd;
	memset(&rd, 0, sizeof(rd));
	rd.resType = hipResourceTypeLinear;
	rd.res.linear.devPtr = buf;
	rd.res.linear.desc = hipCreateChannelDesc(f.bits, f.ch > 1 ? f.bits : 0, f.ch > 2 ? f.bits : 0,
						  f.ch > 2 ? f.bits : 0, f.kind);
	rd.res.linear.sizeInBytes = data.size();
	hipTextureDesc td;
	memset(&td, 0, sizeof(td));
	td.readMode = f.norm ? hipReadModeNormalizedFloat : hipReadModeElementType;
	hipTextureObject_t o;
	CHECK(hipCreateTextureObject(&o, &rd, &td, NULL));
	std::vector<int> idx(N);
	for (int i = 0; i < N; i++)
		idx[i] = i % 8 == 7 ? width * es + irand(0, 50) : i % 8 == 6 ? -irand(1, 5) : irand(0, width - 1);
	int *di;
	float4 *dout;
	std::vector<float4> got(N);
	CHECK(hipMalloc(&di, N * sizeof(int)));
	CHECK(hipMalloc(&dout, N * sizeof(float4)));
	CHECK(hipMemcpy(di, idx.data(), N * sizeof(int), hipMemcpyHostToDevice));
	hipLaunchKernelGGL(fetch, dim3(2), dim3(64), 0, 0, o, di, dout, N);
	CHECK(hipGetLastError());
	CHECK(hipMemcpy(got.data(), dout, N * sizeof(float4), hipMemcpyDeviceToHost));
	for (int i = 0; i < N; i++) {
		uint32_t g[4], want[4] = { 0, 0, 0, 0 };
		bool in = idx[i] >= 0 && idx[i] < width;

		memcpy(g, &got[i], 16);
		for (int ch = 0; ch < 4 && in; ch++)
			want[ch] = chan(f, &data[(size_t)idx[i] * es], ch);
		for (int ch = 0; ch < 4; ch++)
			if (!same(g[ch], want[ch], is_int(f))) {
				printf("fetch round %d: %s width %d index %d component %d: got %08x, want %08x\n",
				       r, f.name, width, idx[i], ch, g[ch], want[ch]);
				return 2;
			}
	}
	CHECK(hipDestroyTextureObject(o));
	CHECK(hipFree(buf));
	CHECK(hipFree(di));
	CHECK(hipFree(dout));
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 0x7e57u;
	int rounds = 60, rc = 0;

	printf("seed %#llx, %d sampling rounds, %d fetch rounds\n", (unsigned long long)seed, rounds,
	       rounds / 3);
	rng = seed * 2654435761u + 1;
	for (int r = 0; r < rounds && !rc; r++)
		rc = round_of(r);
	for (int r = 0; r < rounds / 3 && !rc; r++)
		rc = fetch_round(r);
	printf(rc ? "FAILED\n" : "all values as the model\n");
	return rc;
}
