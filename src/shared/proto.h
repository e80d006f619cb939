/* SPDX-License-Identifier: MIT */
/*
 * proto.h - the checkpoint hook protocol (docs/protocol.md).
 *
 * One request line, one reply line, plain ASCII, the same over the debugfs file
 * of kernel/hipsvm.ko and over the simulator's UNIX socket. The caller is named
 * implicitly (the process that opened the file or connected); GPUs by index.
 *
 *   version                          ok version 2 hipsvm-hook
 *   gpus                             ok gpus n=4
 *   set <gpus> [<addr> <len>]        ok set 0=0x1f00 1=none ...
 *   drain <gpus> [<timeout_ms>]      ok drain 0=ok 1=timeout 2=nodev 3=skipped
 *   clear <gpus>                     ok clear 0=cleared 1=kept
 *   drainclear <gpus> [<timeout_ms>] ok drainclear 0=ok 1=ok/cleared 2=timeout
 *                                    (version 2: drain, then clear each GPU
 *                                    given as N=TS whose drain passed)
 *   stats [<gpus>]                   ok stats key=value ... (per-GPU keys of <gpus>)
 *   log                              ok log <seq>:<op>:<gpu>[:<x>] ...
 *   inject <gpu> <ts|now> <addr> [r|w]   ok inject 0=0x2000   (test servers)
 *   ring <gpu> <ih0|ih1|soft> <on|off>   ok ring              (test servers)
 *
 *   <gpus> := all | <item>[,<item>...]   <item> := N | N-M | N=TS (clear and
 *             drainclear only: clear N only if its checkpoint is still TS;
 *             TS may be 0: a real timestamp at the wrap)
 *   numbers: decimal or 0x-prefixed hex, 64-bit, no sign.
 *   any failure: err <ERRNO-NAME> <detail>
 *
 * Input is bounded (HIPSVM_PROTO_MAX_REQ bytes, one line); anything else is
 * -EINVAL and changes nothing. No allocation, no stdio, no locale: this file is
 * compiled into the kernel module too, and the shim's client runs it inside the
 * munmap hook, where only async-signal-safe code may run.
 */
#ifndef HIPSVM_PROTO_H
#define HIPSVM_PROTO_H

#include "shared/compat.h"

/* 2: drainclear. A client sends it only to a server that says 2 or more. */
#define HIPSVM_PROTO_VERSION 2
#define HIPSVM_PROTO_VERSION_DRAINCLEAR 2
/* drain and drainclear: the wait per GPU when the request names none, and
 * the most a request may name (a drain is a wait, not a way to hang a
 * process: more is refused as malformed). */
#define HIPSVM_DRAIN_DEFAULT_MS 1000
#define HIPSVM_DRAIN_MAX_MS 600000
#define HIPSVM_PROTO_MAX_REQ 256
#define HIPSVM_PROTO_MAX_REPLY 4096
/* The most GPUs the project handles anywhere, defined once here: requests
 * and replies name GPU sets as 64-bit masks (struct hipsvm_cmd.gpus). The
 * shim's and the simulator's per-device tables are sized by it; the kernel
 * module allows fewer (kernel/hipsvm_kmod.h says why). */
#define HIPSVM_MAX_GPUS 64
#define HIPSVM_PROTO_MAX_TOKENS 96
/* Where the simulator serves this protocol: an abstract UNIX socket, %p its
 * pid (src/shim/outname.c expands it). The shim's hook client connects
 * there and the simulator's option table has it as its default; both see it
 * here. */
#define HIPSVM_HOOK_SIM_FMT "@hipsvm-sim.%p"

enum hipsvm_op {
	HIPSVM_OP_NONE = 0,
	HIPSVM_OP_VERSION,
	HIPSVM_OP_GPUS,
	HIPSVM_OP_SET,
	HIPSVM_OP_DRAIN,
	HIPSVM_OP_CLEAR,
	HIPSVM_OP_STATS,
	HIPSVM_OP_LOG,
	HIPSVM_OP_INJECT,
	HIPSVM_OP_RING,
	HIPSVM_OP_DRAINCLEAR,
};

enum hipsvm_ring_id { HIPSVM_RING_IH0 = 0, HIPSVM_RING_IH1 = 1, HIPSVM_RING_SOFT = 2 };

