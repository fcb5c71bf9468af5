package dev.rdmafutures.samples.kv;

import dev.rdmafutures.Status;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * How the operations of a run ended, measured or not: checked (a GET whose value passed its checksums, its content
 * and the expectations), acknowledged (a PUT), or failed with a typed transport status; anything else is a problem.
 * A run without problems that lost no operation has {@code started == ended()}.
 *
 * @param started          operations started
 * @param checkedGets      GETs whose value was checked whole
 * @param acknowledgedPuts PUTs the server acknowledged
 * @param failedByStatus   operations the transport ended, by the {@link Status} it gave
 * @param problems         failures that were not typed transport failures: wrong or torn values, unexpected
 *                         answers (which may belong to no operation), operations outstanding at the drain deadline
 */
record Outcomes(long started, long checkedGets, long acknowledgedPuts, Map<Status, Long> failedByStatus,
                long problems) {
    /** A run that could not take place. */
    static final Outcomes NONE = new Outcomes(0, 0, 0, Map.of(), 0);

    Outcomes {
        Map<Status, Long> copy = new EnumMap<>(Status.class); // in the order of Status, as printed
        copy.putAll(failedByStatus);
        failedByStatus = Collections.unmodifiableMap(copy);
    }

    /** Operations that failed with a typed status. */
    long failed() {
        return failedByStatus.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Operations that ended checked, acknowledged or failed typed: the others ended with a problem, or never. */
    long ended() {
        return checkedGets + acknowledgedPuts + failed();
    }
}
