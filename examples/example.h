// example.h - what every example shares: error checks and "am I on the simulator?".
#ifndef HIPSVM_EXAMPLE_H
#define HIPSVM_EXAMPLE_H

#include <hip/hip_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Any failed HIP call ends the example with exit status 1 and the error's name.
#define CHECK(call)                                                                     \
	do {                                                                            \
		hipError_t e_ = (call);                                                 \
		if (e_ != hipSuccess) {                                                 \
			fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", __FILE__, __LINE__, \
				#call, hipGetErrorName(e_), (int)e_);                   \
			exit(1);                                                        \
		}                                                                       \
	} while (0)

// The simulated runtime (docs/simulator.md) exports hipsvmSim* entry points; a real
// ROCm runtime does not. Looked up at run time so the same binary runs on both.
static inline void *sim_symbol(const char *name)
{
	return dlsym(RTLD_DEFAULT, name);
}

static inline bool on_simulator(void)
{
	return sim_symbol("hipsvmSimGpuCount") != NULL;
}

// The simulator runs the kernels' machine code (docs/simulator.md), so results are
// checked there as on a GPU. HIPSVM_SIM_EXEC=touch selects the old model, in which
// kernels only touch their buffers and compute nothing: mismatches are expected then.
// Returns the exit status: 0, or 2 for wrong results.
static inline int note_results(int mismatches)
{
	const char *exec = getenv("HIPSVM_SIM_EXEC");

	if (mismatches && on_simulator() && exec && !strcmp(exec, "touch")) {
		printf("note: %d results differ: with HIPSVM_SIM_EXEC=touch kernels do not compute,\n"
		       "      only their memory accesses (and page faults) are simulated.\n", mismatches);
		return 0;
	}
	if (mismatches) {
		printf("error: %d results are wrong\n", mismatches);
		return 2;
	}
	printf("results are correct\n");
	return 0;
}

#endif
