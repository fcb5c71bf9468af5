package dev.rdmafutures.providerkit;

import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.ReadLimits;

/** NDK's read-limit arithmetic, shared by every provider so that all negotiate alike. */
public final class ReadLimitNegotiation {
    private ReadLimitNegotiation() {
    }

    /** What we offer a peer: our request capped to the adapter's maxima. */
    public static ReadLimits offer(ReadLimits requested, AdapterInfo adapter) {
        return new ReadLimits(Math.min(requested.inbound(), adapter.maxInboundReadLimit()),
                Math.min(requested.outbound(), adapter.maxOutboundReadLimit()));
    }

    /**
     * The effective limits: inbound = min(requested inbound, adapter max, peer's outbound); outbound =
     * min(requested outbound, adapter max, peer's inbound).
     */
    public static ReadLimits effective(ReadLimits requested, AdapterInfo adapter, ReadLimits peer) {
        ReadLimits offer = offer(requested, adapter);
        return new ReadLimits(Math.min(offer.inbound(), peer.outbound()), Math.min(offer.outbound(), peer.inbound()));
    }
}
