/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * A host on the rail network that is not part of the job: asks a btl/rwv
 * rank's listening port for a connection the way a member would (libfabric
 * FI_EP_MSG, tcp provider), with connection data it cannot have signed, or
 * speaks plain TCP to the port.  Not an MPI program.
 *
 *   rwv_outsider name IP PORT JOBID VPID   well-formed connection data (btl/rwv version 6)
 *                                          claiming that process name, with a zero MAC
 *   rwv_outsider replay IP PORT HEX        exactly these bytes as connection data (a
 *                                          request captured from the job's trace)
 *   rwv_outsider garbage IP PORT           48 random bytes as connection data
 *   rwv_outsider flood IP PORT N           N such requests, one after the other; exit 0
 *                                          if every one was refused
 *   rwv_outsider raw IP PORT               a plain TCP connection: 4 KiB of random bytes, close
 *   rwv_outsider silent IP PORT N SECONDS  N plain TCP connections that send nothing,
 *                                          held SECONDS, then closed
 * IP is an IPv4 or IPv6 address.
 * JOBID is the 32-bit job id (decimal or 0x...) or Open MPI's printed form
 * FAMILY,LOCAL ([[FAMILY,LOCAL],VPID]).
 *
 * Prints one line saying what happened.  Exit status: 0 the connection was
 * refused (a reject, or the connection closed, before it was accepted), or
 * a raw mode finished; 1 it was ACCEPTED; 2 usage or local error; 3 no
 * answer within the connect timeout (10 s).  A port nobody listens on
 * answers ECONNREFUSED too: a test must also find the refusal in the
 * target's log.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#define CM_BYTES 48
#define CM_VERSION 8
#define TIMEOUT_MS 10000

/* btl/rwv's mca_btl_rwv_cm_data_t, version 8 (btl_rwv_wire.h) */
struct cm_data {
    uint8_t version;
    uint8_t rail_flags;
    uint16_t shm_slot;
    uint16_t conn_id;
    uint16_t slots_less_one;
    uint32_t jobid;
    uint32_t vpid;
    uint64_t ring_raddr;
    uint64_t ring_rkey;
    uint32_t slot_size;
    uint32_t attempt;
    uint8_t mac[8];
};
_Static_assert (sizeof (struct cm_data) == CM_BYTES, "btl/rwv connection data is 48 bytes");

static int usage (void)
{
    fprintf (stderr, "usage: rwv_outsider name IP PORT JOBID VPID | replay IP PORT HEX | garbage IP PORT |\n"
                     "                    flood IP PORT N | raw IP PORT | silent IP PORT N SECONDS\n");
    return 2;
}

static int local_error (const char *what, int err)
{
    printf ("error: %s: %s\n", what, strerror (err));
    return 2;
}

static void random_bytes (void *buf, size_t len)
{
    size_t got = 0;

    while (got < len) {
        ssize_t n = getrandom ((char *) buf + got, len - got, 0);

        if (n > 0) {
            got += (size_t) n;
        } else if (errno != EINTR) {
            perror ("getrandom");
            exit (2);
        }
    }
}

static int parse_u32 (const char *s, uint32_t *value)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul (s, &end, 0);
    if (errno || end == s || *end || v > UINT32_MAX) {
        return -1;
    }
    *value = (uint32_t) v;
    return 0;
}

static int parse_jobid (const char *s, uint32_t *jobid)
{
    unsigned family, local;
    char tail;

    if (strchr (s, ',')) {
        if (2 != sscanf (s, "%u,%u%c", &family, &local, &tail) || family > 0xffff || local > 0xffff) {
            return -1;
        }
        *jobid = family << 16 | local;
        return 0;
    }
    return parse_u32 (s, jobid);
}

static int parse_hex (const char *s, unsigned char *out, size_t max, size_t *len)
{
    size_t n = strlen (s);

    if (n % 2 || n / 2 > max) {
        return -1;
    }
    for (size_t i = 0 ; i < n / 2 ; ++i) {
        unsigned byte;

        if (1 != sscanf (s + 2 * i, "%2x", &byte) || !strchr ("0123456789abcdefABCDEF", s[2 * i]) ||
            !strchr ("0123456789abcdefABCDEF", s[2 * i + 1])) {
            return -1;
        }
        out[i] = (unsigned char) byte;
    }
    *len = n / 2;
    return 0;
}

/* ------------------------------------------------------------ libfabric */

