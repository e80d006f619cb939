/* libhipwrap.so: a library that calls HIP for its program (as a framework does). */
#include <hip/hip_runtime_api.h>

__attribute__((visibility("default"))) int wrap_alloc(void **p, size_t n)
{
	return hipMalloc(p, n) == hipSuccess ? 0 : -1;
}
