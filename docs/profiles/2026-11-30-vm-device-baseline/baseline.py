#!/usr/bin/env python3
"""Tabulates cost.sh's runs: each device beside TCP in the same boot, per round.

Usage: baseline.py DEVICE=DIR... (for instance siw0=siw0 rxe0=rxe0 rxe0=rxe0-mtu4096)
CPU per operation is machine CPU (/proc/stat ticks, both sides and the kernel) over operations; a perftest's is the
difference of its 20,000 and 2,000 runs over 18,000, so the tool's start-up cancels out.
"""
import json
import re
import sys

MIB = 1 << 20


def ticks(directory):
    busy = {}
    for line in open(f"{directory}/cpu.txt"):
        name, b0, _, b1, _ = line.split()
        busy[name] = (int(b1) - int(b0)) / 100.0  # CPU seconds at 100 Hz
    return busy


def perftest_row(path, size, n):
    for line in open(path):
        fields = line.split()
        if fields[:2] == [str(size), str(n)]:
            return fields
    raise SystemExit(f"{path}: no result line")


print("| device (dir), round | 1 KiB round trip, device / TCP | CPU per round trip | 16 KiB MiB/s, device / TCP "
      "| CPU per MiB |")
print("|---|---|---|---|---|")
for arg in sys.argv[1:]:
    dev, directory = arg.split("=")
    busy = ticks(directory)
    for r in (1, 2):
        # perftest's send_lat t_avg and sockperf's avg-latency are both half a round trip.
        rt_dev = 2 * float(perftest_row(f"{directory}/send-lat-{dev}-r{r}.log", 1024, 20000)[5])
        cpu_rt_dev = (busy[f"send-lat-{dev}-r{r}"] - busy[f"send-lat-short-{dev}-r{r}"]) / 18000 * 1e6
        sockperf = open(f"{directory}/sockperf-{dev}-r{r}.log").read()
        trips = int(re.search(r"\[Total Run\].*ReceivedMessages=(\d+)", sockperf).group(1))
        rt_tcp = 2 * float(re.search(r"avg-latency=([\d.]+)", sockperf).group(1))
        cpu_rt_tcp = busy[f"sockperf-{dev}-r{r}"] / trips * 1e6
        mbs_dev = float(perftest_row(f"{directory}/send-bw-{dev}-r{r}.log", 16384, 20000)[3])
        mib_dev = 18000 * 16384 / MIB
        cpu_mb_dev = (busy[f"send-bw-{dev}-r{r}"] - busy[f"send-bw-short-{dev}-r{r}"]) * 1e3 / mib_dev
        iperf = json.load(open(f"{directory}/iperf3-{dev}-r{r}.json"))["end"]["sum_received"]
        mbs_tcp = iperf["bits_per_second"] / 8 / MIB  # perftest's MB/sec is MiB/s too
        cpu_mb_tcp = busy[f"iperf3-{dev}-r{r}"] * 1e3 / (iperf["bytes"] / MIB)
        print(f"| {dev} ({directory}), {r} | {rt_dev:.0f} / {rt_tcp:.0f} us = {rt_dev / rt_tcp:.2f}x "
              f"| {cpu_rt_dev:.0f} / {cpu_rt_tcp:.0f} us = {cpu_rt_dev / cpu_rt_tcp:.2f}x "
              f"| {mbs_dev:.1f} / {mbs_tcp:.1f} = {mbs_dev / mbs_tcp:.2f}x "
              f"| {cpu_mb_dev:.1f} / {cpu_mb_tcp:.1f} ms = {cpu_mb_dev / cpu_mb_tcp:.2f}x |")
