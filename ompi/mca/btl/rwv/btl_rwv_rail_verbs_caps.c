/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * What a verbs rail's device can do, asked of the device itself (no table
 * of device names), and the rail fitted to it:
 *   transport    iWARP (RDMAP) has no immediate data, and the sink of an
 *                RDMA read must be registered for remote write (the read
 *                response is placed like a write under the sink's key)
 *   immediate    where the device has none, or btl_rwv_verbs_immediate is
 *                off, a zero-length send follows each ring write that must
 *                notify the receiver (btl_rwv_rail_verbs.c)
 *   queues       send and receive depths and the CQ clamped to the device;
 *                a receive stays posted for every slot of the largest ring
 *                a peer may write into, since iWARP has no receiver-not-
 *                ready retry
 *   inline       the most bytes a work request carries inline: queue pairs
 *                are only created, so a probe queue pair is tried from 128
 *                bytes down and the provider says what it granted
 *   reads        RDMA reads in flight (FETCH, RGET): at least one, and
 *                the device's limit up to MCA_BTL_RWV_VERBS_READS is offered
 *                to each peer
 *   atomics      reported only: rwv's atomics run on the target's CPU
 * Layer: transports (docs/layout.md).
 */
#include "opal_config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "opal/mca/btl/base/base.h"
#include "opal/util/output.h"
#include "opal/util/show_help.h"

#include "btl_rwv.h"
#include "btl_rwv_rail_verbs.h"

/* The most inline bytes a queue pair of this rail's shape can have: the
 * provider fills in what it granted, which may be more than asked. */
static int verbs_probe_inline (mca_btl_rwv_verbs_rail_t *rail, uint32_t *granted)
{
    for (uint32_t ask = MCA_BTL_RWV_VERBS_INLINE ; ; ask /= 2) {
        struct ibv_qp_init_attr attr = {
            .send_cq = rail->cq, .recv_cq = rail->cq, .qp_type = IBV_QPT_RC,
            .cap = {.max_send_wr = (uint32_t) rail->send_depth, .max_recv_wr = (uint32_t) rail->recv_depth,
                    .max_send_sge = 1, .max_recv_sge = 1, .max_inline_data = ask},
        };
        struct ibv_qp *qp = ibv_create_qp (rail->pd, &attr);

        if (NULL != qp) {
            *granted = attr.cap.max_inline_data < MCA_BTL_RWV_VERBS_INLINE ? attr.cap.max_inline_data
                                                                          : MCA_BTL_RWV_VERBS_INLINE;
            (void) ibv_destroy_qp (qp);
            return OPAL_SUCCESS;
        }
        if (0 == ask) {
            return OPAL_ERROR;
        }
    }
}

static void verbs_caps_refuse (const mca_btl_rwv_verbs_rail_t *rail, const char *missing, const char *fix)
{
    char device[96];

    snprintf (device, sizeof (device), "%s port %u", rail->device, rail->port);
    rwv_show_help ("help-mpi-btl-rwv.txt", "verbs device lacks", true, device, OPAL_PROC_MY_HOSTNAME,
                   missing, fix);
}

/* Depths within the device's limits; false (and the user told) where
 * what rwv needs does not fit. */
static bool verbs_caps_depths (mca_btl_rwv_verbs_rail_t *rail, const struct ibv_device_attr *attr)
{
    int slots = mca_btl_rwv_component.eager_slots;
    char missing[200], fix[160];

    /* at least a receive per slot; the spare ones only where the device has room */
    rail->recv_depth = slots > MCA_BTL_RWV_NOTIFY_RECVS ? slots : MCA_BTL_RWV_NOTIFY_RECVS;
    rail->recv_depth = attr->max_qp_wr < rail->recv_depth ? attr->max_qp_wr : rail->recv_depth;
    rail->send_depth = attr->max_qp_wr < MCA_BTL_RWV_VERBS_SEND_DEPTH ? attr->max_qp_wr
                                                                      : MCA_BTL_RWV_VERBS_SEND_DEPTH;
    rail->cq_depth = attr->max_cqe < MCA_BTL_RWV_VERBS_CQ_DEPTH ? attr->max_cqe : MCA_BTL_RWV_VERBS_CQ_DEPTH;
    if (attr->max_qp_wr < slots) {
        snprintf (missing, sizeof (missing), "it takes at most %d work requests per queue, and rwv keeps a "
                  "receive posted for each of the btl_rwv_eager_slots (%d) slots a peer may fill", attr->max_qp_wr,
                  slots);
        snprintf (fix, sizeof (fix), "Set btl_rwv_eager_slots to at most %d", attr->max_qp_wr);
        verbs_caps_refuse (rail, missing, fix);
        return false;
    }
    if (attr->max_qp_rd_atom < 1 || attr->max_qp_init_rd_atom < 1) {
        verbs_caps_refuse (rail, "it allows no RDMA read in flight (max_qp_rd_atom), and rwv reads large "
                           "messages and rendezvous data", "Use another port, or btl_rwv_backend ofi");
        return false;
    }
    rail->reads = attr->max_qp_rd_atom < attr->max_qp_init_rd_atom ? attr->max_qp_rd_atom : attr->max_qp_init_rd_atom;
    rail->reads = rail->reads < MCA_BTL_RWV_VERBS_READS ? rail->reads : MCA_BTL_RWV_VERBS_READS;
    return true;
}

/* A completion channel, for the connection thread to sleep on while the
 * application computes.  Every ring write notifies on these rails (writes
 * are not placed in order), so a peer's message or atomic request always
 * completes a receive here and wakes the thread.  Without one the rail
 * works as before; peers' messages wait for the next MPI call. */
static void verbs_caps_channel (mca_btl_rwv_verbs_rail_t *rail)
{
    if (!mca_btl_rwv_component.async_progress || !mca_btl_rwv_component.connection_thread) {
        return;
    }
    rail->comp = ibv_create_comp_channel (rail->context);
    if (NULL != rail->comp && 0 != fcntl (rail->comp->fd, F_SETFL, fcntl (rail->comp->fd, F_GETFL) | O_NONBLOCK)) {
        (void) ibv_destroy_comp_channel (rail->comp);
        rail->comp = NULL;
    }
    if (NULL == rail->comp) {
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                             "btl/rwv: verbs device %s port %u: no completion channel (%s): peers' messages to a "
                             "rank that computes wait for its next MPI call", rail->device, rail->port,
                             strerror (errno));
    }
}

