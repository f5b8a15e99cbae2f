# Sourced by bench/run.sh and bench/gpu.sh: `best CMD...` runs a command
# printing one number (on its last line) REPEATS times (default 3) and
# prints the smallest; `most CMD...` prints the largest (a rate).
# `pick < CMD...` keeps the smallest of REPEATS runs, `pick > CMD...` the
# largest.
pick() {
  local op=$1 b="" v
  shift
  for _ in $(seq "${REPEATS:-3}"); do
    v=$("$@" | tail -1 | awk '{print $1}')
    if [ -z "$b" ] || awk -v a="$v" -v b="$b" -v op="$op" \
      'BEGIN { exit !(op == "<" ? a < b : a > b) }'; then
      b=$v
    fi
  done
  echo "$b"
}
best() { pick "<" "$@"; }
most() { pick ">" "$@"; }
