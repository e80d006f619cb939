/*
 * checkpoint.pml - the checkpoint protocol of docs/design.md (Checkpoints) (set / filter /
 * drain / clear) with one producer (a GPU raising retry faults into ih1), one
 * handler (the interrupt handler with the checkpoint filter) and one unmapper
 * (set, unmap, drain, clear); with -DTWO a second unmapper runs at the same
 * time. Checked with spin by scripts/test-model.
 *
 * Safety properties (asserts), for each unmapper U:
 *   STALE: no fault raised before U's set (a timestamp at or before the
 *          checkpoint U's set recorded) is handled after U's set.
 *   FRESH: no fault raised after U's unmap is dropped while only U's
 *          checkpoint can be in force (one unmapper).
 *   DRAIN: when U's drain returns, no fault raised before U's unmap is still
 *          waiting in the ring or being handled.
 * Timestamps are small integers without wrap (the 48-bit wrap belongs to
 * ts.h and its tests); the ring holds IVs in timestamp order, as the
 * hardware writes them. "Ring empty" is rptr == wptr: an IV the handler has
 * taken but not finished still counts (rptr is published after the pass).
 * Checkpoint 0 means none.
 *
 * Variants (-DVARIANT=n) that must FAIL, to show that the model sees the
 * bugs it is meant to exclude:
 *   1  the seed's prose: the filter drops faults at or AFTER the checkpoint
 *   2  the seed's drain: wait for processed >= the checkpoint the set
 *      recorded, instead of a fresh checkpoint from wptr (processed after
 *      it, or the ring empty)
 *   3  the checkpoint cleared before the drain
 *   4  (with -DTWO) an unmapper whose set found the ring empty ("none")
 *      still clears unconditionally: it wipes the other one's checkpoint
 *      (the bug scripts/test-stress found in hipsvm_hook_clear)
 */
#ifndef VARIANT
#define VARIANT 0
#endif
#ifdef TWO
#define NU 2
#else
#define NU 1
#endif
#define SLOTS 3		/* ring capacity */
#define FAULTS 6	/* faults the GPU raises */

chan ring = [SLOTS] of { byte, byte };	/* timestamp, unmaps done when raised (bits) */
byte clock = 1;		/* the GPU clock: next timestamp */
byte last = 0;		/* timestamp of the last IV written: decode_ts(wptr, -1) */
byte processed = 0;	/* processed_ts */
byte cp = 0;		/* checkpoint_ts of this GPU */
bit busy = 0;		/* the handler holds an IV it took from the ring */
byte unmapped = 0;	/* bit U: U's range is gone from the GPU and the CPU */
bit set_done[NU];
byte set_cp[NU];	/* what U's set recorded, 0 = none */
byte pending_old[NU];	/* IVs raised before U's unmap, not finished yet */

active proctype gpu()
{
	byte n = 0, u;

	do
	:: n < FAULTS ->
		atomic {
			ring!clock, unmapped;
			for (u : 0 .. NU - 1) {
				if
				:: !(unmapped & (1 << u)) -> pending_old[u]++
				:: else -> skip
				fi
			}
			last = clock; clock++; n++
		}
	:: n == FAULTS -> break
	od
}

active proctype handler()
{
	byte ts, done, u;

end:	do
	:: atomic { ring?ts, done; busy = 1 }
		atomic {
			if
#if VARIANT == 1
			:: cp != 0 && ts >= cp ->
#else
			:: cp != 0 && ts <= cp ->
#endif
#ifndef TWO
				assert(!done);				/* FRESH */
#endif
				skip
			:: else ->
				if
				:: cp != 0 -> cp = 0	/* a newer fault clears it */
				:: else -> skip
				fi;
				for (u : 0 .. NU - 1) {
					assert(!(set_done[u] && ts <= set_cp[u]))	/* STALE */
				}
			fi;
			if
			:: ts > processed -> processed = ts
			:: else -> skip
			fi;
			for (u : 0 .. NU - 1) {
				if
				:: !(done & (1 << u)) -> pending_old[u]--
				:: else -> skip
				fi
			}
			busy = 0
		}
	od
}

proctype unmapper(byte me)
{
	byte fresh_cp;

	/* let some faults be raised first, or none */
	if
	:: skip
	:: clock > 2
	:: clock > 4
	fi;
	atomic {	/* set: the last IV of a ring that is not empty; forward only */
		if
		:: len(ring) > 0 || busy ->
			if
			:: cp == 0 || last > cp -> cp = last
			:: else -> skip
			fi;
			set_cp[me] = cp
		:: else -> set_cp[me] = 0	/* "none": nothing in flight */
		fi;
		set_done[me] = 1
	}
#if VARIANT == 3
	cp = 0;
#endif
	unmapped = unmapped | (1 << me);	/* from the GPUs, then the CPU */
	/* drain */
	fresh_cp = last;
#if VARIANT == 2
	(processed >= set_cp[me]);
#else
	((len(ring) == 0 && !busy) || processed > fresh_cp);
#endif
	assert(pending_old[me] == 0);				/* DRAIN */
	atomic {	/* clear */
		if
#if VARIANT == 4
		:: set_cp[me] == 0 -> cp = 0	/* unconditional */
#else
		:: set_cp[me] == 0 -> skip	/* nothing of ours to clear */
#endif
		:: set_cp[me] != 0 && cp == set_cp[me] -> cp = 0
		:: set_cp[me] != 0 && cp != set_cp[me] -> skip	/* "kept" */
		fi
	}
}

init
{
	byte u;

	atomic {
		for (u : 0 .. NU - 1) {
			run unmapper(u)
		}
	}
}
