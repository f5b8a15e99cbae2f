#!/bin/sh
# Compiles C program $2 against the static library whose header is $1 (the
# link line its first comment gives) into $3.
set -e
dir=$(dirname "$1")
flags=$(sed -n 's|^/\* Link a program with \([^ ]*\) \(.*\)$|\1 \2|p' "$1")
cc "$2" -I"$dir" $(echo "$flags" | sed "s|^\([^ ]*\)|$dir/\1|") -o "$3"
