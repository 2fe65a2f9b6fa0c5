/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Records which functions of btl/rwv call which, between walk_on() and
 * walk_off(): gcc's -finstrument-functions calls the two hooks below on
 * every entry and exit of an instrumented function.  A call counts only
 * when both caller and callee are in mca_btl_rwv.so (ob1 and the
 * libraries are left out).  Used by count_walk.sh.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NO_HOOK __attribute__((no_instrument_function))
#define MAX_DEPTH 4096
#define MAX_CALLS 65536

static int recording;
static uintptr_t so_start, so_end;
static uintptr_t stack[MAX_DEPTH];
static int depth;
static struct { uintptr_t caller, callee; } calls[MAX_CALLS];
static int num_calls;

void walk_on (void) NO_HOOK;
void walk_off (const char *path) NO_HOOK;
void __cyg_profile_func_enter (void *fn, void *site) NO_HOOK;
void __cyg_profile_func_exit (void *fn, void *site) NO_HOOK;

static uintptr_t NO_HOOK mapping_end (const char *file)
{
    FILE *maps = fopen ("/proc/self/maps", "r");
    char line[1024];
    uintptr_t lo, hi, end = 0;

    while (maps && fgets (line, sizeof (line), maps)) {
        if (strstr (line, file) && 2 == sscanf (line, "%lx-%lx", &lo, &hi) && hi > end) {
            end = hi;
        }
    }
    if (maps) {
        fclose (maps);
    }
    return end;
}

static int NO_HOOK in_rwv (void *p)
{
    return (uintptr_t) p >= so_start && (uintptr_t) p < so_end;
}

static void NO_HOOK remember (uintptr_t caller, uintptr_t callee)
{
    for (int i = 0 ; i < num_calls ; ++i) {
        if (calls[i].caller == caller && calls[i].callee == callee) {
            return;
        }
    }
    if (num_calls < MAX_CALLS) {
        calls[num_calls].caller = caller;
        calls[num_calls++].callee = callee;
    }
}

void walk_on (void)
{
    recording = 1;
    depth = 0;
}

/* One line per distinct call: caller and callee as offsets into the .so. */
void walk_off (const char *path)
{
    FILE *out = fopen (path, "w");

    recording = 0;
    for (int i = 0 ; out && i < num_calls ; ++i) {
        fprintf (out, "%lx %lx\n", calls[i].caller, calls[i].callee);
    }
    if (out) {
        fclose (out);
    }
}

void __cyg_profile_func_enter (void *fn, void *site)
{
    Dl_info info;

    if (!recording) {
        return;
    }
    if (0 == so_start) {
        if (!dladdr (fn, &info) || !strstr (info.dli_fname, "mca_btl_rwv")) {
            return;
        }
        so_start = (uintptr_t) info.dli_fbase;
        so_end = mapping_end (info.dli_fname);
    }
    if (!in_rwv (fn)) {
        return;
    }
    if (in_rwv (site) && depth > 0) {
        remember (stack[depth - 1], (uintptr_t) fn - so_start);
    }
    if (depth < MAX_DEPTH) {
        stack[depth] = (uintptr_t) fn - so_start;
    }
    depth++;
}

void __cyg_profile_func_exit (void *fn, void *site)
{
    (void) site;
    if (recording && 0 != so_start && in_rwv (fn) && depth > 0) {
        depth--;
    }
}
