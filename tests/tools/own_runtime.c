/* A program that carries its own hipMalloc/hipFree (as a statically linked HIP
 * runtime would) and does not need libamdhip64: `hipsvm check` says not visible. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((visibility("default"), noinline)) int hipMalloc(void **p, size_t n)
{
	*p = malloc(n);
	return *p ? 0 : 2;
}

__attribute__((visibility("default"), noinline)) int hipFree(void *p)
{
	free(p);
	return 0;
}

int main(void)
{
	void *p;

	if (hipMalloc(&p, 64) == 0)
		hipFree(p);
	puts("own runtime");
	return 0;
}
