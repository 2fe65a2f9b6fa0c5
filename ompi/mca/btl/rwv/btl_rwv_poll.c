/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The polled set (btl_rwv_poll.h).
 * Layer: connections (docs/layout.md).
 */
#include "opal_config.h"

#include <stdlib.h>
#include <string.h>

#include "opal/sys/atomic.h"

#include "btl_rwv.h"
#include "btl_rwv_poll.h"

/* The polled list grows by doubling.  A progress pass in another thread
 * may still walk the list it replaces, so that one stays allocated, chained
 * from slot 0 of its successor, until finalize: at most as much again. */
int mca_btl_rwv_poll_add (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    if (module->num_polled == module->polled_size) {
        int size = module->polled_size ? 2 * module->polled_size : 16;
        mca_btl_rwv_conn_t **block = malloc ((size + 1) * sizeof (*block)), **list;

        if (NULL == block) {
            return OPAL_ERR_OUT_OF_RESOURCE;
        }
        list = block + 1;
        block[0] = NULL == module->polled ? NULL : (mca_btl_rwv_conn_t *) (module->polled - 1);
        if (module->num_polled) {
            memcpy (list, module->polled, module->num_polled * sizeof (*list));
        }
        opal_atomic_wmb (); /* the copy before the list, the list before its new length */
        module->polled = list;
        module->polled_size = size;
    }
    conn->poll_index = module->num_polled;
    conn->rail->num_polled++;
    module->polled[module->num_polled] = conn;
    opal_atomic_wmb ();
    module->num_polled++;
    return OPAL_SUCCESS;
}

/* The last one takes its place: a pass running meanwhile sees it twice at most. */
void mca_btl_rwv_poll_remove (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_conn_t *last = module->polled[module->num_polled - 1];

    module->polled[conn->poll_index] = last;
    last->poll_index = conn->poll_index;
    conn->poll_index = -1;
    conn->rail->num_polled--;
    opal_atomic_wmb ();
    module->num_polled--;
}

void mca_btl_rwv_poll_fini (void)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_conn_t **block = NULL == module->polled ? NULL : module->polled - 1;

    while (NULL != block) {
        mca_btl_rwv_conn_t **older = (mca_btl_rwv_conn_t **) block[0];

        free (block);
        block = older;
    }
    module->polled = NULL;
    module->num_polled = module->polled_size = 0;
}

void mca_btl_rwv_conn_remote_data (mca_btl_rwv_rail_t *rail, mca_btl_rwv_conn_t *from, uint32_t imm)
{
    mca_btl_rwv_conn_t *conn = opal_pointer_array_get_item (&mca_btl_rwv_component.module->conns, imm >> 16);

    /* the id is the writer's word: where the transport names the
     * connection, only that one; else one of this rail (a look at a ring
     * that holds nothing new costs nothing else) */
    if (NULL != conn && conn->rail == rail && (NULL == from || from == conn)) {
        mca_btl_rwv_conn_notified (conn);
    }
}

void mca_btl_rwv_conn_notified (mca_btl_rwv_conn_t *conn)
{
    conn->local.imm_seen++;
    if (conn->poll_index < 0) {
        /* a cold ring's arrival: only now does progress look at it */
        MCA_BTL_RWV_LOCK(mca_btl_rwv_component.module);
        (void) mca_btl_rwv_poll_want (conn);
        MCA_BTL_RWV_UNLOCK(mca_btl_rwv_component.module);
    }
}
