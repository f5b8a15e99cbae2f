# Sourced by bench/run.sh and bench/gpu.sh: `best CMD...` runs a command
# printing one number (on its last line) REPEATS times (default 3) and
# prints the smallest; `most CMD...` prints the largest (a rate).
best() {
  local b="" v
  for _ in $(seq "${REPEATS:-3}"); do
    v=$("$@" | tail -1 | awk '{print $1}')
    if [ -z "$b" ] || awk -v a="$v" -v b="$b" 'BEGIN { exit !(a < b) }'; then
      b=$v
    fi
  done
  echo "$b"
}

most() {
  local b="" v
  for _ in $(seq "${REPEATS:-3}"); do
    v=$("$@" | tail -1 | awk '{print $1}')
    if [ -z "$b" ] || awk -v a="$v" -v b="$b" 'BEGIN { exit !(a > b) }'; then
      b=$v
    fi
  done
  echo "$b"
}