static const char *verbs_transport_name (enum ibv_transport_type transport, uint8_t link_layer)
{
    if (IBV_TRANSPORT_IWARP == transport) {
        return "iWARP";
    }
    return IBV_LINK_LAYER_ETHERNET == link_layer ? "RoCE" : "InfiniBand";
}

int mca_btl_rwv_verbs_caps (mca_btl_rwv_verbs_rail_t *rail)
{
    struct ibv_device_attr attr;
    struct ibv_port_attr port;
    uint32_t inline_bytes = 0;

    if (0 != ibv_query_device (rail->context, &attr) || 0 != ibv_query_port (rail->context, rail->port, &port)) {
        return OPAL_ERROR;
    }
    rail->iwarp = IBV_TRANSPORT_IWARP == rail->context->device->transport_type;
    rail->immediate = !rail->iwarp && mca_btl_rwv_component.verbs_immediate;
    if (!verbs_caps_depths (rail, &attr)) {
        return OPAL_ERR_NOT_SUPPORTED;
    }
    verbs_caps_channel (rail);
    rail->cq = ibv_create_cq (rail->context, rail->cq_depth, NULL, rail->comp, 0);
    rail->recv_mr = ibv_reg_mr (rail->pd, &rail->recv_sink, sizeof (rail->recv_sink), IBV_ACCESS_LOCAL_WRITE);
    if (NULL == rail->cq || NULL == rail->recv_mr || OPAL_SUCCESS != verbs_probe_inline (rail, &inline_bytes)) {
        verbs_caps_refuse (rail, "rwv cannot create a reliable-connected queue pair on it",
                           "Check the device with ibv_devinfo -v, or use btl_rwv_backend ofi");
        return OPAL_ERR_NOT_SUPPORTED;
    }
    rail->inline_bytes = inline_bytes;
    opal_output_verbose (MCA_BASE_VERBOSE_INFO, opal_btl_base_framework.framework_output,
                         "btl/rwv: verbs device %s port %u: %s; %s; read sinks %s; %u bytes inline (asked %d); "
                         "%d SGEs (1 used); %s; queues of %d sends, %d receives, CQ %d; %d reads in flight",
                         rail->device, rail->port, verbs_transport_name (rail->context->device->transport_type,
                                                                         port.link_layer),
                         rail->immediate ? "ring writes carry immediate data"
                                         : rail->iwarp ? "no immediate data: a zero-length send follows each ring write"
                                                       : "immediate data off (btl_rwv_verbs_immediate): a zero-length "
                                                         "send follows each ring write",
                         rail->iwarp ? "registered for remote write (iWARP places read responses like writes)"
                                     : "local only",
                         inline_bytes, MCA_BTL_RWV_VERBS_INLINE, attr.max_sge,
                         IBV_ATOMIC_NONE == attr.atomic_cap ? "no device atomics (rwv's run on the target's CPU)"
                                                            : "device atomics unused (rwv's run on the target's CPU)",
                         rail->send_depth, rail->recv_depth, rail->cq_depth, rail->reads);
    return OPAL_SUCCESS;
}
