/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * One 1 MiB MPI_Send from rank 0 to rank 1 on connections and registrations
 * already made (two rounds before it), recorded by walk_hook.c; every byte
 * is checked.  argv[1]: where each rank writes its calls (.RANK appended).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void walk_on (void);
void walk_off (const char *path);

int main (int argc, char **argv)
{
    const int n = 1 << 20, rounds = 3;
    char path[1024];
    int rank;
    char *buf;

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    buf = malloc (n);
    for (int round = 0 ; round < rounds ; ++round) {
        memset (buf, rank ? 0 : round + 1, n);
        MPI_Barrier (MPI_COMM_WORLD);
        if (round == rounds - 1) {
            walk_on ();
        }
        if (0 == rank) {
            MPI_Send (buf, n, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
        } else {
            MPI_Recv (buf, n, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        if (round == rounds - 1) {
            snprintf (path, sizeof (path), "%s.%d", argv[1], rank);
            walk_off (path);
        }
        for (int i = 0 ; 1 == rank && i < n ; ++i) {
            if (buf[i] != (char) (round + 1)) {
                fprintf (stderr, "walk_send: byte %d is %d, expected %d\n", i, buf[i], round + 1);
                MPI_Abort (MPI_COMM_WORLD, 1);
            }
        }
    }
    free (buf);
    MPI_Finalize ();
    return 0;
}
