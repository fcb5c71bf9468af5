package dev.rdmafutures.verbs;

import static dev.rdmafutures.verbs.NativeLayout.CmEventInfo.ID;
import static dev.rdmafutures.verbs.NativeLayout.CmEventInfo.INITIATOR_DEPTH;
import static dev.rdmafutures.verbs.NativeLayout.CmEventInfo.PRIVATE_DATA;
import static dev.rdmafutures.verbs.NativeLayout.CmEventInfo.PRIVATE_DATA_CAPACITY;
import static dev.rdmafutures.verbs.NativeLayout.CmEventInfo.PRIVATE_DATA_LENGTH;
import static dev.rdmafutures.verbs.NativeLayout.CmEventInfo.RESPONDER_RESOURCES;
import static dev.rdmafutures.verbs.NativeLayout.CmEventInfo.STATUS;
import static dev.rdmafutures.verbs.NativeLayout.CmEventInfo.TYPE;

import dev.rdmafutures.ReadLimits;
import java.nio.ByteBuffer;

/**
 * One CM event as {@code NativeVerbs.getCmEvent} copied it before acknowledging: everything DiSNI's own event
 * drops (status, private data, the peer's read limits). Read-only view over the loop's event buffer, valid until
 * the next event is fetched, or over a {@link #copy()} of it.
 */
final class CmEvent {
    static final int ADDR_RESOLVED = 0;
    static final int ADDR_ERROR = 1;
    static final int ROUTE_RESOLVED = 2;
    static final int ROUTE_ERROR = 3;
    static final int CONNECT_REQUEST = 4;
    static final int CONNECT_RESPONSE = 5;
    static final int CONNECT_ERROR = 6;
    static final int UNREACHABLE = 7;
    static final int REJECTED = 8;
    static final int ESTABLISHED = 9;
    static final int DISCONNECTED = 10;
    static final int DEVICE_REMOVAL = 11;
    static final int ADDR_CHANGE = 14;
    static final int TIMEWAIT_EXIT = 15;
    private static final String[] NAMES = {"ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED", "ROUTE_ERROR",
        "CONNECT_REQUEST", "CONNECT_RESPONSE", "CONNECT_ERROR", "UNREACHABLE", "REJECTED", "ESTABLISHED",
        "DISCONNECTED", "DEVICE_REMOVAL", "MULTICAST_JOIN", "MULTICAST_ERROR", "ADDR_CHANGE", "TIMEWAIT_EXIT"};

    private final ByteBuffer info;

    CmEvent(ByteBuffer info) {
        this.info = info;
    }

    /** This event's record, copied: for a loop that handles it after the record this view reads has moved on. */
    CmEvent copy() {
        ByteBuffer copy = ByteBuffer.allocate(info.capacity()).order(info.order());
        copy.put(0, info, 0, info.capacity());
        return new CmEvent(copy);
    }

    static String name(int type) {
        return type >= 0 && type < NAMES.length ? NAMES[type] : "EVENT_" + type;
    }

    long id() {
        return info.getLong(ID);
    }

    int type() {
        return info.getInt(TYPE);
    }

    int status() {
        return info.getInt(STATUS);
    }

    /**
     * The private data as the transport reported it (IB/RoCE: the whole zero-padded field); a length outside the
     * record's capacity is clamped to it (found by CmEventFuzzTest: a negative length threw).
     */
    byte[] privateData() {
        int length = Math.max(0, Math.min(info.getInt(PRIVATE_DATA_LENGTH), PRIVATE_DATA_CAPACITY));
        byte[] data = new byte[length];
        info.get(PRIVATE_DATA, data);
        return data;
    }

    /**
     * The peer's read limits as seen from here: the kernel reports the peer's initiator depth as our responder
     * resources and vice versa, so the peer's inbound limit is our initiator depth.
     */
    ReadLimits peerReadLimits() {
        int responderResources = Byte.toUnsignedInt(info.get(RESPONDER_RESOURCES));
        int initiatorDepth = Byte.toUnsignedInt(info.get(INITIATOR_DEPTH));
        return new ReadLimits(initiatorDepth, responderResources);
    }

    /**
     * The peer's read limits in an active side's ESTABLISHED on iWARP, where the kernel reports the MPA reply's
     * values as the passive side sent them: its inbound limit as our responder resources.
     */
    ReadLimits peerReadLimitsAsSent() {
        return new ReadLimits(Byte.toUnsignedInt(info.get(RESPONDER_RESOURCES)),
                Byte.toUnsignedInt(info.get(INITIATOR_DEPTH)));
    }

    @Override
    public String toString() {
        return name(type()) + "[status " + status()
                + ", responder resources " + Byte.toUnsignedInt(info.get(RESPONDER_RESOURCES))
                + ", initiator depth " + Byte.toUnsignedInt(info.get(INITIATOR_DEPTH))
                + ", private data " + info.getInt(PRIVATE_DATA_LENGTH) + " B]";
    }
}
