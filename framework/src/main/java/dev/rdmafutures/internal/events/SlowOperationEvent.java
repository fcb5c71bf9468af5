package dev.rdmafutures.internal.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * JFR: an operation took at least the runtime's slow-operation threshold from its hand-off to the poller to its
 * outcome. Timed only while a recording enables this event; committed after the fact, so it is an instant event
 * that carries its duration.
 */
@Name("dev.rdmafutures.SlowOperation")
@Label("Slow RDMA Operation")
@Category("RdmaFutures")
@Description("An operation that took at least RdmaRuntime.Builder.slowOperationThreshold")
@StackTrace(false)
public final class SlowOperationEvent extends jdk.jfr.Event {
    @Label("Kind")
    public String kind;
    @Label("Bytes")
    public long bytes;
    @Label("Status")
    @Description("SUCCESS, or the status it failed with")
    public String status;
    @Label("Took")
    @Timespan(Timespan.NANOSECONDS)
    public long took;
}
