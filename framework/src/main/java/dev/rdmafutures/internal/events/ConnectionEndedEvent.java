package dev.rdmafutures.internal.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR: an established connection ended. */
@Name("dev.rdmafutures.ConnectionEnded")
@Label("RDMA Connection Ended")
@Category("RdmaFutures")
@Description("An established connection ended, with its DisconnectReason")
@StackTrace(false)
public final class ConnectionEndedEvent extends jdk.jfr.Event {
    @Label("Provider")
    public String provider;
    @Label("Remote Address")
    public String remote;
    @Label("Reason")
    public String reason;
}
