/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* Rails' links watched, lost rails reported (btl_rwv_links.c). */
#ifndef MCA_BTL_RWV_LINKS_H
#define MCA_BTL_RWV_LINKS_H

BEGIN_C_DECLS

/* The periodic checks progress makes (every 1024th call): connections
 * waiting past their timeout, links, lost rails due for a report. */
void mca_btl_rwv_check_connections (double now);
/* every 100 ms at most: links gone down, given up, or back */
void mca_btl_rwv_check_links (double now);
/* the failed rails due for a report at `now' (HUGE_VAL at finalize: all of them) */
void mca_btl_rwv_report_lost_rails (double now);

END_C_DECLS

#endif /* MCA_BTL_RWV_LINKS_H */
