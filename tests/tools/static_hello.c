/* A statically linked program: `hipsvm check` must say LD_PRELOAD cannot reach it. */
#include <stdio.h>

int main(void)
{
	puts("hello from a static binary");
	return 0;
}
