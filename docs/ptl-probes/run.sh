#!/bin/bash
# usage: run.sh <dir> <proxyport> [extra env assignments...]
d=$1; port=$2; shift 2
mkdir -p /tmp/ptlcap/$d && cd /tmp/ptlcap/$d && rm -f *.jsonl upstream.txt
python3 ../proxy.py $port upstream.txt cap & PP=$!
sleep 0.5
env PROXY_PORT=$port "$@" timeout 60 ../srv ../cli > out.txt 2>&1
echo "srv exit $?" >> out.txt
sleep 0.3
kill $PP
