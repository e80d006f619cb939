/* SPDX-License-Identifier: MIT */
/*
 * bench_graph.c - what graphs and capture cost on the simulator, for
 * callgrind's exact counts (docs/simulator.md, "Figures"):
 *   direct   1000 hipMemsetAsync on a stream (nothing capturing: the
 *            capture hook's cost is the difference to a build without it)
 *   capture  the same 1000 calls captured into a graph
 *   launch   that graph instantiated and launched once
 * Run: valgrind --tool=callgrind --toggle-collect=hipMemsetAsync \
 *        build/sim/bench_graph direct      (capture: the same toggle;
 *        launch: --toggle-collect=hipGraphLaunch)
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <string.h>

#define CALLS 1000

static int fills(hipStream_t s, void *d)
{
	for (int i = 0; i < CALLS; i++)
		if (hipMemsetAsync(d, 0, 4, s) != hipSuccess)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "direct";
	hipGraphExec_t x;
	hipStream_t s;
	hipGraph_t g;
	void *d;

	if (strcmp(mode, "direct") && strcmp(mode, "capture") && strcmp(mode, "launch")) {
		fprintf(stderr, "usage: bench_graph [direct|capture|launch]\n");
		return 2;
	}
	if (hipMalloc(&d, 64) != hipSuccess || hipStreamCreate(&s) != hipSuccess)
		return 1;
	if (!strcmp(mode, "direct")) {
		if (fills(s, d))
			return 1;
	} else {
		if (hipStreamBeginCapture(s, hipStreamCaptureModeGlobal) != hipSuccess ||
		    fills(s, d) || hipStreamEndCapture(s, &g) != hipSuccess)
			return 1;
		if (!strcmp(mode, "launch") &&
		    (hipGraphInstantiate(&x, g, NULL, NULL, 0) != hipSuccess ||
		     hipGraphLaunch(x, s) != hipSuccess))
			return 1;
	}
	if (hipStreamSynchronize(s) != hipSuccess)
		return 1;
	printf("%s: %d fills\n", mode, CALLS);
	return 0;
}
