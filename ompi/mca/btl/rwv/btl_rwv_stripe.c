/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Striping: a put or get split across the ready rails to a peer, in
 * proportion to each rail's bandwidth, with one completion callback after
 * the last piece.
 *
 * Bandwidth of a rail to a peer: the value given in btl_rwv_rail_bandwidth,
 * or else measured as the job runs: the bytes a rail to the peer delivered
 * over the time it had pieces outstanding, both fading with a time
 * constant of 250 ms of busy time (no windows: completions arrive in
 * bursts, and tbf lets a burst through after idling, so short windows
 * scatter by 50%).  The first estimate comes after 5 ms of busy time.  Pieces to a
 * multi-rail peer complete only once delivered (see btl_rwv_rail.h), so
 * that is the rail's real throughput, and the same completion keeps a
 * piece on one rail ahead of the PML's FIN on another.
 * All rails start equal: the first measurement of any rail to the peer
 * stands for those not measured yet, and a rail connected later starts
 * level with the best.  A rail left out of a transfer for being slow
 * gains 1% back each time, so one that has recovered is measured again.
 *
 * The pieces' own life (posted, completed, retried on another rail) is
 * the request engine's, in btl_rwv_rdma.c.
 * Layer: protocol (docs/layout.md).
 */
#include "opal_config.h"

#include <math.h>

#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_stripe.h"

#define MCA_BTL_RWV_MEASURE_MEMORY 0.25      /* seconds of busy time */
#define MCA_BTL_RWV_MEASURE_MIN_BUSY 0.005   /* before the first estimate */
#define MCA_BTL_RWV_MEASURE_MIN (64 * 1024)  /* fewer bytes measure latency, not bandwidth */
#define MCA_BTL_RWV_STRIPE_ALIGN 64

/* Rails left out for being slow creep back, until one is measured again. */
static void mca_btl_rwv_stripe_age (mca_btl_rwv_conn_t **left_out, int n, double slowest_kept)
{
    for (int i = 0 ; i < n ; ++i) {
        if (left_out[i]->rail->bandwidth <= 0 && left_out[i]->meter.bandwidth < slowest_kept) {
            left_out[i]->meter.bandwidth *= 1.01;
        }
    }
}

/* Microseconds the rail needs for what it already carries. */
static double mca_btl_rwv_backlog (const mca_btl_rwv_conn_t *conn)
{
    return (double) conn->meter.bytes_out / conn->meter.bandwidth;
}

/* Move the k rails that will be free soonest to the front (ties: the faster). */
static void mca_btl_rwv_stripe_soonest (mca_btl_rwv_conn_t **conns, int n, int k)
{
    for (int i = 0 ; i < k ; ++i) {
        int best = i;

        for (int j = i + 1 ; j < n ; ++j) {
            double dj = mca_btl_rwv_backlog (conns[j]), db = mca_btl_rwv_backlog (conns[best]);

            if (dj < db || (dj == db && conns[j]->meter.bandwidth > conns[best]->meter.bandwidth)) {
                best = j;
            }
        }
        mca_btl_rwv_conn_t *swap = conns[i];
        conns[i] = conns[best];
        conns[best] = swap;
    }
}

/* Shares of `size' over the first k rails such that each finishes at the
 * same time, counting what each already carries: a rail that delivers
 * slower than estimated keeps more outstanding and so gets less next
 * time.  False if a share falls under `min_piece'. */
static bool mca_btl_rwv_stripe_shares (mca_btl_rwv_conn_t **conns, int k, size_t size, size_t min_piece,
                                       size_t *lens)
{
    double bw = 0.0, out = 0.0, finish;
    size_t given = 0;

    for (int i = 0 ; i < k ; ++i) {
        bw += conns[i]->meter.bandwidth;
        out += (double) conns[i]->meter.bytes_out;
    }
    finish = ((double) size + out) / bw;
    for (int i = 0 ; i < k - 1 ; ++i) {
        double share = finish * conns[i]->meter.bandwidth - (double) conns[i]->meter.bytes_out;

        if (share < (double) min_piece) {
            return false;
        }
        lens[i] = (size_t) share & ~(size_t) (MCA_BTL_RWV_STRIPE_ALIGN - 1);
        given += lens[i];
    }
    if (given >= size || size - given < min_piece) {
        return false;
    }
    lens[k - 1] = size - given;
    return true;
}