/* Ask IP:PORT for a connection carrying DATA; report what it answered. */
static int fi_request (const char *ip, const char *port, const void *data, size_t len, const char *what)
{
    struct fi_info *hints = fi_allocinfo (), *info = NULL;
    struct fid_fabric *fabric = NULL;
    struct fid_domain *domain = NULL;
    struct fid_eq *eq = NULL;
    struct fid_cq *cq = NULL;
    struct fid_ep *ep = NULL;
    struct fi_eq_attr eq_attr = {.wait_obj = FI_WAIT_UNSPEC};
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT, .size = 16, .wait_obj = FI_WAIT_NONE};
    struct { struct fi_eq_cm_entry entry; unsigned char data[256]; } ev;
    struct fi_eq_err_entry err = {0};
    uint32_t event;
    ssize_t n;
    int rc, status;

    if (NULL == hints) {
        return local_error ("fi_allocinfo", ENOMEM);
    }
    hints->ep_attr->type = FI_EP_MSG;
    hints->caps = FI_MSG;
    hints->addr_format = FI_FORMAT_UNSPEC;  /* IP may be of either family */
    hints->fabric_attr->prov_name = strdup ("tcp");
    rc = fi_getinfo (FI_VERSION (1, 11), ip, port, 0, hints, &info);
    fi_freeinfo (hints);
    if (rc) {
        printf ("error: fi_getinfo for %s port %s: %s\n", ip, port, fi_strerror (-rc));
        return 2;
    }
#define STEP(call) do { if ((rc = (call))) { printf ("error: %s: %s\n", #call, fi_strerror (-rc)); \
                                             status = 2; goto out; } } while (0)
    STEP(fi_fabric (info->fabric_attr, &fabric, NULL));
    STEP(fi_eq_open (fabric, &eq_attr, &eq, NULL));
    STEP(fi_domain (fabric, info, &domain, NULL));
    STEP(fi_cq_open (domain, &cq_attr, &cq, NULL));
    STEP(fi_endpoint (domain, info, &ep, NULL));
    STEP(fi_ep_bind (ep, &eq->fid, 0));
    STEP(fi_ep_bind (ep, &cq->fid, FI_TRANSMIT | FI_RECV));
    STEP(fi_enable (ep));
    STEP(fi_connect (ep, info->dest_addr, data, len));

    n = fi_eq_sread (eq, &event, &ev, sizeof (ev), TIMEOUT_MS, 0);
    if (n >= 0 && FI_CONNECTED == event) {
        printf ("ACCEPTED: %s, %s port %s answered FI_CONNECTED\n", what, ip, port);
        (void) fi_shutdown (ep, 0);
        status = 1;
    } else if (n >= 0) {
        /* FI_SHUTDOWN: the connection closed before it was accepted */
        printf ("refused: %s, %s port %s answered event %u (%s)\n", what, ip, port, event,
                FI_SHUTDOWN == event ? "FI_SHUTDOWN" : "not FI_CONNECTED");
        status = 0;
    } else if (-FI_EAVAIL == n && fi_eq_readerr (eq, &err, 0) >= 0) {
        if (FI_ECONNREFUSED == err.err) {
            printf ("refused: %s, %s port %s answered ECONNREFUSED\n", what, ip, port);
        } else {
            printf ("refused: %s, %s port %s answered error %d (%s)\n", what, ip, port, err.err,
                    fi_strerror (err.err));
        }
        status = 0;
    } else if (-FI_EAGAIN == n || -FI_ETIMEDOUT == n) {
        printf ("no answer: %s, %s port %s said nothing within %d ms\n", what, ip, port, TIMEOUT_MS);
        status = 3;
    } else {
        printf ("error: fi_eq_sread: %s\n", fi_strerror ((int) -n));
        status = 2;
    }
out:
    if (ep) fi_close (&ep->fid);
    if (cq) fi_close (&cq->fid);
    if (domain) fi_close (&domain->fid);
    if (eq) fi_close (&eq->fid);
    if (fabric) fi_close (&fabric->fid);
    fi_freeinfo (info);
    return status;
#undef STEP
}

/* Many refused requests: what each costs the target must not pile up. */
static int flood (const char *ip, const char *port, uint32_t count)
{
    unsigned char bytes[CM_BYTES];
    uint32_t refused = 0;

    for (uint32_t i = 0 ; i < count ; ++i) {
        int saved = dup (STDOUT_FILENO), quiet = open ("/dev/null", O_WRONLY), rc;

        random_bytes (bytes, sizeof (bytes));
        fflush (stdout);
        dup2 (quiet, STDOUT_FILENO); /* one line for the whole flood, not one per request */
        rc = fi_request (ip, port, bytes, sizeof (bytes), "random connection data");
        fflush (stdout);
        dup2 (saved, STDOUT_FILENO);
        close (saved);
        close (quiet);
        refused += 0 == rc;
    }
    printf ("%s: flood of %u requests with random connection data to %s port %s, %u refused\n",
            refused == count ? "refused" : "ACCEPTED or unanswered", count, ip, port, refused);
    return refused == count ? 0 : 1;
}

