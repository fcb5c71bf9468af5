package dev.rdmafutures.internal.poller;

import java.util.Map;
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

    /** Counts {@code error}; logs it if its cause is new. */
    public void record(String where, Throwable error) {
        total.incrementAndGet();
        StackTraceElement[] frames = error.getStackTrace();
        String key = where + '|' + error.getClass().getName() + '|' + (frames.length > 0 ? frames[0] : "?");
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
}
