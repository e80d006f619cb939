/* Reaches libamdhip64 only through libhipwrap.so (found through its RUNPATH). */
#include <stdio.h>

int wrap_alloc(void **p, unsigned long n);

int main(void)
{
	void *p = NULL;

	printf("wrap_alloc: %d\n", wrap_alloc(&p, 4096));
	return 0;
}
