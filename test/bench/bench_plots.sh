#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Draws the benchmark plots (PNG, gnuplot) from the data files the
# benchmark scripts left in OUTDIR; a plot whose data is missing is skipped.
#   test/bench/bench_plots.sh OUTDIR
set -u
out=$1
command -v gnuplot > /dev/null || { echo "plots skipped: gnuplot is missing (apt-get install gnuplot-nox)"; exit 0; }
cd "$out" || exit 1

common='set terminal pngcairo size 900,560 font ",11"; set grid; set key top left; set datafile missing "-"'
sizes="set xtics ('1 B' 1, '64 B' 64, '4 KiB' 4096, '32 KiB' 32768, '1 MiB' 1048576, '16 MiB' 16777216)"
have () { for f in "$@"; do [ -s "$f" ] && return 0; done; return 1; }

# a "plot" clause for every data file that exists: file column title
series () { # column title-prefix files...
    local col=$1 prefix=$2 sep="" f name
    shift 2
    for f in "$@"; do
        [ -s "$f" ] || continue
        name=${f%.dat}; name=${name##*-}
        printf '%s"%s" using 1:%s with linespoints title "%s%s"' "$sep" "$f" "$col" "$prefix" "$name"
        sep=", "
    done
}

if have p2p-*.dat; then
    gnuplot -e "$common; set output 'p2p-throughput.png'; set logscale x 2; set logscale y; $sizes;
        set title 'Streaming bandwidth against message size (window 16)';
        set xlabel 'message size'; set ylabel 'bandwidth (MB/s, log scale)';
        plot $(series 3 'one node, ' p2p-node-vader.dat p2p-node-tcp.dat p2p-node-rwv.dat),
             $(series 3 '2 nodes, ' p2p-net-raw.dat p2p-net-tcp.dat p2p-net-ofi.dat p2p-net-rwv.dat)"
    gnuplot -e "$common; set output 'p2p-latency.png'; set logscale x 2; set logscale y; $sizes;
        set title 'Ping-pong latency against message size';
        set xlabel 'message size'; set ylabel 'one-way latency (us, log scale)';
        plot $(series 2 'one node, ' p2p-node-vader.dat p2p-node-tcp.dat p2p-node-rwv.dat),
             $(series 2 '2 nodes, ' p2p-net-tcp.dat p2p-net-ofi.dat p2p-net-rwv.dat)"
fi
if have msgrate-*.dat; then
    curves=$( (series 2 'one node, both directions, ' msgrate-node-*.dat; echo
              series 2 '2 nodes, ' msgrate-net-raw.dat msgrate-net-tcp.dat msgrate-net-rwv.dat) |
              grep -v '^$' | paste -sd, -)
    gnuplot -e "$common; set output 'msgrate.png'; set logscale x 2; set logscale y; $sizes; set key bottom left;
        set title 'Message rate against message size (window 64)';
        set xlabel 'message size'; set ylabel 'messages per second (log scale)';
        plot $curves"
fi
if have netpipe-*.dat; then
    gnuplot -e "$common; set output 'netpipe-throughput.png'; set logscale x 2; $sizes;
        set title 'NetPIPE throughput between 2 emulated nodes';
        set xlabel 'message size'; set ylabel 'throughput (Mb/s)';
        plot $(series 2 'btl/' netpipe-tcp.dat netpipe-rwv.dat)"
    gnuplot -e "$common; set output 'netpipe-signature.png'; set logscale x 10;
        set title 'NetPIPE signature graph: throughput against one-way time';
        set xlabel 'one-way time (s)'; set ylabel 'throughput (Mb/s)';
        plot $(series 3 'btl/' netpipe-tcp.dat netpipe-rwv.dat | sed 's/using 1:3/using 3:2/g')"
fi
if have barrier.dat; then
    # layout btl rdmabar tuned best han sm xhc acoll, one row per layout and btl
    gnuplot -e "$common; set output 'barrier.png'; set style data histogram; set style histogram clustered gap 1;
        set style fill solid 0.8 border -1; set logscale y; set xtics rotate by -20;
        set title 'MPI\\_Barrier time by layout (nodes x ranks per node, over the BTL named)';
        set xlabel 'layout and BTL'; set ylabel 'time per barrier (us, log scale)'; set key top left;
        plot 'barrier.dat' using 3:xtic(sprintf('%s %s', stringcolumn(1), stringcolumn(2))) title 'rdmabar',
             '' using 4 title 'tuned (default)', '' using 5 title 'tuned (best forced)', '' using 6 title 'han',
             '' using 7 title 'sm', '' using 8 title 'xhc', '' using 9 title 'acoll'"
fi
if have rails-*.dat; then
    # scaling at the largest size (equal rails only), one file per BTL, and n times tcp's one-rail figure
    largest=$(awk '{print $2}' rails-*.dat | sort -g | tail -n1)
    for btl in tcp rwv; do
        awk -v s="$largest" '$2 == s && $1 ~ /^[0-9]+$/ {print $1, $3}' "rails-$btl.dat" 2>/dev/null > "plot-rails-$btl.dat"
        # throughput against size, one file per rail count
        for config in $(awk '$1 ~ /^[0-9]+$/ {print $1}' "rails-$btl.dat" 2>/dev/null | sort -u); do
            awk -v c="$config" '$1 == c {print $2, $3}' "rails-$btl.dat" > "plot-rails-size-$btl-$config.dat"
        done
    done
    one=$(awk '$1 == 1 {print $2}' plot-rails-tcp.dat)
    awk -v one="${one:-0}" '{print $1, $1 * one}' plot-rails-tcp.dat > plot-rails-ideal.dat
    most=$(awk '{print $1}' plot-rails-tcp.dat | sort -g | tail -n1)
    gnuplot -e "$common; set output 'rails.png'; set xtics 1; set xrange [0.8:${most:-1}.2]; set yrange [0:*];
        set title 'Multi-rail scaling at $(awk -v s="$largest" 'BEGIN {print s / 1048576}') MiB messages (each rail tbf-limited)';
        set xlabel 'rails between the 2 nodes'; set ylabel 'streaming bandwidth (MB/s)';
        plot 'plot-rails-tcp.dat' using 1:2 with linespoints title 'btl/tcp',
             'plot-rails-rwv.dat' using 1:2 with linespoints title 'btl/rwv',
             'plot-rails-ideal.dat' using 1:2 with lines dashtype 2 title 'n x one rail of btl/tcp'"
    plots=""
    for f in plot-rails-size-rwv-*.dat plot-rails-size-tcp-*.dat; do
        [ -s "$f" ] || continue
        name=${f%.dat}; n=${name##*-}; btl=${name#plot-rails-size-}; btl=${btl%-*}
        style=$([ "$btl" = tcp ] && echo "dashtype 2" || echo "linewidth 2")
        plots="$plots${plots:+, }'$f' using 1:2 with linespoints $style title 'btl/$btl, $n rail(s)'"
    done
    gnuplot -e "$common; set output 'rails-size.png'; set logscale x 2; $sizes; set yrange [0:*];
        set title 'Throughput against message size over 1, 2 and 3 tbf-limited rails';
        set xlabel 'message size'; set ylabel 'streaming bandwidth (MB/s)'; plot $plots"
    rm -f plot-rails-*.dat
fi
ls -1 ./*.png 2>/dev/null | sed 's|^\./|wrote |'
