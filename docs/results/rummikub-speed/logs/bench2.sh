#!/bin/bash
B='/work/venv/bin/python -m experiments.benchmark.vector --variant rummikub --seconds 5 --num-envs 256 --threads 1 2'
for i in 1 2; do
  for tree in /work/wt/rkub-speed /work/main; do
    echo "== $tree run $i $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
    (cd $tree && PYTHONPATH=$tree $B)
  done
done
echo "== end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
