package dev.rdmafutures.internal.poller;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Errors that escaped a task inside the duty cycle (a command, a deadline, a user callback). Each is counted; each
 * distinct cause (where, exception type, throwing frame) is logged once with its stack trace, repeats at debug
 * level only, so a hot failure cannot flood the log and none is swallowed.
 */
public final class DutyCycleErrors {
    private static final Logger LOG = LoggerFactory.getLogger(DutyCycleErrors.class);

    private final AtomicLong total = new AtomicLong();
    private final Map<String, AtomicLong> byCause = new ConcurrentHashMap<>();
    /** The same counts by where and exception type only, as metrics report them. */
    private final Map<String, AtomicLong> byWhereAndType = new ConcurrentHashMap<>();

    /** Counts {@code error}; logs it if its cause is new. */
    public void record(String where, Throwable error) {
        StackTraceElement[] frames = error.getStackTrace();
        String key = where + '|' + error.getClass().getName() + '|' + (frames.length > 0 ? frames[0] : "?");
        byWhereAndType.computeIfAbsent(where + ": " + error.getClass().getName(), k -> new AtomicLong())
                .incrementAndGet();
        total.incrementAndGet(); // after the cause: whoever sees the total sees its cause counted too
        AtomicLong count = byCause.computeIfAbsent(key, k -> new AtomicLong());
        if (count.getAndIncrement() == 0) {
            LOG.error("error in poller ({}); further errors of this cause are counted, logged at debug", where, error);
        } else {
            LOG.debug("repeated error in poller ({}), {} so far: {}", where, count.get(), error.toString());
        }
    }

    /** How many errors were recorded since the runtime started. */
    public long total() {
        return total.get();
    }

    /** The errors recorded so far by where they happened and their exception type ("where: type"). */
    public Map<String, Long> byCause() {
        Map<String, Long> snapshot = new TreeMap<>();
        byWhereAndType.forEach((cause, count) -> snapshot.put(cause, count.get()));
        return snapshot;
    }
}
