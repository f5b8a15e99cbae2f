# shellcheck shell=bash
# Sourced by the benchmarks that write results/: `cpu_name` prints the CPU
# they ran on, as every results file names it: its model name, then its
# family and model numbers (a name such as "AMD EPYC" covers several
# generations; these tell them apart) and whether it has AVX-512, e.g.
# "AMD EPYC (family 25, model 1; AVX2)".
cpu_field() { grep -m1 "^$1[[:space:]]*:" /proc/cpuinfo | sed 's/.*: //'; }
cpu_name() {
  echo "$(cpu_field 'model name') (family $(cpu_field 'cpu family')," \
       "model $(cpu_field model);" \
       "$(grep -qw avx512f /proc/cpuinfo && echo AVX-512 || echo AVX2))"
}

# The first line of a results file: when, at which commit, on which CPU
# (and TFL_ISA, when set).
results_header() {
  echo "# $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)," \
       "$(cpu_name)${TFL_ISA:+, TFL_ISA=$TFL_ISA}, 2 threads"
}

# The results file for today's run of NAME: results/DATE-cpu-NAME.txt, or
# ...-NAME-2.txt, -3 and on where an earlier run today wrote it (the docs
# link to each run's file).
results_file() {
  local file n=1
  file=results/$(date +%F)-cpu-$1.txt
  while [ -e "$file" ]; do
    n=$((n + 1))
    file=results/$(date +%F)-cpu-$1-$n.txt
  done
  echo "$file"
}

# Runs the command "$@" on 2 threads: once on a machine without AVX-512;
# on one with it, as it is ("## AVX-512") and again with TFL's AVX2
# kernels and oneDNN's AVX2 code ("## TFL_ISA=avx2").
each_isa() {
  if grep -qw avx512f /proc/cpuinfo; then
    echo "## AVX-512"
    OMP_NUM_THREADS=2 "$@"
    echo "## TFL_ISA=avx2"
    TFL_ISA=avx2 OMP_NUM_THREADS=2 "$@"
  else
    OMP_NUM_THREADS=2 "$@"
  fi
}
