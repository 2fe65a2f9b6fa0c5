/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Raw libfabric RMA-write bandwidth on one connected FI_EP_MSG endpoint:
 * the transport's own limit, with no MPI on top.  Debian ships no fabtests
 * besides fi_pingpong, so the benchmarks compare btl/rwv with this.
 *
 *   server:  bench_fi_rma_bw -s ADDR [-P port] [-p provider]
 *   client:  bench_fi_rma_bw -c ADDR [-P port] [-p provider] [-w window] [-r repeats] SIZE...
 * The client prints "size_bytes MBps" (MB = 1e6 bytes, median of repeats):
 * about 64 MB per repeat, at most 200000 writes.
 * Each measured round ends with an RDMA read that, by the provider's
 * read-after-write ordering, completes only after every write has landed.
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "bench_stats.h"

#define MAX_SIZE (16u << 20)
#define MAX_REPEATS 51

struct peer_info {
    uint64_t addr;
    uint64_t key;
};

static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_eq *eq;
static struct fid_cq *cq;
static struct fid_ep *ep;
static struct fid_mr *mr;
static unsigned char *buf;

#define CHECK(call) do { int rc_ = (int) (call); if (rc_) { \
    fprintf (stderr, "%s: %s\n", #call, fi_strerror (-rc_)); exit (1); } } while (0)

static struct fi_info *get_info (const char *addr, const char *port, const char *prov, bool server)
{
    struct fi_info *hints = fi_allocinfo (), *info;

    hints->ep_attr->type = FI_EP_MSG;
    hints->caps = FI_MSG | FI_RMA;
    hints->addr_format = FI_SOCKADDR_IN;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->fabric_attr->prov_name = strdup (prov);
    CHECK(fi_getinfo (FI_VERSION (1, 11), addr, port, server ? FI_SOURCE : 0, hints, &info));
    fi_freeinfo (hints);
    return info;
}

static void open_domain (struct fi_info *info)
{
    struct fi_eq_attr eq_attr = {.wait_obj = FI_WAIT_UNSPEC};
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT, .size = 1024, .wait_obj = FI_WAIT_NONE};

    CHECK(fi_fabric (info->fabric_attr, &fabric, NULL));
    CHECK(fi_eq_open (fabric, &eq_attr, &eq, NULL));
    CHECK(fi_domain (fabric, info, &domain, NULL));
    CHECK(fi_cq_open (domain, &cq_attr, &cq, NULL));
    buf = aligned_alloc (4096, MAX_SIZE);
    memset (buf, 0x5a, MAX_SIZE);
    CHECK(fi_mr_reg (domain, buf, MAX_SIZE, FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE,
                     0, 1, 0, &mr, NULL));
}

static void open_ep (struct fi_info *info)
{
    CHECK(fi_endpoint (domain, info, &ep, NULL));
    CHECK(fi_ep_bind (ep, &eq->fid, 0));
    CHECK(fi_ep_bind (ep, &cq->fid, FI_TRANSMIT | FI_RECV));
    CHECK(fi_enable (ep));
}

static ssize_t wait_cm (uint32_t want, void *entry, size_t len)
{
    uint32_t event;
    ssize_t n = fi_eq_sread (eq, &event, entry, len, -1, 0);

    if (n < 0 || event != want) {
        fprintf (stderr, "unexpected connection event %u (%zd)\n", event, n);
        exit (1);
    }
    return n;
}

static void serve (struct fi_info *info)
{
    struct { struct fi_eq_cm_entry e; unsigned char data[64]; } entry;
    struct peer_info me = {.addr = (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uintptr_t) buf : 0};
    struct fid_pep *pep;
    struct fi_cq_entry comp;
    uint32_t event;

    open_domain (info);
    me.key = fi_mr_key (mr);
    CHECK(fi_passive_ep (fabric, info, &pep, NULL));
    CHECK(fi_pep_bind (pep, &eq->fid, 0));
    CHECK(fi_listen (pep));
    wait_cm (FI_CONNREQ, &entry, sizeof (entry));
    open_ep (entry.e.info);
    CHECK(fi_accept (ep, &me, sizeof (me)));
    wait_cm (FI_CONNECTED, &entry, sizeof (entry));
    /* the target only polls: software providers place data while we progress */
    while (-FI_EAGAIN == fi_eq_read (eq, &event, &entry, sizeof (entry), 0)) {
        (void) fi_cq_read (cq, &comp, 1);
    }
}

