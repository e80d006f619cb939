/* SPDX-License-Identifier: MIT */
/*
 * ops.c - the opcode table (ops.def) as data: the rows, the decoder's
 * index from (format, opcode) to row, names for messages, and the error
 * sentences.
 *
 * The index is written with designated initializers from the same rows,
 * so two rows with one (format, opcode) are a compile error
 * (-Woverride-init, on with -Wextra) rather than a silent shadow.
 */
#include "isa.h"

#include <stdio.h>

/* ops.def's formats in the decoder's numbering: the VOP space is VOP3's */
#define ISA_FMT_SOP1 F_SOP1
#define ISA_FMT_SOP2 F_SOP2
#define ISA_FMT_SOPC F_SOPC
#define ISA_FMT_SOPK F_SOPK
#define ISA_FMT_SOPP F_SOPP
#define ISA_FMT_SMEM F_SMEM
#define ISA_FMT_VOP F_VOP3
#define ISA_FMT_VOP3P F_VOP3P
#define ISA_FMT_FLAT F_FLAT
#define ISA_FMT_MUBUF F_MUBUF
#define ISA_FMT_DS F_DS
#define ISA_FMT_MIMG F_MIMG

enum {
	R_NONE,
#define ROW(fmt, op, name, ty, fl, h) R_##name,
#include "ops.def"
#undef ROW
	R_COUNT
};

const struct isa_opdef isa_ops[] = {
	[R_NONE] = { 0, 0, 0, 0, "?", NULL },
#define ROW(fmt, op, name, ty, fl, h) [R_##name] = { ISA_FMT_##fmt, op, ty, fl, #name, isa_h_##h },
#include "ops.def"
#undef ROW
};

const unsigned isa_nops = R_COUNT;

/* opcodes are below 1024 in every format (VOP3's 10 bits are the widest) */
static const uint16_t index_[F_COUNT][1024] = {
#define ROW(fmt, op, name, ty, fl, h) [ISA_FMT_##fmt][op] = R_##name,
#include "ops.def"
#undef ROW
};

unsigned isa_row(unsigned fmt, unsigned op)
{
	if (fmt >= F_COUNT || op >= 1024)
		return 0;
	return index_[fmt][op];
}

bool isa_supported(const struct isa_insn *in)
{
	return in->fn != NULL;
}

void isa_describe(const struct isa_insn *in, char *buf, size_t len)
{
	static const char *const fmts[] = {
		"?", "SOP2", "SOPK", "SOP1", "SOPC", "SOPP", "SMEM", "VOP2", "VOP1", "VOPC",
		"VOP3", "VOP3P", "DS", "FLAT", "MUBUF", "MIMG",
	};
	static const char *const segs[] = { "flat_", "scratch_", "global_", "flat_" };
	const char *name;

	if (!in->row || in->row >= R_COUNT) {
		unsigned f = in->fmt < sizeof(fmts) / sizeof(fmts[0]) ? in->fmt : 0;
		/* VOP1/VOP2/VOPC keep the VOP3 numbering: say theirs */
		unsigned op = in->fmt == F_VOP2 ? in->op - 0x100u :
			      in->fmt == F_VOP1 ? in->op - 0x140u : in->op;

		snprintf(buf, len, "%s opcode 0x%x", fmts[f], op);
		return;
	}
	name = isa_ops[in->row].name;
	if (in->fmt == F_FLAT)
		snprintf(buf, len, "%s%s", segs[in->seg & 3], name + 5);
	else
		snprintf(buf, len, "%s%s", name,
			 in->ext == ISA_EXT_DPP ? "_dpp" : in->ext == ISA_EXT_SDWA ? "_sdwa" : "");
}

const char *isa_strerror(int err)
{
	switch (-err) {
	case ISA_OK: return "no error";
	case ISA_E_DECODE: return "an instruction the interpreter cannot run";
	case ISA_E_FAULT: return "a memory access fault";
	case ISA_E_PC: return "its program counter left its code";
	case ISA_E_ABORT: return "stopped";
	case ISA_E_LIMIT: return "more waves per workgroup than the interpreter runs";
	case ISA_E_NOMEM: return "out of memory";
	case ISA_E_LDS: return "it asks for more LDS than a workgroup has (64 KiB)";
	case ISA_E_SCRATCH: return "its scratch (private segment) allocation failed";
	}
	return "unknown error";
}
