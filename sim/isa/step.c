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

/*
 * The prepared program runs in straight lines: after a plain instruction
 * (isa.h) the next slot is taken without the checks, which only a branch,
 * a barrier, s_sleep or s_endpgm can make fail (pc out of the code, the
 * wave stopped or yielding). A plain instruction's fold no-ops are counted
 * as executed and stepped over, unless the budget ends inside them (then
 * they run one by one, so the wave leaves at the same instruction).
 */
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
	while (i < budget && w->state == W_RUN && !w->yield) {
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
			i++;
			if ((err = isa_step(w, env)))
				break;
			continue;
		}
		/* the straight run: left counts down what the budget allows */
		uint64_t left = budget - i, left0 = left;

		if (!in->plain) {
			left--;
			w->pc = pc + 4u * in->words;
			err = in->fn(w, env, in);
			if (err)
				w->pc = pc;
		} else {
			for (;;) {
				const struct isa_insn *nx;
				unsigned f;

				left--;
				w->pc = in->end;
				err = in->fn(w, env, in);
				if (__builtin_expect(err != 0, 0)) {
					w->pc = in->end - 4u * in->words;
					break;
				}
				f = in->fold;
				nx = in->next;
				if (__builtin_expect(left <= f, 0)) {
					/* the budget ends in the no-ops: stepped over
					 * when they end it exactly, else one by one */
					if (left == f) {
						w->pc = in->end + 4u * f;
						left = 0;
					}
					break;
				}
				left -= f;
				if (!nx->fn) {
					/* within the code: a plain instruction's end is
					 * at most code_size, whose slot (one past the
					 * last) is empty */
					w->pc = in->end + 4u * f;
					break;
				}
				in = nx;
				if (__builtin_expect(!in->plain, 0)) {
					left--;
					pc = in->end - 4u * in->words;
					w->pc = in->end;
					err = in->fn(w, env, in);
					if (err)
						w->pc = pc;
					break;
				}
			}
		}
		ran += left0 - left;
		i += left0 - left;
		if (err)
			break;
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