static void wait_completions (int n)
{
    struct fi_cq_entry comp[16];

    while (n > 0) {
        ssize_t got = fi_cq_read (cq, comp, 16);
        if (got > 0) {
            n -= (int) got;
        } else if (-FI_EAVAIL == got) {
            struct fi_cq_err_entry err = {0};
            fi_cq_readerr (cq, &err, 0);
            fprintf (stderr, "operation failed: %s\n", fi_strerror (err.err));
            exit (1);
        }
    }
}

static double now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double round_mbps (const struct peer_info *peer, size_t size, int window, int rounds)
{
    double t0 = now ();

    for (int r = 0 ; r < rounds ; ++r) {
        for (int w = 0 ; w < window ; ++w) {
            while (-FI_EAGAIN == fi_write (ep, buf, size, fi_mr_desc (mr), 0, peer->addr, peer->key, NULL)) {
                wait_completions (0);
                (void) fi_cq_read (cq, NULL, 0);
            }
        }
        wait_completions (window);
    }
    /* read after write: returns once everything written has landed */
    CHECK(fi_read (ep, buf, 1, fi_mr_desc (mr), 0, peer->addr, peer->key, NULL));
    wait_completions (1);
    return (double) size * window * rounds / (now () - t0) / 1e6;
}

static void client (struct fi_info *info, int window, int repeats, char **sizes, int nsizes)
{
    struct { struct fi_eq_cm_entry e; struct peer_info peer; } entry;

    open_domain (info);
    open_ep (info);
    CHECK(fi_connect (ep, info->dest_addr, NULL, 0));
    wait_cm (FI_CONNECTED, &entry, sizeof (entry));
    printf ("# size_bytes MBps (raw libfabric %s fi_write, window %d, median of %d)\n",
            info->fabric_attr->prov_name, window, repeats);
    for (int s = 0 ; s < nsizes ; ++s) {
        size_t size = strtoull (sizes[s], NULL, 0);
        double mbps[MAX_REPEATS];
        /* about 64 MB, and no more than 200000 writes for the small sizes */
        double bytes_rounds = 64e6 / ((double) (size ? size : 1) * window), count_rounds = 200000.0 / window;
        int rounds = (int) (bytes_rounds < count_rounds ? bytes_rounds : count_rounds) + 1;

        if (size > MAX_SIZE) {
            fprintf (stderr, "size %zu over %u\n", size, MAX_SIZE);
            exit (2);
        }
        (void) round_mbps (&entry.peer, size, window, 1);
        for (int r = 0 ; r < repeats ; ++r) {
            mbps[r] = round_mbps (&entry.peer, size, window, rounds);
        }
        printf ("%zu %.4f\n", size, bench_median (mbps, repeats));
        fflush (stdout);
    }
    fi_shutdown (ep, 0);
}

int main (int argc, char **argv)
{
    const char *addr = NULL, *port = "47611", *prov = "tcp";
    int opt, window = 16, repeats = 5;
    bool server = false;

    while (-1 != (opt = getopt (argc, argv, "s:c:P:p:w:r:"))) {
        switch (opt) {
        case 's': addr = optarg; server = true; break;
        case 'c': addr = optarg; break;
        case 'P': port = optarg; break;
        case 'p': prov = optarg; break;
        case 'w': window = atoi (optarg); break;
        case 'r': repeats = atoi (optarg); break;
        default: addr = NULL; break;
        }
    }
    if (NULL == addr || window < 1 || repeats < 1 || repeats > MAX_REPEATS || (!server && optind >= argc)) {
        fprintf (stderr, "usage: %s -s ADDR | -c ADDR [-P port] [-p provider] [-w window] [-r repeats] SIZE...\n",
                 argv[0]);
        return 2;
    }
    if (server) {
        serve (get_info (addr, port, prov, true));
    } else {
        client (get_info (addr, port, prov, false), window, repeats, argv + optind, argc - optind);
    }
    return 0;
}
