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
