// example.h - what every example shares: error checks and "am I on the simulator?".
#ifndef HIPSVM_EXAMPLE_H
#define HIPSVM_EXAMPLE_H

#include <hip/hip_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

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

// On the simulator kernels are not executed: only their memory accesses are
// simulated (page faults included), so computed values stay as the host left them.
static inline void note_results(int mismatches)
{
	if (mismatches && on_simulator())
		printf("note: %d results differ: kernels do not compute on the simulated runtime,\n"
		       "      only their memory accesses (and page faults) are simulated.\n", mismatches);
	else if (mismatches)
		printf("error: %d results are wrong\n", mismatches);
	else
		printf("results are correct\n");
}

#endif