/* Share `size' bytes among the rails that will be free soonest so that
 * all finish together (mca_btl_rwv_stripe_shares), with no share below
 * `min_piece': as many rails as that allows.  A transfer that fits one
 * rail goes to the one free soonest, so many small transfers still spread
 * over every rail, faster rails taking more.  Returns the number of rails
 * used, moved to the front. */
int mca_btl_rwv_stripe_plan (mca_btl_rwv_conn_t **conns, int n, size_t size, size_t min_piece, size_t *lens)
{
    int k = size / min_piece > (size_t) n ? n : (int) (size / min_piece);
    double slowest;

    for (k = k < 2 ? 1 : k ; k > 1 ; --k) {
        mca_btl_rwv_stripe_soonest (conns, n, k);
        if (mca_btl_rwv_stripe_shares (conns, k, size, min_piece, lens)) {
            break;
        }
    }
    if (1 == k) {
        mca_btl_rwv_stripe_soonest (conns, n, 1);
        lens[0] = size;
    }
    slowest = conns[0]->meter.bandwidth;
    for (int i = 1 ; i < k ; ++i) {
        slowest = conns[i]->meter.bandwidth < slowest ? conns[i]->meter.bandwidth : slowest;
    }
    mca_btl_rwv_stripe_age (conns + k, n - k, slowest);
    return k;
}

/* The first estimate of any rail to a peer also stands for its rails not
 * measured yet (they were still connecting, say): all rails start equal. */
static void mca_btl_rwv_conn_first_estimate (mca_btl_rwv_conn_t *conn, double estimate)
{
    mca_btl_rwv_endpoint_t *endpoint = conn->endpoint;

    for (int i = 0 ; i < endpoint->num_rails ; ++i) {
        mca_btl_rwv_conn_t *other = endpoint->conns[endpoint->rails[i]];

        if (NULL != other && !other->meter.measured) {
            other->meter.bandwidth = estimate;
        }
    }
    conn->meter.measured = true;
}

/* Called once the piece is counted in conn->pieces_out. */
void mca_btl_rwv_meter_busy (mca_btl_rwv_conn_t *conn, size_t bytes)
{
    conn->meter.bytes_out += bytes;
    if (1 == conn->pieces_out) {
        conn->meter.busy_since = mca_btl_rwv_now ();
    }
}

/* Bytes delivered and busy time, both fading with a time constant of
 * MCA_BTL_RWV_MEASURE_MEMORY of busy time: their ratio is the rail's rate. */
void mca_btl_rwv_meter_delivered (mca_btl_rwv_conn_t *conn, size_t posted, size_t bytes)
{
    double now = mca_btl_rwv_now (), busy = now - conn->meter.busy_since;
    double fade = exp (-busy / MCA_BTL_RWV_MEASURE_MEMORY);

    conn->meter.bytes_out -= posted;
    conn->meter.busy_since = now;
    conn->meter.bytes = conn->meter.bytes * fade + (double) bytes;
    conn->meter.busy = conn->meter.busy * fade + busy;
    if (conn->rail->bandwidth > 0 || conn->meter.busy < MCA_BTL_RWV_MEASURE_MIN_BUSY ||
        conn->meter.bytes < MCA_BTL_RWV_MEASURE_MIN) {
        return;
    }
    if (!conn->meter.measured) {
        mca_btl_rwv_conn_first_estimate (conn, conn->meter.bytes / (conn->meter.busy * 1e6));
    }
    conn->meter.bandwidth = conn->meter.bytes / (conn->meter.busy * 1e6);
}
