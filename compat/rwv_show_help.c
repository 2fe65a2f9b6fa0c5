/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
#include "opal_config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opal/util/output.h"
#include "opal/util/show_help.h"

#include "rwv_show_help.h"

#if RWV_HELP_COMPILED_IN

static const char rwv_dash_line[] = "--------------------------------------------------------------------------\n";

/* The text of [topic] in RWV_HELPDIR/file, comment lines dropped; NULL
 * when either is missing.  The caller frees it. */
static char *rwv_help_text (const char *file, const char *topic)
{
    char path[4096], line[1024], *text = NULL;
    size_t len = 0, tlen = strlen (topic);
    bool inside = false;
    FILE *f;

    snprintf (path, sizeof (path), "%s/%s", RWV_HELPDIR, file);
    if (NULL == (f = fopen (path, "r"))) {
        return NULL;
    }
    while (NULL != fgets (line, sizeof (line), f)) {
        if ('[' == line[0]) {
            if (inside) {
                break;
            }
            inside = 0 == strncmp (line + 1, topic, tlen) && ']' == line[1 + tlen];
            continue;
        }
        if (!inside || '#' == line[0]) {
            continue;
        }
        size_t n = strlen (line);
        char *grown = realloc (text, len + n + 1);
        if (NULL == grown) {
            break;
        }
        text = grown;
        memcpy (text + len, line, n + 1);
        len += n;
    }
    fclose (f);
    return inside ? text : (free (text), NULL);
}

int rwv_show_help (const char *file, const char *topic, int want_error_header, ...)
{
    char *text = rwv_help_text (file, topic), *format = NULL, *out = NULL;
    va_list ap;

    if (NULL == text) {
        opal_output (0, "ompi-rwv: help topic [%s] of %s not found in %s", topic, file, RWV_HELPDIR);
        return OPAL_ERR_NOT_FOUND;
    }
    if (0 > asprintf (&format, "%s%s%s", want_error_header ? rwv_dash_line : "", text,
                      want_error_header ? rwv_dash_line : "")) {
        free (text);
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    va_start (ap, want_error_header);
    if (0 > vasprintf (&out, format, ap)) {
        out = NULL;
    }
    va_end (ap);
    if (NULL != out) {
        opal_output (0, "%s", out);
    }
    free (out);
    free (format);
    free (text);
    return NULL == out ? OPAL_ERR_OUT_OF_RESOURCE : OPAL_SUCCESS;
}

void rwv_show_help_open (void)
{
}

#else

int rwv_show_help (const char *file, const char *topic, int want_error_header, ...)
{
    va_list ap;
    int rc;

    va_start (ap, want_error_header);
    rc = opal_show_vhelp (file, topic, want_error_header, ap);
    va_end (ap);
    return rc;
}

void rwv_show_help_open (void)
{
    opal_show_help_add_dir (RWV_HELPDIR);
}

#endif
