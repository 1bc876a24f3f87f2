/* SPDX-License-Identifier: Apache-2.0 */
/* Array storage of shell variables: indexed (sparse) and associative. */
#ifndef SH_ARRAY_H
#define SH_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

#include "box_err.h"

/* Elements one array may hold (issue 19 item 5): a set past it is
 * BOX_ETOOBIG and the caller names the array. */
#define SH_ARRAY_MAX 100000u

/*
 * An indexed array keeps its elements sorted by index (bash's arrays are
 * sparse: `a[7]=x` leaves 0..6 unset). An associative array keeps them in
 * the order bash 5.2 lists them: bash hashes each key with FNV-1 into
 * one of 1024 buckets and lists bucket 0 first; a new key goes to the
 * front of its bucket. sh_array_at lists in that order, so ${!m[@]} and
 * declare -p match bash for maps under 2048 keys (bash grows its table
 * there and rehashes; past it the order may differ).
 */
typedef struct sh_array sh_array;

sh_array *sh_array_new(bool assoc);
sh_array *sh_array_dup(const sh_array *a); // NULL on ENOMEM
void sh_array_free(sh_array *a);           // NULL-safe
bool sh_array_assoc(const sh_array *a);
size_t sh_array_count(const sh_array *a);
/* Bytes held by keys and values (for the state's total cap). */
size_t sh_array_bytes(const sh_array *a);

/* Indexed: the element at index i (>= 0), NULL when unset. */
const char *sh_array_get(const sh_array *a, long long i);
/* The highest set index, -1 when empty. */
long long sh_array_max_index(const sh_array *a);
/* Sets a[i] (i >= 0) to a copy of v[0..n); BOX_ETOOBIG past the cap. */
box_err sh_array_set(sh_array *a, long long i, const char *v,
                     size_t n) BOX_WARN_UNUSED;
void sh_array_unset(sh_array *a, long long i);

/* Associative: m[key], NULL when unset. */
const char *sh_array_get_key(const sh_array *a, const char *key);
box_err sh_array_set_key(sh_array *a, const char *key, const char *v,
                         size_t n) BOX_WARN_UNUSED;
void sh_array_unset_key(sh_array *a, const char *key);

/* The k-th element in listing order (k < count): its value, and its key
 * (associative) or index (indexed; *key then NULL). */
const char *sh_array_at(const sh_array *a, size_t k, const char **key,
                        long long *index);

#endif
