package dev.rdmafutures.jmh;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How long a cache line takes to travel between two CPUs and back, measured by two threads handing a counter to each
 * other. On this project's 2-vCPU virtual machine the figure is bimodal, about 100 ns or about 500 ns, and it changes
 * every few tens of seconds as the host moves the vCPUs: near (sharing a cache) or far. Every busy-polled round trip
 * over loopback hands lines between the two CPUs several times, so TCP's and the soft provider's 8 B round trips
 * follow it (about 7 µs near, about 10 µs far). A benchmark that compares two latencies records this probe with each,
 * so that it compares like with like.
 *
 * <p>Run it only while nothing else spins: the two threads need a CPU each.
 */
final class CoreToCore {
    /** Round trips per batch; the probe reports the median batch. */
    private static final int ROUND_TRIPS = 20_000;
    private static final int BATCHES = 7;
    /** Above this a round trip counts as far: between the two modes seen here, 100 and 500 ns. */
    static final double FAR_NANOS = 250;

    private CoreToCore() {
    }

    /** The probe taken before and after a measurement: like for like only where both ends agree. */
    record Span(double beforeNanos, double afterNanos) {
        /** "near" or "far" where both probes agree, else "changed". */
        String mode() {
            String before = CoreToCore.mode(beforeNanos);
            return before.equals(CoreToCore.mode(afterNanos)) ? before : "changed";
        }

        String json() {
            return String.format(Locale.ROOT, "{\"beforeNs\": %.1f, \"afterNs\": %.1f, \"mode\": \"%s\"}",
                    beforeNanos, afterNanos, mode());
        }
    }

    /** "near" or "far", for a round trip of {@code nanos}. */
    static String mode(double nanos) {
        return nanos > FAR_NANOS ? "far" : "near";
    }

    /** The median round trip between two spinning threads, in nanoseconds. */
    static double roundTripNanos() throws InterruptedException {
        AtomicLong ping = new AtomicLong();
        AtomicLong pong = new AtomicLong();
        long total = (long) ROUND_TRIPS * (BATCHES + 1);
        Thread echo = new Thread(() -> {
            for (long i = 1; i <= total; i++) {
                while (ping.get() != i) {
                    Thread.onSpinWait();
                }
                pong.set(i);
            }
        }, "core-to-core-echo");
        echo.setDaemon(true);
        echo.start();
        double[] batches = new double[BATCHES + 1];
        long sent = 0;
        for (int b = 0; b <= BATCHES; b++) { // batch 0 warms up
            long start = System.nanoTime();
            for (int i = 0; i < ROUND_TRIPS; i++) {
                ping.set(++sent);
                while (pong.get() != sent) {
                    Thread.onSpinWait();
                }
            }
            batches[b] = (System.nanoTime() - start) / (double) ROUND_TRIPS;
        }
        echo.join(TimeUnit.SECONDS.toMillis(10));
        double[] measured = Arrays.copyOfRange(batches, 1, batches.length);
        Arrays.sort(measured);
        return measured[measured.length / 2];
    }

    /** Prints the round trip in nanoseconds and its mode: {@code 104.2 near}. */
    public static void main(String[] args) throws InterruptedException {
        double nanos = roundTripNanos();
        System.out.printf(Locale.ROOT, "%.1f %s%n", nanos, mode(nanos));
    }
}