struct hipsvm_cmd {
	enum hipsvm_op op;
	uint64_t gpus;		/* bit per GPU index */
	bool all;		/* "all": gpus is every bit; the server masks it */
	uint64_t has_value;	/* clear, drainclear: bit per GPU given as N=TS */
	uint64_t value[HIPSVM_MAX_GPUS];
	bool has_range;		/* set: addr len given */
	uint64_t addr, len;	/* set range; inject address */
	bool has_timeout;
	uint32_t timeout_ms;	/* drain, drainclear */
	unsigned gpu;		/* inject, ring */
	bool ts_now;		/* inject: take the GPU's clock */
	uint64_t ts;		/* inject */
	bool write;		/* inject */
	enum hipsvm_ring_id ring;
	bool on;
};

/* Parses one request. 0, or -EINVAL (cmd then undefined: the caller must not
 * act on it). Accepts an optional trailing "\n" (and "\r\n"). */
int hipsvm_proto_parse(const char *buf, size_t len, struct hipsvm_cmd *cmd);

/* Writes cmd as a request line ending in "\n". Length, or -ENOSPC. */
int hipsvm_proto_format(const struct hipsvm_cmd *cmd, char *buf, size_t cap);

const char *hipsvm_op_name(enum hipsvm_op op);
const char *hipsvm_errno_name(int err);		/* "EINVAL" for -EINVAL or EINVAL */
int hipsvm_errno_from_name(const char *name, size_t len);	/* positive, 0 unknown */

/* A bounded writer for replies; overflow is sticky and reported by _end. */
struct hipsvm_out {
	char *buf;
	size_t cap;
	size_t len;
	bool overflow;
};
void hipsvm_out_init(struct hipsvm_out *o, char *buf, size_t cap);
void hipsvm_out_mem(struct hipsvm_out *o, const char *s, size_t n);
/* a string literal, its length known at compile time */
#define hipsvm_out_lit(o, lit) hipsvm_out_mem((o), "" lit, sizeof(lit) - 1)
void hipsvm_out_str(struct hipsvm_out *o, const char *s);
void hipsvm_out_u64(struct hipsvm_out *o, uint64_t v);
void hipsvm_out_hex(struct hipsvm_out *o, uint64_t v);
/* " key=value" with value in decimal */
void hipsvm_out_kv(struct hipsvm_out *o, const char *key, uint64_t v);
/* " N=", and " N=word" */
void hipsvm_out_gpu_key(struct hipsvm_out *o, unsigned gpu);
void hipsvm_out_gpu_word(struct hipsvm_out *o, unsigned gpu, const char *word);
/* The same for a word of n <= 8 bytes stored in 8 (padded): one copy */
void hipsvm_out_gpu_word8(struct hipsvm_out *o, unsigned gpu, const char word[8], size_t n);
/* Terminates with "\n" and NUL; the length, or -ENOSPC on overflow. */
int hipsvm_out_end(struct hipsvm_out *o);
/* "err NAME detail\n" in one go */
int hipsvm_proto_error(char *buf, size_t cap, int err, const char *detail);

/* A parsed reply, for clients. */
struct hipsvm_reply {
	int status;			/* 0 for "ok", -errno for "err" */
	char op[16];
	unsigned ntok;
	struct {
		char key[32];
		char val[32];		/* "" for a token without '=' */
	} tok[HIPSVM_PROTO_MAX_TOKENS];
	char detail[96];
};
int hipsvm_proto_parse_reply(const char *buf, size_t len, struct hipsvm_reply *r);

/* The same reply read in place, for the unmap hook's requests: no copy of
 * the tokens, nothing but the line itself to look at. open: 0 for "ok OP
 * ..." (*word the op, *status 0), 1 for "err NAME detail" (*status -errno,
 * *word the detail), -EINVAL for anything else; the line ends at the
 * first "\n" or NUL. next: the next token, split at its first '=' (an
 * empty value without one); false after the last. */
struct hipsvm_span {
	const char *p;
	size_t n;
};
struct hipsvm_reply_it {
	const char *buf;
	size_t i, end;
};
int hipsvm_reply_open(const char *buf, size_t len, struct hipsvm_reply_it *it,
		      struct hipsvm_span *word, int *status);
bool hipsvm_reply_next(struct hipsvm_reply_it *it, struct hipsvm_span *key,
		       struct hipsvm_span *val);
const char *hipsvm_reply_get(const struct hipsvm_reply *r, const char *key);
/* Parses a number as the protocol writes it. 0 or -EINVAL. */
int hipsvm_proto_u64(const char *s, size_t len, uint64_t *out);

#endif
