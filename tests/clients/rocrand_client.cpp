// rocrand_client: Debian's librocrand as a real client of the simulator.
// The Philox4x32-10 generator's 32-bit integers, uniform floats and uniform
// halves (its kernels in librocrand.so's own gfx90a code object), compared
// with a CPU Philox4x32-10 written here from the algorithm (Random123's
// rounds and constants; counter = element / 4, key = seed): output i of a
// fresh generator is word i % 4 of the block for counter i / 4. (XORWOW and
// MRG32k3a start their engines from skip-ahead tables that are device
// constants, which need the code object's data loaded: not here yet.)
// Exit 0: right; 2: a wrong number; 1: an API failure.
#include <hip/hip_runtime.h>
#include <rocrand/rocrand.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#define CHECK(call)                                                             \
	do {                                                                    \
		auto e_ = (call);                                               \
		if (e_ != 0) {                                                  \
			printf("%s = %d\n", #call, (int)e_);                    \
			exit(1);                                                \
		}                                                               \
	} while (0)

static void philox_block(uint64_t ctr, uint64_t seed, uint32_t out[4])
{
	uint32_t c[4] = { (uint32_t)ctr, (uint32_t)(ctr >> 32), 0, 0 };
	uint32_t k[2] = { (uint32_t)seed, (uint32_t)(seed >> 32) };

	for (int r = 0; r < 10; r++) {
		uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
		uint32_t n[4] = { (uint32_t)(p1 >> 32) ^ c[1] ^ k[0], (uint32_t)p1,
				  (uint32_t)(p0 >> 32) ^ c[3] ^ k[1], (uint32_t)p0 };

		memcpy(c, n, sizeof(c));
		k[0] += 0x9E3779B9u;
		k[1] += 0xBB67AE85u;
	}
	memcpy(out, c, sizeof(c));
}

static uint32_t philox_at(uint64_t i, uint64_t seed)
{
	uint32_t b[4];

	philox_block(i / 4, seed, b);
	return b[i % 4];
}

template <class T> static std::vector<T> generate(rocrand_generator g, size_t n,
						  rocrand_status (*fn)(rocrand_generator, T *, size_t))
{
	T *d;
	std::vector<T> h(n);

	CHECK(hipMalloc(&d, n * sizeof(T) + 16));
	CHECK(fn(g, d, n));
	CHECK(hipMemcpy(h.data(), d, n * sizeof(T), hipMemcpyDeviceToHost));
	CHECK(hipFree(d));
	return h;
}

static rocrand_status gen_u32(rocrand_generator g, unsigned *d, size_t n)
{
	return rocrand_generate(g, d, n);
}

static rocrand_status gen_f32(rocrand_generator g, float *d, size_t n)
{
	return rocrand_generate_uniform(g, d, n);
}

static rocrand_status gen_f16(rocrand_generator g, half *d, size_t n)
{
	return rocrand_generate_uniform_half(g, d, n);
}

static int philox(void)
{
	const uint64_t seed = 0x1234abcd5678ull;
	const size_t n = 100003;	/* not a multiple of 4: the tail path too */
	rocrand_generator g;

	CHECK(rocrand_create_generator(&g, ROCRAND_RNG_PSEUDO_PHILOX4_32_10));
	CHECK(rocrand_set_seed(g, seed));
	std::vector<unsigned> u = generate<unsigned>(g, n, gen_u32);
	CHECK(rocrand_destroy_generator(g));
	for (size_t i = 0; i < n; i++)
		if (u[i] != philox_at(i, seed)) {
			printf("philox u32 [%zu] = 0x%08x, want 0x%08x\n", i, u[i], philox_at(i, seed));
			return 2;
		}

	/* uniform floats: 2^-32 + x * 2^-32 (exact scaling, one rounding) */
	CHECK(rocrand_create_generator(&g, ROCRAND_RNG_PSEUDO_PHILOX4_32_10));
	CHECK(rocrand_set_seed(g, seed));
	std::vector<float> f = generate<float>(g, n, gen_f32);
	CHECK(rocrand_destroy_generator(g));
	for (size_t i = 0; i < n; i++) {
		float want = 0x1p-32f + (float)philox_at(i, seed) * 0x1p-32f;

		if (memcmp(&f[i], &want, 4)) {
			printf("philox uniform float [%zu] = %.9g, want %.9g\n", i, f[i], want);
			return 2;
		}
	}

	/* uniform halves: each 32-bit number gives two, low half first,
	 * 2^-16 + x * 2^-16 rounded to half */
	CHECK(rocrand_create_generator(&g, ROCRAND_RNG_PSEUDO_PHILOX4_32_10));
	CHECK(rocrand_set_seed(g, seed));
	std::vector<half> h = generate<half>(g, n, gen_f16);
	CHECK(rocrand_destroy_generator(g));
	for (size_t i = 0; i < n; i++) {
		uint32_t x = philox_at(i / 2, seed);
		uint16_t v = (uint16_t)(i % 2 ? x >> 16 : x), got, wb;
		_Float16 want = (_Float16)(0x1p-16f + (float)v * 0x1p-16f);

		memcpy(&got, &h[i], 2);
		memcpy(&wb, &want, 2);
		if (got != wb) {
			printf("philox uniform half [%zu] = 0x%04x, want 0x%04x\n", i, got, wb);
			return 2;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} parts[] = { { "philox", philox } };
	int bad = 0, ran = 0;

	for (auto &p : parts) {
		if (argc > 1 && strcmp(argv[1], p.name))
			continue;
		int b = p.fn();
		printf("%s %s\n", b ? "FAIL" : "ok", p.name);
		bad |= b;
		ran++;
	}
	if (!ran) {
		printf("no part named %s\n", argv[1]);
		return 1;
	}
	return bad ? 2 : 0;
}
