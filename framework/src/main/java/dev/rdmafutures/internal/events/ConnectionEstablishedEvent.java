package dev.rdmafutures.internal.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR: a connection was established. */
@Name("dev.rdmafutures.ConnectionEstablished")
@Label("RDMA Connection Established")
@Category("RdmaFutures")
@Description("A connection this runtime started (active) or accepted (passive) was established")
@StackTrace(false)
public final class ConnectionEstablishedEvent extends jdk.jfr.Event {
    @Label("Provider")
    public String provider;
    @Label("Local Address")
    public String local;
    @Label("Remote Address")
    public String remote;
    @Label("Active")
    @Description("This side started the connection")
    public boolean active;
}