/* ------------------------------------------------------------ plain TCP */

static int tcp_open (const char *ip, const char *port, int *fd)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV}, *target;
    struct timeval tv = {.tv_sec = TIMEOUT_MS / 1000};
    uint32_t p;
    int e = 0;

    if (parse_u32 (port, &p) || p > 65535 || 0 != getaddrinfo (ip, port, &hints, &target)) {
        return EINVAL;
    }
    if ((*fd = socket (target->ai_family, SOCK_STREAM, 0)) < 0) {
        e = errno;
    } else {
        /* bounds connect() too */
        (void) setsockopt (*fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof (tv));
        if (connect (*fd, target->ai_addr, target->ai_addrlen)) {
            e = errno;
            close (*fd);
        }
    }
    freeaddrinfo (target);
    return e;
}

static int raw (const char *ip, const char *port)
{
    unsigned char junk[4096];
    size_t sent = 0;
    int fd, e;

    if ((e = tcp_open (ip, port, &fd))) {
        return local_error ("connect", e);
    }
    random_bytes (junk, sizeof (junk));
    while (sent < sizeof (junk)) {
        ssize_t n = send (fd, junk + sent, sizeof (junk) - sent, MSG_NOSIGNAL);

        if (n <= 0) {
            break; /* the other side closed: fine */
        }
        sent += (size_t) n;
    }
    close (fd);
    printf ("done: raw, %zu random bytes written to %s port %s, then closed\n", sent, ip, port);
    return 0;
}

static int silent (const char *ip, const char *port, int count, int seconds)
{
    int *fds = calloc ((size_t) count, sizeof (int)), opened = 0, e = 0;

    if (NULL == fds) {
        return local_error ("calloc", ENOMEM);
    }
    while (opened < count && !(e = tcp_open (ip, port, &fds[opened]))) {
        ++opened;
    }
    if (opened < count) {
        printf ("silent: %d of %d connections to %s port %s opened (then: %s)\n", opened, count, ip, port,
                strerror (e));
    }
    sleep ((unsigned) seconds);
    for (int i = 0 ; i < opened ; ++i) {
        close (fds[i]);
    }
    free (fds);
    if (opened < count) {
        return 2;
    }
    printf ("done: silent, %d connections to %s port %s held %d s, then closed\n", count, ip, port, seconds);
    return 0;
}

int main (int argc, char **argv)
{
    unsigned char bytes[256];
    struct cm_data cm;
    char what[160];
    size_t len;
    uint32_t jobid, vpid, count, seconds;

    setvbuf (stdout, NULL, _IOLBF, 0);
    if (argc < 4) {
        return usage ();
    }
    const char *mode = argv[1], *ip = argv[2], *port = argv[3];

    if (0 == strcmp (mode, "name") && 6 == argc) {
        if (parse_jobid (argv[4], &jobid) || parse_u32 (argv[5], &vpid)) {
            return usage ();
        }
        memset (&cm, 0, sizeof (cm));
        cm.version = CM_VERSION;
        cm.jobid = jobid;
        cm.vpid = vpid;
        cm.ring_raddr = 0x7f0000100000ull;
        cm.ring_rkey = 3;
        cm.slots_less_one = 15;
        cm.slot_size = 65696;
        cm.attempt = 1000000; /* above any the job has used */
        snprintf (what, sizeof (what), "connection data claiming to be [[%u,%u],%u] with a zero MAC",
                  jobid >> 16, jobid & 0xffff, vpid);
        return fi_request (ip, port, &cm, sizeof (cm), what);
    }
    if (0 == strcmp (mode, "replay") && 5 == argc) {
        if (parse_hex (argv[4], bytes, sizeof (bytes), &len) || 0 == len) {
            return usage ();
        }
        snprintf (what, sizeof (what), "%zu bytes of connection data replayed", len);
        return fi_request (ip, port, bytes, len, what);
    }
    if (0 == strcmp (mode, "garbage") && 4 == argc) {
        random_bytes (bytes, CM_BYTES);
        return fi_request (ip, port, bytes, CM_BYTES, "48 random bytes of connection data");
    }
    if (0 == strcmp (mode, "flood") && 5 == argc) {
        if (parse_u32 (argv[4], &count) || count < 1 || count > 100000) {
            return usage ();
        }
        return flood (ip, port, count);
    }
    if (0 == strcmp (mode, "raw") && 4 == argc) {
        return raw (ip, port);
    }
    if (0 == strcmp (mode, "silent") && 6 == argc) {
        if (parse_u32 (argv[4], &count) || parse_u32 (argv[5], &seconds) || count < 1 || count > 100000 ||
            seconds > 3600) {
            return usage ();
        }
        return silent (ip, port, (int) count, (int) seconds);
    }
    return usage ();
}
