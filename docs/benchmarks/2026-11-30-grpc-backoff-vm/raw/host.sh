#!/bin/bash
# On the host: bin/bench --full's gRPC and Netty allocation steps alone (GrpcBench rdma,rdma_blocking,nio,epoll 3 5;
# NettyAllocationCheck with the same transports), with the vCPU placement before and after the gRPC step; into RAW.
set -eu
JAR=$1; RAW=$2
placement() { echo "$1 $2 $(timeout -k 5 60 java -cp "$JAR" dev.rdmafutures.jmh.CoreToCore)" >> "$RAW/placement.txt"; }
placement host-grpc before
timeout -k 10 1200 java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JAR" dev.rdmafutures.jmh.GrpcBench \
  rdma,rdma_blocking,nio,epoll 3 5 "$RAW/grpc-host.json" > "$RAW/grpc-host.log" 2>&1
placement host-grpc after
placement host-netty-alloc before
timeout -k 10 600 java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JAR" dev.rdmafutures.jmh.NettyAllocationCheck \
  rdma,rdma_blocking,nio,epoll 200000 "$RAW/netty-alloc-host.json" > "$RAW/netty-alloc-host.log" 2>&1
placement host-netty-alloc after
