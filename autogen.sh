#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Regenerate the build system (needs autoconf, automake, libtool, pkg-config).
set -e
cd "$(dirname "$0")"
autoreconf -fi
