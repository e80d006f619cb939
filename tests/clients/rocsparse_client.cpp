// rocsparse_client: Debian's librocsparse as a real client of the
// simulator: y = alpha * A * x + beta * y with a CSR matrix (csrmv), in
// float and double, through the plain path and through the one prepared by
// csrmv_analysis (rocSPARSE's adaptive kernels), on a matrix whose rows
// range from empty to a few hundred entries, compared with a CPU reference
// computed in long double. The library's kernels (from its own gfx90a code
// object) use DPP reductions. Exit 0: right; 2: a wrong result; 1: an API
// failure. Prints the wall time of each part.
#include <hip/hip_runtime.h>
#include <rocsparse/rocsparse.h>

#include <chrono>
#include <math.h>
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

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;	/* fixed seed, printed */

static unsigned rnd(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(rng >> 33);
}

struct csr {
	int m, n;
	std::vector<int> ptr, col;
	std::vector<double> val;
};

static csr make(int m, int n)
{
	csr a;

	a.m = m;
	a.n = n;
	a.ptr.push_back(0);
	for (int r = 0; r < m; r++) {
		/* mostly short rows, some empty, a few long ones */
		int len = r % 97 == 0 ? 200 + (int)(rnd() % 300) : r % 13 == 0 ? 0 : (int)(rnd() % 12);
		int c = (int)(rnd() % 7);

		for (int k = 0; k < len && c < n; k++) {
			a.col.push_back(c);
			a.val.push_back(((int)(rnd() % 2001) - 1000) / 256.0);
			c += 1 + (int)(rnd() % (len > 50 ? 5 : 150));
		}
		a.ptr.push_back((int)a.col.size());
	}
	return a;
}

template <class T> static T *dev(const std::vector<T> &h)
{
	T *d;

	CHECK(hipMalloc(&d, h.size() * sizeof(T) + 1));
	CHECK(hipMemcpy(d, h.data(), h.size() * sizeof(T), hipMemcpyHostToDevice));
	return d;
}

static rocsparse_status csrmv(rocsparse_handle h, int m, int n, int nnz, const float *alpha,
			      rocsparse_mat_descr d, const float *val, const int *ptr, const int *col,
			      rocsparse_mat_info info, const float *x, const float *beta, float *y)
{
	return rocsparse_scsrmv(h, rocsparse_operation_none, m, n, nnz, alpha, d, val, ptr, col, info,
				x, beta, y);
}

static rocsparse_status csrmv(rocsparse_handle h, int m, int n, int nnz, const double *alpha,
			      rocsparse_mat_descr d, const double *val, const int *ptr,
			      const int *col, rocsparse_mat_info info, const double *x,
			      const double *beta, double *y)
{
	return rocsparse_dcsrmv(h, rocsparse_operation_none, m, n, nnz, alpha, d, val, ptr, col, info,
				x, beta, y);
}

static rocsparse_status analysis(rocsparse_handle h, int m, int n, int nnz,
				 rocsparse_mat_descr d, const float *val, const int *ptr,
				 const int *col, rocsparse_mat_info info)
{
	return rocsparse_scsrmv_analysis(h, rocsparse_operation_none, m, n, nnz, d, val, ptr, col, info);
}

static rocsparse_status analysis(rocsparse_handle h, int m, int n, int nnz,
				 rocsparse_mat_descr d, const double *val, const int *ptr,
				 const int *col, rocsparse_mat_info info)
{
	return rocsparse_dcsrmv_analysis(h, rocsparse_operation_none, m, n, nnz, d, val, ptr, col, info);
}

template <class T> static int run(const char *what, const csr &a, bool adaptive, double tol)
{
	int nnz = (int)a.col.size();
	std::vector<T> val(a.val.begin(), a.val.end()), x(a.n), y(a.m);
	const T alpha = (T)1.5, beta = (T)-0.5;
	rocsparse_handle h;
	rocsparse_mat_descr descr;
	rocsparse_mat_info info = nullptr;

	for (auto &v : x)
		v = (T)(((int)(rnd() % 201) - 100) / 64.0);
	for (auto &v : y)
		v = (T)(((int)(rnd() % 201) - 100) / 32.0);
	CHECK(rocsparse_create_handle(&h));
	CHECK(rocsparse_create_mat_descr(&descr));
	int *dptr = dev(a.ptr), *dcol = dev(a.col);
	T *dval = dev(val), *dx = dev(x), *dy = dev(y);
	if (adaptive) {
		CHECK(rocsparse_create_mat_info(&info));
		CHECK(analysis(h, a.m, a.n, nnz, descr, dval, dptr, dcol, info));
	}
	CHECK(csrmv(h, a.m, a.n, nnz, &alpha, descr, dval, dptr, dcol, info, dx, &beta, dy));
	std::vector<T> got(a.m);
	CHECK(hipMemcpy(got.data(), dy, a.m * sizeof(T), hipMemcpyDeviceToHost));
	int bad = 0;
	for (int r = 0; r < a.m && !bad; r++) {
		long double acc = 0, mag = fabsl((long double)beta * y[r]);

		for (int k = a.ptr[r]; k < a.ptr[r + 1]; k++) {
			acc += (long double)val[k] * x[a.col[k]];
			mag += fabsl((long double)alpha * val[k] * x[a.col[k]]);
		}
		long double want = (long double)alpha * acc + (long double)beta * y[r];

		/* the sum's order is the library's: bound by the magnitudes */
		if (fabsl(got[r] - want) > tol * (mag + 1)) {
			printf("%s: y[%d] = %.17g, want %.17Lg\n", what, r, (double)got[r], want);
			bad = 2;
		}
	}
	if (info)
		CHECK(rocsparse_destroy_mat_info(info));
	CHECK(rocsparse_destroy_mat_descr(descr));
	CHECK(rocsparse_destroy_handle(h));
	CHECK(hipFree(dptr));
	CHECK(hipFree(dcol));
	CHECK(hipFree(dval));
	CHECK(hipFree(dx));
	CHECK(hipFree(dy));
	return bad;
}

int main(void)
{
	printf("seed 0x%llx\n", rng);
	csr a = make(3000, 2500);
	int bad = 0;
	static const struct {
		const char *name;
		bool dbl, adaptive;
	} parts[] = {
		{ "scsrmv", false, false }, { "dcsrmv", true, false },
		{ "scsrmv adaptive", false, true }, { "dcsrmv adaptive", true, true },
	};

	printf("matrix %d x %d, %zu entries\n", a.m, a.n, a.col.size());
	for (auto &p : parts) {
		auto t0 = std::chrono::steady_clock::now();
		int b = p.dbl ? run<double>(p.name, a, p.adaptive, 1e-13) :
				run<float>(p.name, a, p.adaptive, 1e-5);
		double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

		printf("%s %s (%.2f s)\n", b ? "FAIL" : "ok", p.name, s);
		bad |= b;
	}
	return bad ? 2 : 0;
}
