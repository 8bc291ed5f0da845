# Latency vs message size, log-log, one line per candidate, from the CSV
# topoa2a-bench writes (only points that ran and validated).
#   gnuplot -e "csv='results.csv'; png='results.png'" bench/plot.gp
if (!exists("csv")) csv = "results.csv"
if (!exists("png")) png = "results.png"
if (!exists("title")) title = "topoa2a-bench"

cands = system(sprintf("awk -F, 'NR>1 && $5==\"ok\" && !seen[$4]++ {printf \"%%s \", $4}' '%s'", csv))
rows(c) = sprintf("< awk -F, -v c='%s' 'NR>1 && $4==c && $5==\"ok\"' '%s'", c, csv)
mpich(c) = strlen(c) > 6 && c[1:6] eq "mpich:"

set terminal pngcairo size 880,560 noenhanced font ",9"
set output png
set datafile separator ","
set title title
set logscale xy
set autoscale xfix
set xtics ("1 B" 1, "16 B" 16, "256 B" 256, "4 KiB" 4096, "64 KiB" 65536, "1 MiB" 1048576, \
           "16 MiB" 16777216)
set xlabel "message size per peer"
set ylabel "latency (us), median of repetitions"
set key outside right top
set grid
plot for [c in cands] rows(c) using 3:7 with linespoints dashtype 1 + mpich(c) \
     pointtype (mpich(c) ? 6 : 7) pointsize 0.6 title c
