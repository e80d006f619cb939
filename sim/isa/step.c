/* SPDX-License-Identifier: MIT */
/*
 * step.c - one instruction of one wave (isa.h): the decoded instruction at
 * the wave's pc (the prepared program's slot, or decoded on the fly) runs
 * the handler its row named, bound at decode time.
 */
#include "isa.h"

#include <string.h>

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

/* 64-bit words at p, n of them, into a hash: four independent chains (the
 * multiplies overlap), folded at the end. Not for an adversary: a
 * collision makes a wave that progresses look like one that spins, which
 * costs a pause (dispatch.c), never an answer. */
static uint64_t hash_words(const void *p, size_t n, uint64_t seed)
{
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	uint64_t h[4] = { seed, seed ^ 0x6a09e667f3bcc909ull, seed ^ 0xbb67ae8584caa73bull,
			  seed ^ 0x3c6ef372fe94f82bull };
	const uint8_t *b = p;
	size_t i = 0;

	for (; i + 4 <= n; i += 4)
		for (unsigned j = 0; j < 4; j++) {
			uint64_t x;

			memcpy(&x, b + 8 * (i + j), 8);
			h[j] = (h[j] ^ x) * k;
			h[j] ^= h[j] >> 32;
		}
	for (; i < n; i++) {
		uint64_t x;

		memcpy(&x, b + 8 * i, 8);
		h[0] = ((h[0] ^ x) * k) ^ (h[0] >> 29);
	}
	for (unsigned j = 1; j < 4; j++)
		h[0] = (h[0] ^ (h[j] + (h[0] << 6) + (h[0] >> 2))) * k;
	return h[0] ^ h[0] >> 31;
}

static uint64_t sgpr_hash(const struct isa_wave *w)
{
	return hash_words(w->s, sizeof(w->s) / 8, w->pc * 2 + w->scc);
}

static uint64_t vgpr_hash(const struct isa_wave *w, const struct isa_env *env)
{
	uint64_t h = hash_words(w->v, (size_t)env->nvgpr * ISA_LANES / 2, 1);

	return env->nagpr ? hash_words(w->acc, (size_t)env->nagpr * ISA_LANES / 2, h) : h;
}

/* No spin this turn: the next 2^skip turns (2 to 64) go unwatched. */
static void no_spin(struct isa_spin *sp)
{
	if (sp->skip < 6)
		sp->skip++;
	sp->wait = (uint8_t)(1u << sp->skip);
}

/* The state to compare the next arrival with. A turn anchors a few times
 * at most: when the last try is used, a wave that stores on every pass, or
 * goes through loop after loop, is no spin for now (the anchor stays, for a
 * later turn to compare with). */
static void anchor(struct isa_spin *sp, const struct isa_wave *w, uint64_t jump, uint64_t sh)
{
	sp->head = w->pc;
	sp->tail = jump;
	sp->shash = sh;
	sp->events = w->events;
	sp->stage = 1;
	sp->flags &= (uint8_t)~SPIN_SPUN;
	if (!--sp->tries)
		no_spin(sp);
}

/*
 * The wave has come to w->pc by a jump back (from jump): is it where it
 * was, as it was? Only if it is at the anchor's pc with no event since,
 * its SGPRs as they were and then, from the arrival after that on, its
 * VGPRs too. A repeat ends the run (true). Otherwise the wave is anchored
 * here afresh, a few times a turn; but a loop that came back changed
 * without ever repeating progresses, and is left unwatched for a while
 * (isa_spin_next), which keeps a long loop that stores nothing from paying
 * for the hashes.
 */
