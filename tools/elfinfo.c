/* SPDX-License-Identifier: MIT */
/*
 * elfinfo.c - read program headers, the dynamic section and the symbol
 * tables of one file with libelf, once the file is known to hold together.
 */
#include "elfinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const hooked_names[H_COUNT] = {
	"hipMalloc", "hipFree", "hipMallocManaged", "hipHostMalloc", "hipHostFree",
	"hipMallocHost", "hipHostAlloc", "hipExtMallocWithFlags", "hipMallocPitch",
	"hipMallocAsync", "hipFreeAsync", "hipHostRegister", "hipHostUnregister",
	"hipGetProcAddress",
	"munmap", "mremap", "madvise", "mmap",
};

static int hooked_index(const char *name)
{
	int i;

	for (i = 0; i < H_COUNT; i++)
		if (strcmp(name, hooked_names[i]) == 0)
			return i;
	/* glibc's 64-bit alias of mmap is the same function for the shim */
	if (strcmp(name, "mmap64") == 0)
		return H_MMAP;
	return -1;
}

static void not_elf(int fd, char *msg, size_t cap)
{
	unsigned char head[4] = { 0 };
	ssize_t n = pread(fd, head, sizeof(head), 0);

	if (n >= 2 && head[0] == '#' && head[1] == '!')
		snprintf(msg, cap, "not an ELF file but a script: check the program its #! line runs");
	else if (n == 0)
		snprintf(msg, cap, "not an ELF file (empty)");
	else
		snprintf(msg, cap, "not an ELF file");
}

static void symbols(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct elfinfo *ei, bool dynsym)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n;
	GElf_Sym sym;

	if (!data || !sh->sh_entsize)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 1; i < n; i++) {
		const char *name;
		int h;
		bool undef;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		undef = sym.st_shndx == SHN_UNDEF;
		if (undef && !dynsym)
			continue;	/* .symtab repeats .dynsym's imports */
		h = hooked_index(name);
		if (undef) {
			if (h >= 0)
				ei->imports |= 1u << h;
			if (strncmp(name, "hip", 3) == 0)
				ei->hip_imports++;
			if (strcmp(name, "dlopen") == 0 || strcmp(name, "dlmopen") == 0)
				ei->imports_dlopen = true;
			if (strcmp(name, "dlsym") == 0 || strcmp(name, "dlvsym") == 0)
				ei->imports_dlsym = true;
		} else if (GELF_ST_TYPE(sym.st_info) == STT_FUNC) {
			if (h >= 0 && h < H_FIRST_LIBC)
				ei->defines |= 1u << h;
			if (strncmp(name, "hip", 3) == 0)
				ei->hip_defines++;
		}
	}
}

static void dynamic(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct elfinfo *ei)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n;
	GElf_Dyn dyn;

	if (!data || !sh->sh_entsize)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		const char *s;

		if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL)
			break;
		switch (dyn.d_tag) {
		case DT_NEEDED:
			s = elf_strptr(elf, sh->sh_link, dyn.d_un.d_val);
			if (s && ei->n_needed < ELFI_MAX_NEEDED)
				ei->needed[ei->n_needed++] = strdup(s);
			break;
		case DT_RPATH:
		case DT_RUNPATH:
		case DT_SONAME:
			s = elf_strptr(elf, sh->sh_link, dyn.d_un.d_val);
			if (!s)
				break;
			if (dyn.d_tag == DT_RPATH && !ei->rpath)
				ei->rpath = strdup(s);
			else if (dyn.d_tag == DT_RUNPATH && !ei->runpath)
				ei->runpath = strdup(s);
			else if (dyn.d_tag == DT_SONAME && !ei->soname)
				ei->soname = strdup(s);
			break;
		case DT_FLAGS_1:
			if (dyn.d_un.d_val & DF_1_PIE)
				ei->pie = true;
			break;
		default:
			break;
		}
	}
}

