package dev.rdmafutures.internal.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** JFR: a peer address reached the fault limit, and the runtime's listeners refuse it for a while. */
@Name("dev.rdmafutures.PeerBackOff")
@Label("RDMA Peer Back-off")
@Category("RdmaFutures")
@Description("A peer address made too many faults (access violations, protocol errors) and is refused for a while")
@StackTrace(false)
public final class PeerBackOffEvent extends jdk.jfr.Event {
    @Label("Provider")
    public String provider;
    @Label("Address")
    public String address;
    @Label("Faults")
    @Description("The faults in the address's bucket when this back-off started")
    public int faults;
    @Label("Back-off")
    @Timespan(Timespan.NANOSECONDS)
    public long backOff;
}
