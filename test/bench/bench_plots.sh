#!/usr/bin/env bash
# Draws the benchmark plots (PNG, gnuplot) from the data files the
# benchmark scripts left in OUTDIR; a plot whose data is missing is skipped.
#   test/bench/bench_plots.sh OUTDIR
set -u
out=$1
command -v gnuplot > /dev/null || { echo "plots skipped: gnuplot is missing (apt-get install gnuplot-nox)"; exit 0; }
cd "$out" || exit 1

common='set terminal pngcairo size 900,560 font ",11"; set grid; set key top left; set datafile missing "-"'
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
    gnuplot -e "$common; set output 'p2p-throughput.png'; set logscale x 2; set format x '%.0s%cB';
        set title 'Streaming bandwidth against message size (window 16)';
        set xlabel 'message size (bytes)'; set ylabel 'bandwidth (MB/s)';
        plot $(series 3 'one node, ' p2p-node-vader.dat p2p-node-tcp.dat p2p-node-rwv.dat),
             $(series 3 '2 nodes, ' p2p-net-raw.dat p2p-net-tcp.dat p2p-net-ofi.dat p2p-net-rwv.dat)"
    gnuplot -e "$common; set output 'p2p-latency.png'; set logscale x 2; set logscale y; set format x '%.0s%cB';
        set title 'Ping-pong latency against message size';
        set xlabel 'message size (bytes)'; set ylabel 'one-way latency (us)';
        plot $(series 2 'one node, ' p2p-node-vader.dat p2p-node-tcp.dat p2p-node-rwv.dat),
             $(series 2 '2 nodes, ' p2p-net-tcp.dat p2p-net-ofi.dat p2p-net-rwv.dat)"
fi
if have netpipe-*.dat; then
    gnuplot -e "$common; set output 'netpipe-throughput.png'; set logscale x 2; set format x '%.0s%cB';
        set title 'NetPIPE throughput between 2 emulated nodes';
        set xlabel 'message size (bytes)'; set ylabel 'throughput (Mb/s)';
        plot $(series 2 'btl/' netpipe-tcp.dat netpipe-rwv.dat)"
    gnuplot -e "$common; set output 'netpipe-signature.png'; set logscale x 10;
        set title 'NetPIPE signature graph: throughput against one-way time';
        set xlabel 'one-way time (s)'; set ylabel 'throughput (Mb/s)';
        plot $(series 3 'btl/' netpipe-tcp.dat netpipe-rwv.dat | sed 's/using 1:3/using 3:2/g')"
fi
if have barrier.dat; then
    # layout btl rdmabar tuned best han sm, one row per layout and btl
    gnuplot -e "$common; set output 'barrier.png'; set style data histogram; set style histogram clustered gap 1;
        set style fill solid 0.8 border -1; set logscale y; set xtics rotate by -20;
        set title 'MPI\\_Barrier time by layout (nodes x ranks per node, over the BTL named)';
        set xlabel 'layout and BTL'; set ylabel 'time per barrier (us, log scale)'; set key top left;
        plot 'barrier.dat' using 3:xtic(sprintf('%s %s', stringcolumn(1), stringcolumn(2))) title 'rdmabar',
             '' using 4 title 'tuned (default)', '' using 5 title 'tuned (best forced)', '' using 6 title 'han',
             '' using 7 title 'sm'"
fi
if have rails-*.dat; then
    largest=$(awk '{print $2}' rails-*.dat | sort -g | tail -n1)
    gnuplot -e "$common; set output 'rails.png'; set xtics 1;
        set title sprintf('Multi-rail scaling at %d MiB messages (each rail tbf-limited)', $largest / 1048576);
        set xlabel 'rails between the 2 nodes'; set ylabel 'streaming bandwidth (MB/s)';
        first = system(\"awk '\\\$1 == 1 && \\\$2 == $largest {print \\\$3}' rails-tcp.dat\") + 0;
        plot 'rails-tcp.dat' using 1:(\$2 == $largest ? \$3 : 1/0) with linespoints title 'btl/tcp',
             'rails-rwv.dat' using 1:(\$2 == $largest ? \$3 : 1/0) with linespoints title 'btl/rwv (striping not built)',
             'rails-tcp.dat' using 1:(\$2 == $largest ? \$1 * first : 1/0) with lines dashtype 2 title 'n x one rail (btl/tcp)'"
fi
ls -1 ./*.png 2>/dev/null | sed 's|^\./|wrote |'
