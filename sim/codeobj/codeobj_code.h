/* SPDX-License-Identifier: MIT */
/*
 * codeobj_code.h - a kernel's descriptor and machine code in an AMDGPU ELF.
 *
 * The descriptor is the 64-byte object "<name>.kd" (symbol tables .symtab or
 * .dynsym); its kernel_code_entry_byte_offset (signed, at +16) is relative
 * to the descriptor's own address. The code ends where the function symbol
 * "<name>" ends, or with its section. Every read is bounds-checked (the
 * parser is fuzzed); nothing is found in a malformed ELF. Never logs.
 * Included by codeobj.c only, as codeobj_read.h is (static helpers).
 */
#ifndef HIPSVM_SIM_CODEOBJ_CODE_H
#define HIPSVM_SIM_CODEOBJ_CODE_H

#include "codeobj.h"

#include "codeobj_read.h"

#define SHT_SYMTAB_	2
#define SHT_DYNSYM_	11
#define SHF_EXECINSTR_	4
#define STT_FUNC_	2

struct sec {
	uint32_t type, link;
	uint64_t flags, addr, off, size;
};

static inline bool read_sec(const struct buf *b, uint64_t shoff, uint16_t shentsize, uint64_t i,
		     struct sec *s)
{
	uint64_t e = shoff + i * shentsize;

	return rd32(b, e + 4, &s->type) && rd64(b, e + 8, &s->flags) && rd64(b, e + 16, &s->addr) &&
	       rd64(b, e + 24, &s->off) && rd64(b, e + 32, &s->size) && rd32(b, e + 40, &s->link);
}

/* The section of index shndx; false when out of range. */
static inline bool nth(const struct buf *b, uint64_t shoff, uint16_t shentsize, uint16_t shnum,
		uint64_t shndx, struct sec *s)
{
	return shndx < shnum && read_sec(b, shoff, shentsize, shndx, s);
}

static inline bool name_is(const struct buf *strtab, uint32_t off, const char *name, const char *suffix)
{
	size_t n = strlen(name), m = strlen(suffix);
	char c;

	for (size_t i = 0; i < n + m; i++) {
		if (!rd(strtab, (uint64_t)off + i, &c, 1) || c != (i < n ? name[i] : suffix[i - n]))
			return false;
	}
	return rd(strtab, (uint64_t)off + n + m, &c, 1) && c == 0;
}

/* Fills info->has_code, kd, code, code_size, code_vaddr from the ELF at
 * image (which must outlive info); leaves has_code false when absent. */
static inline void hipsvm_codeobj_find_code(const uint8_t *image, size_t size, const char *name,
			      struct hipsvm_kernel_info *info)
{
	struct buf b = { image, size };
	uint16_t shentsize = 0, shnum = 0;
	uint64_t shoff = 0, kd_addr = 0, fn_addr = 0, fn_size = 0;
	bool have_kd = false, have_fn = false;
	struct sec kd_sec = { 0 }, s, strs, code_sec = { 0 };
	int64_t entry_off;
	uint64_t entry, in_sec;

	info->has_code = false;
	if (!rd64(&b, 40, &shoff) || !rd(&b, 58, &shentsize, 2) || !rd(&b, 60, &shnum, 2))
		return;
	shentsize = le16toh(shentsize);
	shnum = le16toh(shnum);
	if (shentsize < 64)
		return;
	for (uint64_t i = 0; i < shnum && !(have_kd && have_fn); i++) {
		struct buf syms, strtab;

		if (!read_sec(&b, shoff, shentsize, i, &s) ||
		    (s.type != SHT_SYMTAB_ && s.type != SHT_DYNSYM_))
			continue;
		if (!nth(&b, shoff, shentsize, shnum, s.link, &strs) || !sub(&b, s.off, s.size, &syms) ||
		    !sub(&b, strs.off, strs.size, &strtab))
			continue;
		for (uint64_t off = 0; off + 24 <= syms.size; off += 24) {
			uint32_t st_name = 0;
			uint8_t st_info = 0;
			uint16_t shndx = 0;
			uint64_t value = 0, sz = 0;

			rd32(&syms, off, &st_name);
			rd(&syms, off + 4, &st_info, 1);
			rd(&syms, off + 6, &shndx, 2);
			rd64(&syms, off + 8, &value);
			rd64(&syms, off + 16, &sz);
			shndx = le16toh(shndx);
			if (!have_kd && sz == 64 && name_is(&strtab, st_name, name, ".kd") &&
			    nth(&b, shoff, shentsize, shnum, shndx, &kd_sec)) {
				have_kd = true;
				kd_addr = value;
			} else if (!have_fn && (st_info & 15) == STT_FUNC_ &&
				   name_is(&strtab, st_name, name, "")) {
				have_fn = true;
				fn_addr = value;
				fn_size = sz;
			}
		}
	}
	if (!have_kd || kd_addr < kd_sec.addr ||
	    !rd(&b, kd_sec.off + (kd_addr - kd_sec.addr), info->kd, 64))
		return;
	memcpy(&entry_off, info->kd + 16, 8);
	entry = kd_addr + (uint64_t)le64toh((uint64_t)entry_off);
	for (uint64_t i = 0; i < shnum; i++) {
		if (read_sec(&b, shoff, shentsize, i, &s) && (s.flags & SHF_EXECINSTR_) &&
		    entry >= s.addr && entry - s.addr < s.size) {
			code_sec = s;
			break;
		}
	}
	if (!code_sec.size)
		return;
	in_sec = entry - code_sec.addr;
	if (code_sec.off > size || code_sec.size > size - code_sec.off)
		return;
	info->code = image + code_sec.off + in_sec;
	info->code_size = code_sec.size - in_sec;
	if (have_fn && fn_addr == entry && fn_size && fn_size <= info->code_size)
		info->code_size = fn_size;
	info->code_vaddr = entry;
	info->text = image + code_sec.off;
	info->text_size = code_sec.size;
	info->text_vaddr = code_sec.addr;
	info->has_code = true;
}

#endif
