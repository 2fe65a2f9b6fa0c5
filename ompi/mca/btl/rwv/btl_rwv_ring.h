/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* Ring I/O: writes into a peer's ring and its tail (btl_rwv_ring.c). */
#ifndef MCA_BTL_RWV_RING_H
#define MCA_BTL_RWV_RING_H

#include <sys/uio.h>

#include "btl_rwv_conn.h"

BEGIN_C_DECLS

/* a small write into the peer's ring whose buffer is free on return */
int mca_btl_rwv_ring_inject (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, uint64_t raddr, bool with_imm,
                             uint32_t imm);
/* an 8-byte word of the peer's ring tail (credits, goodbye) */
int mca_btl_rwv_tail_inject (mca_btl_rwv_conn_t *conn, mca_btl_rwv_ring_tail_word_t word, const uint64_t *value);
/* a write into the peer's ring from registered memory, completing through OP */
int mca_btl_rwv_ring_write (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, void *desc, uint64_t raddr,
                            mca_btl_rwv_op_t *op);
/* the same from COUNT pieces of memory that need no registration */
int mca_btl_rwv_ring_write_gathered (mca_btl_rwv_conn_t *conn, const struct iovec *iov, int count, uint64_t raddr,
                                     mca_btl_rwv_op_t *op);
/* at finalize, before closing: the peer can tell our departure from our death */
void mca_btl_rwv_conn_say_goodbye (mca_btl_rwv_conn_t *conn);
/* a write done as a store: completed by progress (module->stored) */
void mca_btl_rwv_op_stored (mca_btl_rwv_op_t *op);
/* From progress: every op of OPS (module->stored, or module->reaped, the
 * completions the connection thread read) completed with its status;
 * returns how many */
int mca_btl_rwv_complete_ops (opal_list_t *ops);

END_C_DECLS

#endif /* MCA_BTL_RWV_RING_H */
