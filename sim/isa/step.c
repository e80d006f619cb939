/* SPDX-License-Identifier: MIT */
/*
 * step.c - one instruction of one wave (isa.h): the decoded instruction at
 * the wave's pc (the prepared program's slot, or decoded on the fly) runs
 * the handler its row named, bound at decode time.
 */
#include "isa.h"

int isa_exec_insn(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	uint64_t pc = w->pc;
	int err;

	w->insns++;
	/* past the instruction first: a branch's target is relative to it */
	w->pc = pc + 4u * in->words;
	err = in->fn(w, env, in);
	if (err)
		w->pc = pc;
	return err;
}

int isa_run_wave(struct isa_wave *w, const struct isa_env *env, uint64_t budget)
{
	const struct isa_insn *prog = env->prog;
	uint64_t i = 0, ran = 0;	/* ran: counted here, added to w->insns once */
	int err = 0;

	if (!prog) {
		for (; i < budget && w->state == W_RUN && !w->yield; i++)
			if ((err = isa_step(w, env)))
				return err;
		return 0;
	}
	for (; i < budget && w->state == W_RUN && !w->yield; i++) {
		uint64_t pc = w->pc;
		const struct isa_insn *in;

		if ((pc >= env->code_size) | (pc % 4 != 0)) {
			err = -ISA_E_PC;
			break;
		}
		in = &prog[pc / 4];
		if (!in->fn) {
			/* a slot preparation did not reach (code entered through
			 * a function pointer): decoded where it runs */
			if ((err = isa_step(w, env)))
				break;
			continue;
		}
		ran++;
		w->pc = pc + 4u * in->words;
		err = in->fn(w, env, in);
		if (err) {
			w->pc = pc;
			break;
		}
	}
	w->insns += ran;
	return err;
}

int isa_step(struct isa_wave *w, const struct isa_env *env)
{
	struct isa_insn tmp;
	const struct isa_insn *in;

	if (w->pc >= env->code_size || w->pc % 4)
		return -ISA_E_PC;
	if (env->prog && env->prog[w->pc / 4].fn) {
		in = &env->prog[w->pc / 4];
	} else {
		/* not prepared: reached through a pointer (dispatch.c follows
		 * only the calls whose targets it can see) */
		if (isa_decode(env->code + w->pc, env->code_size - w->pc, &tmp))
			return -ISA_E_DECODE;
		in = &tmp;
	}
	if (!in->fn)
		return -ISA_E_DECODE;
	return isa_exec_insn(w, env, in);
}