/* Whether [off, off + len) lies inside a file of size bytes. */
static bool inside(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* Every table and every segment or section with bytes in the file must lie
 * inside it: a file cut short (a copy interrupted, a download not finished)
 * is "truncated", one whose headers do not hold together "corrupt". Either
 * is an input error, never taken for a statically linked program. */
static int validate(Elf *elf, const GElf_Ehdr *eh, uint64_t size, char *msg, size_t cap)
{
	size_t phnum = 0, shnum = 0, i;
	Elf_Scn *scn = NULL;
	GElf_Phdr ph;
	GElf_Shdr sh;
	uint64_t end;

	/* The header's own counts first: libelf may read fewer from a short
	 * file. Past 0xffff they live in section 0, which libelf reads. */
	phnum = eh->e_phnum;
	shnum = eh->e_shnum;
	if ((phnum == PN_XNUM && elf_getphdrnum(elf, &phnum) != 0) ||
	    (shnum == 0 && eh->e_shoff && elf_getshdrnum(elf, &shnum) != 0)) {
		snprintf(msg, cap, "corrupt: the header counts cannot be read (%s)", elf_errmsg(-1));
		return -EINVAL;
	}
	if ((phnum && eh->e_phentsize != (gelf_getclass(elf) == ELFCLASS32 ? 32 : 56)) ||
	    (shnum && eh->e_shentsize != (gelf_getclass(elf) == ELFCLASS32 ? 40 : 64))) {
		snprintf(msg, cap, "corrupt: header entry sizes %u and %u are not those of this "
			 "ELF class", eh->e_phentsize, eh->e_shentsize);
		return -EINVAL;
	}
	end = eh->e_phoff + (uint64_t)phnum * eh->e_phentsize;
	if (phnum && !inside(eh->e_phoff, (uint64_t)phnum * eh->e_phentsize, size)) {
		snprintf(msg, cap, "truncated: the program headers end at byte %llu, the file "
			 "has %llu", (unsigned long long)end, (unsigned long long)size);
		return -EINVAL;
	}
	end = eh->e_shoff + (uint64_t)shnum * eh->e_shentsize;
	if (eh->e_shoff && shnum && !inside(eh->e_shoff, (uint64_t)shnum * eh->e_shentsize, size)) {
		snprintf(msg, cap, "truncated: the section headers end at byte %llu, the file "
			 "has %llu", (unsigned long long)end, (unsigned long long)size);
		return -EINVAL;
	}
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph)) {
			snprintf(msg, cap, "corrupt: program header %zu cannot be read (%s)", i,
				 elf_errmsg(-1));
			return -EINVAL;
		}
		if (!inside(ph.p_offset, ph.p_filesz, size)) {
			snprintf(msg, cap, "truncated: segment %zu ends at byte %llu, the file has %llu",
				 i, (unsigned long long)(ph.p_offset + ph.p_filesz),
				 (unsigned long long)size);
			return -EINVAL;
		}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh)) {
			snprintf(msg, cap, "corrupt: a section header cannot be read (%s)",
				 elf_errmsg(-1));
			return -EINVAL;
		}
		if (sh.sh_type != SHT_NOBITS && !inside(sh.sh_offset, sh.sh_size, size)) {
			snprintf(msg, cap, "truncated: section %zu ends at byte %llu, the file has %llu",
				 elf_ndxscn(scn), (unsigned long long)(sh.sh_offset + sh.sh_size),
				 (unsigned long long)size);
			return -EINVAL;
		}
	}
	return 0;
}

int elfinfo_read(const char *path, struct elfinfo *ei, char *msg, size_t msgcap)
{
	struct stat st;
	size_t phnum = 0, i;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	GElf_Phdr ph;
	Elf *elf;
	int fd, rc = 0;

	memset(ei, 0, sizeof(*ei));
	msg[0] = '\0';
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(msg, msgcap, "libelf is out of date");
		return -EINVAL;
	}
	/* Without blocking (a FIFO has no writer), and only a regular file:
	 * a FIFO, a device or a directory is not an ELF file to read. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		rc = -errno;
		snprintf(msg, msgcap, "%s", strerror(errno));
		return rc;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		snprintf(msg, msgcap, "%s", S_ISDIR(st.st_mode) ? "is a directory" :
			 "not a regular file (a FIFO or a device is not read)");
		close(fd);
		return rc;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		not_elf(fd, msg, msgcap);
		rc = -ENOEXEC;
		goto out;
	}
	if (!gelf_getehdr(elf, &eh)) {
		snprintf(msg, msgcap, "truncated or corrupt: the ELF header cannot be read (%s)",
			 elf_errmsg(-1));
		rc = -EINVAL;
		goto out;
	}
	if (fstat(fd, &st) != 0) {
		rc = -errno;
		snprintf(msg, msgcap, "%s", strerror(errno));
		goto out;
	}
	rc = validate(elf, &eh, (uint64_t)st.st_size, msg, msgcap);
	if (rc)
		goto out;
	ei->elf_class = gelf_getclass(elf) == ELFCLASS32 ? 32 : 64;
	ei->machine = eh.e_machine;
	ei->type = eh.e_type;
	if (elf_getphdrnum(elf, &phnum) != 0)
		phnum = 0;
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_DYNAMIC)
			ei->dynamic = true;
		if (ph.p_type == PT_INTERP) {
			size_t size = 0;
			char *raw = elf_rawfile(elf, &size);

			ei->interp = true;
			if (raw && ph.p_offset < size) {
				size_t n = ph.p_filesz < size - ph.p_offset ? ph.p_filesz : size - ph.p_offset;

				if (n >= sizeof(ei->interp_path))
					n = sizeof(ei->interp_path) - 1;
				memcpy(ei->interp_path, raw + ph.p_offset, n);
				ei->interp_path[n] = '\0';
			}
		}
	}
	ei->stripped = true;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNAMIC)
			dynamic(elf, scn, &sh, ei);
		else if (sh.sh_type == SHT_DYNSYM)
			symbols(elf, scn, &sh, ei, true);
		else if (sh.sh_type == SHT_SYMTAB) {
			ei->stripped = false;
			symbols(elf, scn, &sh, ei, false);
		}
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

void elfinfo_free(struct elfinfo *ei)
{
	size_t i;

	for (i = 0; i < ei->n_needed; i++)
		free(ei->needed[i]);
	free(ei->rpath);
	free(ei->runpath);
	free(ei->soname);
	memset(ei, 0, sizeof(*ei));
}
