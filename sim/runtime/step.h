/* SPDX-License-Identifier: MIT */
/*
 * step.h - what a subsystem does when the runtime initialises, and what it
 * gives up in a fork child. Each subsystem states its own steps next to the
 * state they touch (SIM_STEP in its file); state.c runs them without naming
 * any, so that the one-time initialisation imports nothing above it.
 *
 * sim_init runs every reset, then every start in the order of its rank (the
 * GPUs' fault handlers before the hook server, which talks to them). The
 * atfork child runs every abandon when the parent had initialised: the
 * parent's threads are gone and its locks may be held by threads that no
 * longer exist, so an abandon drops state without waiting for anything; the
 * child's first call then initialises afresh.
 */
#ifndef HIPSVM_SIM_STEP_H
#define HIPSVM_SIM_STEP_H

enum sim_step_rank {
	SIM_START_GPU = 1,	/* the GPUs, their rings and fault handlers */
	SIM_START_HOOK = 2,	/* the hook server: after the GPUs it serves */
	SIM_START_LAST = SIM_START_HOOK,
};

struct sim_step {
	const char *name;
	void (*reset)(void);	/* fresh locks and empty state; may be NULL */
	void (*start)(void);	/* after every reset, by rank; may be NULL */
	unsigned rank;
	void (*abandon)(void);	/* atfork child; may be NULL */
};

/* Registers a subsystem's steps: SIM_STEP(streams, .reset = streams_reset).
 * The linker gathers them in the section sim_steps (every object of the
 * runtime is linked whole, sim/meson.build). */
#define SIM_STEP(id, ...)							\
	static const struct sim_step sim_step_##id				\
	__attribute__((used, section("sim_steps"), aligned(sizeof(void *)))) =	\
		{ .name = #id, __VA_ARGS__ }

#endif
