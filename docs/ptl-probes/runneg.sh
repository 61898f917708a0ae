#!/bin/bash
# usage: runneg.sh <mode> [extra env]  -> rank0 = pyclient in given mode, nprocs=1
m=$1; shift
d=/tmp/ptlcap/neg_$m; mkdir -p $d; cd $d; rm -f *.jsonl
port=$((46000 + RANDOM % 1000))
python3 ../proxy.py $port upstream.txt cap & PP=$!
sleep 0.4
env PROXY_PORT=$port PYCLI_MODE=$m CLIENT0=/tmp/ptlcap/pyclient.py CHILD_GDS=hash "$@" timeout 20 ../srv ../cli 1 > out.txt 2>&1
echo "srv exit $?" >> out.txt
sleep 0.3; kill $PP