static __attribute__((noinline)) bool isa_spin_arrive(struct isa_wave *w,
						      const struct isa_env *env, uint64_t jump)
{
	struct isa_spin *sp = &w->spin;
	uint64_t sh;

	if (w->state != W_RUN)
		return false;
	sh = sgpr_hash(w);
	if (!sp->stage || w->pc != sp->head || w->events != sp->events) {
		anchor(sp, w, jump, sh);
		return false;
	}
	if (sh == sp->shash) {
		uint64_t vh = vgpr_hash(w, env);

		if (sp->stage == 1) {
			sp->vhash = vh;
			sp->stage = 2;
			return false;
		}
		if (vh == sp->vhash) {
			if (!(sp->flags & SPIN_SPUN))
				sp->detected++;
			sp->flags |= SPIN_SEEN | SPIN_SPUN;
			sp->skip = 0;
			if (jump > sp->tail)
				sp->tail = jump;
			return true;
		}
	}
	/* came back changed: a loop that progresses, unless the wave has spun
	 * before (a spin whose memory changed, which may spin on the new
	 * value: hip-tests' round robins wait for one value after another) */
	if (!(sp->flags & SPIN_SEEN)) {
		no_spin(sp);
		sp->tries = 0;
		sp->stage = 0;
		return false;
	}
	anchor(sp, w, jump, sh);
	return false;
}

/*
 * The prepared program runs in straight lines: after a plain instruction
 * (isa.h) the next slot is taken without the checks, which only a branch,
 * a barrier, s_sleep or s_endpgm can make fail (pc out of the code, the
 * wave stopped or yielding). A plain instruction's fold no-ops are counted
 * as executed and stepped over, unless the budget ends inside them (then
 * they run one by one, so the wave leaves at the same instruction).
 */
static inline __attribute__((always_inline)) int run(struct isa_wave *w, const struct isa_env *env,
						     uint64_t budget, const bool watch)
{
	const struct isa_insn *prog = env->prog;
	uint64_t i = 0, ran = 0;	/* ran: counted here, added to w->insns once */
	int err = 0;
	bool hit = false;

	if (!prog) {
		for (; i < budget && w->state == W_RUN && !w->yield; i++) {
			uint64_t at = w->pc;

			if ((err = isa_step(w, env)))
				return err;
			/* not looked at: as if each were an event */
			w->events += watch;
			if (watch && w->pc <= at && w->spin.tries &&
			    (isa_spin_arrive(w, env, at) || !w->spin.tries))
				break;
		}
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
			w->events += watch;
			if (watch && w->pc <= pc && w->spin.tries &&
			    (isa_spin_arrive(w, env, pc) || !w->spin.tries))
				break;
			continue;
		}
		/* the straight run: left counts down what the budget allows */
		uint64_t left = budget - i, left0 = left;

		if (!in->plain) {
			left--;
			w->pc = pc + 4u * in->words;
			if (watch)
				w->events += in->event;
			err = in->fn(w, env, in);
			if (err)
				w->pc = pc;
			else if (watch && w->pc <= pc && w->spin.tries)
				hit = isa_spin_arrive(w, env, pc);
		} else {
			for (;;) {
				const struct isa_insn *nx;
				unsigned f;

				left--;
				w->pc = in->end;
				if (watch)
					w->events += in->event;
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
					if (watch)
						w->events += in->event;
					err = in->fn(w, env, in);
					if (err)
						w->pc = pc;
					else if (watch && w->pc <= pc && w->spin.tries)
						hit = isa_spin_arrive(w, env, pc);
					break;
				}
			}
		}
		ran += left0 - left;
		i += left0 - left;
		/* a repeat ends the run; a verdict that it is no spin ends the
		 * watching (isa_run_wave_watch goes on unwatched) */
		if (err || (watch && (hit || !w->spin.tries)))
			break;
	}
	w->insns += ran;
	return err;
}

int isa_run_wave(struct isa_wave *w, const struct isa_env *env, uint64_t budget)
{
	return run(w, env, budget, false);
}

int isa_run_wave_watch(struct isa_wave *w, const struct isa_env *env, uint64_t budget)
{
	uint64_t insns = w->insns;
	int err = run(w, env, budget, true);

	/* no repeat to end the turn at, and the watching given up: the rest
	 * of the quantum at full speed */
	if (!err && !w->spin.tries && w->insns - insns < budget)
		err = run(w, env, budget - (w->insns - insns), false);
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
