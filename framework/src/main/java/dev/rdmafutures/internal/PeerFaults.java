package dev.rdmafutures.internal;

import dev.rdmafutures.PeerFaultPolicy;
import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A runtime's count of the faults each peer address made, and the back-offs they earned ({@link PeerFaultPolicy}):
 * per address a leaky bucket that empties at {@code maxFaults} per window, so pacing faults below the limit gains a
 * peer no more than that rate.
 * Pollers report faults and ask before handing a connection request on; both take one short lock, and neither happens
 * on the data path. Up to {@value #MAX_ADDRESSES} addresses are remembered, the least recently heard forgotten first:
 * an attacker with more addresses than that can make the runtime forget some of them, never refuse a peer that made
 * no faults. Times are the runtime's {@code Ticker} nanoseconds.
 */
final class PeerFaults {
    static final int MAX_ADDRESSES = 4096;

    private final PeerFaultPolicy policy;
    private final RuntimeRecorder recorder;
    private final double windowNanos;
    private final long firstBackOffNanos;
    private final long maxBackOffNanos;
    private final Map<InetAddress, Record> records = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<InetAddress, Record> eldest) {
            return size() > MAX_ADDRESSES;
        }
    };

    PeerFaults(PeerFaultPolicy policy, RuntimeRecorder recorder) {
        this.policy = policy;
        this.recorder = recorder;
        this.windowNanos = policy.window().toNanos();
        this.firstBackOffNanos = policy.firstBackOff().toNanos();
        this.maxBackOffNanos = policy.maxBackOff().toNanos();
    }

    /** One address's bucket of faults and its back-off. */
    private static final class Record {
        /** Faults in the bucket at {@link #levelAt}; it empties at {@code maxFaults} per window. */
        double level;
        long levelAt;
        long lastFaultAt;
        /** The end of the current back-off; meaningful while {@link #backOffs} is positive. */
        long refusedUntil;
        /** Back-offs so far: the next lasts {@code firstBackOff * 2^backOffs}, up to the maximum. */
        int backOffs;
    }

    /** {@code address}'s peer made a fault at {@code now}. */
    void fault(InetAddress address, long now) {
        if (!policy.enabled() || address == null) {
            return;
        }
        int faults;
        long backOff;
        synchronized (this) {
            Record r = current(address, now);
            r.level = Math.max(0, r.level - (double) (now - r.levelAt) * policy.maxFaults() / windowNanos) + 1;
            r.levelAt = now;
            r.lastFaultAt = now;
            // A fault during a back-off stays in the bucket: the address's first fault after it may start the next.
            if (r.level < policy.maxFaults() || refusing(r, now)) {
                return;
            }
            faults = (int) Math.round(r.level);
            backOff = firstBackOffNanos;
            for (int i = 0; i < r.backOffs && backOff < maxBackOffNanos; i++) {
                backOff *= 2; // below the maximum (at most a day) before it doubles: no overflow
            }
            backOff = Math.min(backOff, maxBackOffNanos);
            r.backOffs++;
            r.refusedUntil = now + backOff;
        }
        recorder.peerBackOff(address, faults, backOff);
    }

    /** Whether a connection request from {@code address} at {@code now} is refused; counts it when it is. */
    boolean refuses(InetAddress address, long now) {
        if (!policy.enabled() || address == null) {
            return false;
        }
        synchronized (this) {
            Record r = records.get(address);
            if (r == null || !refusing(r, now)) {
                return false;
            }
        }
        recorder.peerRefused();
        return true;
    }

    private static boolean refusing(Record r, long now) {
        return r.backOffs > 0 && now - r.refusedUntil < 0;
    }

    /** {@code address}'s record, afresh when it made no fault for longer than the longest back-off. */
    private Record current(InetAddress address, long now) {
        Record r = records.get(address);
        if (r != null && now - r.lastFaultAt > maxBackOffNanos) {
            r = null;
        }
        if (r == null) {
            r = new Record();
            r.levelAt = now;
            records.put(address, r);
        }
        return r;
    }
}
