#!/bin/bash
# bench on a lent GPU machine in one `device` call (2026-11-28; JAX and PyTorch, no TensorFlow there).
# Set-up (../shared/gpu-check/README.md): .gpu/whl holds the wheels, this file copied to .gpu/check.sh; then
# from the repository root there:  bash .gpu/check.sh   (what each part checks: the comment above it)
# Each part has its own time limit; records, logs and the report land in $OUT/gpu.tgz after every part.
# Rehearsal without a GPU: NOWHL=1 PY=.tox/py/bin/python OUT=/tmp/out STRAT=cpu DS=reduced bash .gpu/check.sh
set -u
T1=${T1:-150} T2=${T2:-170} T3=${T3:-135}
STRAT=${STRAT:-gpu} DS=${DS:-full} PAIRS=${PAIRS:-2}
export PYTHONUNBUFFERED=1 MPLBACKEND=Agg TF_CPP_MIN_LOG_LEVEL=2 BENCH_CACHE_DIR=/tmp/gpu-check/cache
ROOT=$(pwd)
PY=${PY:-python3}
if [ -z "${NOWHL:-}" ] && ls .gpu/whl/*.whl >/dev/null 2>&1; then
  $PY -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/site .gpu/whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$ROOT
else export PYTHONPATH=$ROOT; fi
PY=$(command -v $PY || echo $PY); case $PY in /*) ;; *) PY=$ROOT/$PY;; esac
L=$OUT/env.txt; W=/tmp/gpu-check; rm -rf $W; mkdir -p $W; cd $W
pack() { tar czf $OUT/gpu.tgz --exclude='*/init/*' -C $W $(cd $W && ls -d r1 r2 r3 rep cache/peaks plain.jsonl 2>/dev/null) 2>>"$L"; }
B="$PY -m bench suite=cnn strategies=[$STRAT] workloads=[fashion_cnn] ~workload_axes data_scale=$DS report=false"
{ date -u; nproc; nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,power.limit --format=csv
  KERAS_BACKEND=jax $PY -c "import jax,torch,keras;print('jax',jax.__version__,jax.devices(),'torch',torch.__version__,torch.cuda.is_available(),'keras',keras.__version__)"; } >"$L" 2>&1
# 1 (issue 52 item 5): what limits fashion_cnn on the GPU, JAX and PyTorch at b128 and b1024 (the probe cache starts empty)
SECONDS=0
timeout $T1 $B 'backends=[jax,torch]' 'batch_sizes=[128,1024]' 'steps_per_execution=[1]' epochs=3 repeats=1 \
  results_dir=$W/r1 >"$OUT/p1.log" 2>&1; echo "part r1 rc=$? ${SECONDS}s" >>"$L"; pack
# 2 (issues 51, 53): the quickstart as a user on a GPU box types it (catsdogs_cnn must learn under JAX now)
SECONDS=0
timeout $T2 $PY -m bench suite=cnn 'backends=[jax]' results_dir=$W/r2 report=false >"$OUT/p2.log" 2>&1
echo "part r2 rc=$? ${SECONDS}s" >>"$L"; pack
# 3 (issue 50 item 9): bench against a plain Keras-on-JAX script on the GPU, one process at a time, alternating
SECONDS=0; N=59904; [ "$DS" = full ] || N=2048  # 468 whole batches of 128, as bench runs 60,000
for i in $(seq $PAIRS); do
  for side in bench plain plain bench; do
    if [ $side = bench ]; then
      timeout 60 $B 'backends=[jax]' 'batch_sizes=[128]' 'steps_per_execution=[4]' 'input_pipelines=[numpy,default]' \
        epochs=4 repeats=1 measure_input=false second_batch=false results_dir=$W/r3 >>"$OUT/p3.log" 2>&1
    else
      KERAS_BACKEND=jax timeout 40 $PY $ROOT/tests/benchmarks/plain_fit.py $N 10000 128 4 4 --device gpu \
        >>$W/plain.jsonl 2>>"$OUT/p3.log"
    fi; echo "  $side rc=$? ${SECONDS}s" >>"$L"
    [ $SECONDS -gt $T3 ] && break 2
  done
done; echo "part r3 ${SECONDS}s" >>"$L"; pack
SECONDS=0
timeout 60 $PY -m bench report $W/r1/* $W/r2/* $W/r3/* out=$W/rep >"$OUT/report.log" 2>&1; echo "report rc=$? ${SECONDS}s" >>"$L"
pack; ls -la $OUT >>"$L"
