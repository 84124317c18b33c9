# Plots soak.csv (scripts/soak.sh): resident memory, open file descriptors and threads of the
# HTTP and the stdio server over the run. Called with csv and png set.
set datafile separator ","
set terminal pngcairo size 900,900 font ",10"
set output png
set multiplot layout 3,1 title "buril serve under a mixed load (conformance fixture server)"
set key top left
set grid
set xlabel "minutes"
set ylabel "resident memory (MB)"
set yrange [0:*]
set xrange [0:*]
set offsets 0, 0, graph 0.15, 0
plot csv using ($1/60):($2/1024) every ::1 with lines lw 2 title "HTTP", \
     csv using ($1/60):($5/1024) every ::1 with lines lw 2 title "stdio"
set ylabel "open file descriptors"
plot csv using ($1/60):3 every ::1 with lines lw 2 title "HTTP", \
     csv using ($1/60):6 every ::1 with lines lw 2 title "stdio"
set ylabel "threads"
plot csv using ($1/60):4 every ::1 with lines lw 2 title "HTTP", \
     csv using ($1/60):7 every ::1 with lines lw 2 title "stdio"
unset multiplot
