/* SPDX-License-Identifier: Apache-2.0 */
/* box-contain: what a file is run through (ELF PT_INTERP, or a #! line). */
#include "contain_int.h"

#include <elf.h>
#include <string.h>
#include <unistd.h>

/* A header table larger than this is not a program we run. */
#define CT_ELF_MAX_PHNUM 4096

/* The first n bytes at off, or false. */
static bool
elf_read(int fd, void *buf, size_t n, off_t off)
{
    ssize_t got = pread(fd, buf, n, off);
    return got >= 0 && (size_t)got == n;
}

/* The interpreter string at [off, off + len): one NUL-terminated path. */
static ct_interp
elf_path(int fd, uint64_t off, uint64_t len, char *buf, size_t n)
{
    if (len < 2 || len > n || off > (uint64_t)INT64_MAX)
        return CT_INTERP_BAD;
    if (!elf_read(fd, buf, (size_t)len, (off_t)off))
        return CT_INTERP_BAD;
    if (memchr(buf, '\0', (size_t)len) != buf + len - 1 || buf[0] != '/')
        return CT_INTERP_BAD;
    return CT_INTERP_FOUND;
}

/* The program-header table of either class, as one shape. */
typedef struct elf_table {
    uint64_t et_off;
    unsigned et_num;
    bool et_64;
} elf_table;

static bool
elf_table_read(int fd, unsigned char cls, elf_table *t)
{
    if (cls == ELFCLASS64) {
        Elf64_Ehdr eh;
        if (!elf_read(fd, &eh, sizeof eh, 0) ||
            eh.e_phentsize != sizeof(Elf64_Phdr))
            return false;
        *t = (elf_table){eh.e_phoff, eh.e_phnum, true};
    } else if (cls == ELFCLASS32) {
        Elf32_Ehdr eh;
        if (!elf_read(fd, &eh, sizeof eh, 0) ||
            eh.e_phentsize != sizeof(Elf32_Phdr))
            return false;
        *t = (elf_table){eh.e_phoff, eh.e_phnum, false};
    } else {
        return false;
    }
    return t->et_num <= CT_ELF_MAX_PHNUM && t->et_off <= (uint64_t)INT32_MAX;
}

/* Entry i of the table: its type, and where its bytes lie in the file. */
static bool
elf_entry(int fd, const elf_table *t, unsigned i, uint32_t *type, uint64_t *off,
          uint64_t *len)
{
    if (t->et_64) {
        Elf64_Phdr ph;
        if (!elf_read(fd, &ph, sizeof ph, (off_t)(t->et_off + i * sizeof ph)))
            return false;
        *type = ph.p_type;
        *off = ph.p_offset;
        *len = ph.p_filesz;
    } else {
        Elf32_Phdr ph;
        if (!elf_read(fd, &ph, sizeof ph, (off_t)(t->et_off + i * sizeof ph)))
            return false;
        *type = ph.p_type;
        *off = ph.p_offset;
        *len = ph.p_filesz;
    }
    return true;
}

/*
 * The PT_INTERP entry, if any. The table is read one entry at a time, so
 * a hostile header makes us read at most CT_ELF_MAX_PHNUM entries.
 */
static ct_interp
elf_walk(int fd, unsigned char cls, char *buf, size_t n)
{
    elf_table t;
    uint32_t type;
    uint64_t off, len;

    if (!elf_table_read(fd, cls, &t))
        return CT_INTERP_BAD;
    for (unsigned i = 0; i < t.et_num; i++) {
        if (!elf_entry(fd, &t, i, &type, &off, &len))
            return CT_INTERP_BAD;
        if (type == PT_INTERP)
            return elf_path(fd, off, len, buf, n);
    }
    return CT_INTERP_NONE;
}

/* "#!" then optional blanks, then the interpreter's path up to a blank. */
static ct_interp
elf_shebang(const char *head, size_t len, char *buf, size_t n)
{
    size_t i = 2, k = 0;

    while (i < len && (head[i] == ' ' || head[i] == '\t'))
        i++;
    while (i < len && head[i] != ' ' && head[i] != '\t' && head[i] != '\n' &&
           head[i] != '\0' && k + 1 < n)
        buf[k++] = head[i++];
    buf[k] = '\0';
    return k > 0 && buf[0] == '/' ? CT_INTERP_SCRIPT : CT_INTERP_BAD;
}

ct_interp
ct_elf_interp(int fd, char *buf, size_t n)
{
    unsigned char ident[EI_NIDENT];
    char head[256];
    ssize_t got;
    const unsigned char native =
        __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;

    if (n < 2)
        return CT_INTERP_BAD;
    buf[0] = '\0';
    got = pread(fd, head, sizeof head, 0);
    if (got < 0)
        return CT_INTERP_BAD;
    if (got >= 2 && head[0] == '#' && head[1] == '!')
        return elf_shebang(head, (size_t)got, buf, n);
    if ((size_t)got < sizeof ident)
        return CT_INTERP_NONE;
    memcpy(ident, head, sizeof ident);
    if (memcmp(ident, ELFMAG, SELFMAG) != 0)
        return CT_INTERP_NONE;
    // A foreign byte order is not something this kernel runs natively.
    if (ident[EI_DATA] != native)
        return CT_INTERP_NONE;
    return elf_walk(fd, ident[EI_CLASS], buf, n);
}
