#!/bin/bash
# The Rummikub benchmark on two checkouts, alternately, in the same slot:
#   bash docs/results/rummikub-speed/bench.sh AFTER_TREE BEFORE_TREE [RUNS]
# (logs/bench.log: RUNS=3, logs/bench2.log: RUNS=2; the trees were the rkub-speed branch and main)
after=${1:?a checkout with the change}; before=${2:?a checkout without it}; runs=${3:-3}
B='python -m experiments.benchmark.vector --variant rummikub --seconds 5 --num-envs 256 --threads 1 2'
for i in $(seq "$runs"); do
  for tree in "$after" "$before"; do
    echo "== $tree run $i $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
    (cd "$tree" && PYTHONPATH="$tree" $B)
  done
done
echo "== end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
