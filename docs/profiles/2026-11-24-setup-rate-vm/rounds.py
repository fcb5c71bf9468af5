# The per-round tables of 2026-11-24-setup-rate-vm.md from one setup-rate-vm.sh raw directory: each round's connect
# time, cmtime against the soft and verbs listeners and the verbs connector, then each peer's JVM and stage figures.
# Usage: python3 rounds.py RAW_DIR [DEVICE]   (DEVICE: siw0 unless told)
import json, re, sys, glob, os
d = sys.argv[1]; dev = sys.argv[2] if len(sys.argv) > 2 else "siw0"
def connect_ms(path):
    for line in open(path):
        m = re.match(r"^connect\s*:\s*([\d.]+)", line)
        if m: return float(m.group(1))
names = sorted({re.search(r"-(warmup\d*|\d+)\.log$", p).group(1) for p in glob.glob(f"{d}/setup-rate-{dev}-cmtime-cmtime-*.log") if not p.endswith("server.log")}, key=lambda n: (not n.startswith("warm"), int(n[6:] or 0) if n.startswith("warm") else int(n)))
print("round | cmtime->cmtime connect ms | soft connect ms (ratio) | verbs connect ms (ratio) | verbs connector s (ratio to cmtime set-up)")
peer = {}
for p in ("soft", "verbs"):
    f = f"{d}/setup-rate-{dev}-cmtime-{p}.peer.json"
    if os.path.exists(f): peer[p] = json.load(open(f))["rounds"]
conn = json.load(open(f"{d}/setup-rate-{dev}-verbs-cmtime.peer.json"))["rounds"]
for i, n in enumerate(names):
    base = connect_ms(f"{d}/setup-rate-{dev}-cmtime-cmtime-{n}.log")
    cells = [n, f"{base:.1f}"]
    for p in ("soft", "verbs"):
        f = f"{d}/setup-rate-{dev}-cmtime-{p}-{n}.log"
        if os.path.exists(f):
            ms = connect_ms(f); cells.append(f"{ms:.0f} ({base/ms:.2f})")
        else: cells.append("-")
    # cmtime set-up total
    tot = 0
    for line in open(f"{d}/setup-rate-{dev}-cmtime-cmtime-{n}.log"):
        m = re.match(r"^(create id|resolve addr|resolve route|create qp|connect)\s*:\s*([\d.]+)", line)
        if m: tot += float(m.group(2))
    c = conn[i]["connectSeconds"] * 1000
    cells.append(f"{c:.0f} ({tot/c:.2f})")
    print(" | ".join(cells))
print()
for p, rounds in list(peer.items()) + [("connector", conn)]:
    print(p)
    for r in rounds:
        j = r["jvm"]; s = r["stages"]
        print("  n=%d rate=%.0f/s wall=%.0f compile=%d classes=%d gc=%d runtimeCPU=%.0f processCPU=%.0f stages=%s" % (
            r["connections"], r.get("acceptsPerSecond", r.get("connectsPerSecond")), j["wallMs"], j["compileMs"], j["classesLoaded"],
            j["gcCount"], j["runtimeThreadsCpuMs"], j["processCpuMs"],
            {k: v["median"] if isinstance(v, dict) else v for k, v in s.items()}))
