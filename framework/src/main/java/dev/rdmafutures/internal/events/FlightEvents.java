package dev.rdmafutures.internal.events;

import jdk.jfr.EventType;
import org.slf4j.LoggerFactory;

/**
 * Whether this JVM's Flight Recorder works. It may not: a stripped JDK image (seen in a container whose JDK had no
 * {@code java.security} file) fails JFR's initialization with an {@code InternalError}, and a runtime must start
 * there anyway, without events. Checked once, on first use.
 */
public final class FlightEvents {
    private static final EventType SLOW_OPERATION = slowOperationType();

    private FlightEvents() {
    }

    private static EventType slowOperationType() {
        try {
            return EventType.getEventType(SlowOperationEvent.class);
        } catch (Throwable unavailable) { // InternalError, IllegalStateException: JFR cannot initialize here
            LoggerFactory.getLogger(FlightEvents.class).info("JDK Flight Recorder is unavailable in this JVM ({}); "
                    + "RdmaFutures runs without its JFR events", unavailable.toString());
            return null;
        }
    }

    /** Whether events can be emitted at all. */
    public static boolean available() {
        return SLOW_OPERATION != null;
    }

    /** Whether a recording enables {@link SlowOperationEvent} now. */
    public static boolean slowOperationsRecorded() {
        return SLOW_OPERATION != null && SLOW_OPERATION.isEnabled();
    }
}
