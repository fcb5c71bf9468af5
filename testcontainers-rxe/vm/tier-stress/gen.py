#!/usr/bin/env python3
# Writes TierStress.java: 600 small static methods that two threads call in turn, so that each goes through C1 (tier 3)
# and is then replaced by C2, which makes the C1 code not entrant by patching a jmp over its verified entry while the
# other thread runs it. No JNI, no RDMA: under QEMU's multi-threaded TCG the JVM dies in that freshly patched entry
# (docs/profiles/2026-11-24-setup-rate-vm.md, "JVM abort"). Usage: gen.py DIR; then javac -d DIR DIR/TierStress.java
import sys
n = 600
out = ["public final class TierStress {"]
out += [f"  static int m{i}(int x) {{ int s = x; for (int k = 0; k < 3; k++) s = s * 31 + {i} + (s >>> 7); return s; }}"
        for i in range(n)]
out.append("  static int callAll(int x) {")
out += [f"    x = m{i}(x);" for i in range(n)]
out.append("""    return x;
  }
  static volatile int sink;
  public static void main(String[] a) throws Exception {
    long end = System.nanoTime() + Long.parseLong(a[0]) * 1_000_000_000L;
    Thread[] t = new Thread[Integer.parseInt(a[1])];
    for (int j = 0; j < t.length; j++) {
      final int seed = j;
      t[j] = new Thread(() -> { int x = seed; while (System.nanoTime() < end) { x = callAll(x); } sink = x; });
      t[j].start();
    }
    for (Thread th : t) th.join();
    System.out.println("ok");
  }
}""")
open(sys.argv[1] + "/TierStress.java", "w").write("\n".join(out) + "\n")
