package dev.rdmafutures.providerkit;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs the faults remote peers cause (access violations, protocol errors, silence, their Terminates) so that no peer
 * can fill the logs. Per peer address (a peer that reconnects comes back on another port), the first fault of a
 * {@value #WINDOW_SECONDS} s window is logged at WARN; the others of that window are logged at DEBUG only and counted,
 * and the next WARN for that address says how many there were. All addresses together get at most
 * {@value #WARNINGS_PER_WINDOW} WARN lines a window from one runtime, so many addresses cannot flood the logs either;
 * a fault over that budget is counted as its address's. Up to {@value #MAX_ADDRESSES} addresses are remembered, the
 * least recently heard forgotten first (with their counts). The counts of an address that stops faulting are never
 * written: only a fault makes a line. Thread-safe: every poller of a runtime shares one. Both built-in providers log
 * through one, so a peer that provokes faults on soft (Terminates) or on verbs (QP errors) gets the same few lines.
 */
public final class PeerFaultLog {
    public static final int WINDOW_SECONDS = 60;
    public static final int WARNINGS_PER_WINDOW = 64;
    public static final int MAX_ADDRESSES = 4096;
    private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(WINDOW_SECONDS);

    private final Logger log;
    /** By address, least recently heard first: the eldest goes when there are too many. */
    private final Map<InetAddress, Peer> peers = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<InetAddress, Peer> eldest) {
            return size() > MAX_ADDRESSES;
        }
    };
    private long budgetSince;
    private int budgetUsed;
    private boolean started;

    /** A log to this class's logger, {@code dev.rdmafutures.providerkit.PeerFaultLog}. */
    public PeerFaultLog() {
        this(LoggerFactory.getLogger(PeerFaultLog.class));
    }

    /** A log to {@code log}. */
    public PeerFaultLog(Logger log) {
        this.log = log;
    }

    /** One address's window and what it kept from the log. */
    private static final class Peer {
        long windowStart;
        long unlogged;
    }

    /**
     * Logs one fault of {@code peer}, at {@code nowNanos} on the runtime's clock: at WARN when its address has had no
     * WARN this window and the budget allows, else at DEBUG. {@code message} is the line, without the count.
     */
    public void fault(InetSocketAddress peer, long nowNanos, String message) {
        InetAddress address = peer == null ? null : peer.getAddress();
        long unloggedBefore;
        synchronized (this) {
            Peer p = peers.get(address);
            if (p == null) {
                p = new Peer();
                p.windowStart = nowNanos - WINDOW_NANOS;
                peers.put(address, p);
            }
            if (nowNanos - p.windowStart < WINDOW_NANOS || !spendBudget(nowNanos)) {
                p.unlogged++;
                unloggedBefore = -1;
            } else {
                unloggedBefore = p.unlogged;
                p.unlogged = 0;
                p.windowStart = nowNanos;
            }
        }
        if (unloggedBefore < 0) {
            log.debug("{} (not at WARN: this address had its line this minute, or the runtime its 64)", message);
        } else if (unloggedBefore == 0) {
            log.warn(message);
        } else {
            log.warn("{} ({} more faults from {} since its last WARN line, logged at DEBUG only)", message,
                    unloggedBefore, address == null ? "an unknown address" : address.getHostAddress());
        }
    }

    private boolean spendBudget(long nowNanos) {
        if (!started || nowNanos - budgetSince >= WINDOW_NANOS) {
            started = true;
            budgetSince = nowNanos;
            budgetUsed = 0;
        }
        return budgetUsed++ < WARNINGS_PER_WINDOW;
    }
}
