package dev.rdmafutures.conformance;

/**
 * One row of {@code bin/faults}' table per fault test, printed to standard output as a line starting
 * {@code FAULT-ROW}: fault, provider, operations in flight, how their futures ended, time to detect, whether the
 * runtime went on serving, what was verified. Standard output, not a logger: the scripts collect these lines from
 * surefire's reports on the host and from the VM's console, where tests log warnings only.
 */
public final class FaultRows {
    private FaultRows() {
    }

    /** Prints one row; {@code provider} names the provider and, where it matters, its device. */
    public static void row(String fault, String provider, long inFlight, Object outcomes, String detected,
                           String serving, String verified) {
        System.out.printf("FAULT-ROW | %s | %s | %d | %s | %s | %s | %s |%n", fault, provider, inFlight, outcomes,
                detected, serving, verified);
    }
}
