package dev.rdmafutures.internal.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR: a connection this runtime started did not come up. */
@Name("dev.rdmafutures.ConnectFailed")
@Label("RDMA Connect Failed")
@Category("RdmaFutures")
@Description("A connection this runtime started failed: refused, unreachable, timed out, cancelled...")
@StackTrace(false)
public final class ConnectFailedEvent extends jdk.jfr.Event {
    @Label("Provider")
    public String provider;
    @Label("Destination")
    public String destination;
    @Label("Status")
    public String status;
    @Label("Message")
    public String message;
}
