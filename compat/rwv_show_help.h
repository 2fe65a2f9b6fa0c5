/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * show_help for components installed beside Open MPI.  Up to 5.0 Open
 * MPI reads help files from directories, and a component adds its own;
 * 6.0 reads only the help texts compiled into its libraries, so a
 * component's own file is read here (rwv_show_help.c) and printed as
 * Open MPI would print it.
 */
#ifndef RWV_SHOW_HELP_H
#define RWV_SHOW_HELP_H

#include "opal_config.h"

/* once, when the component opens: where this project's help files are */
void rwv_show_help_open (void);

/* opal_show_help's arguments and return value */
int rwv_show_help (const char *file, const char *topic, int want_error_header, ...);

#endif
