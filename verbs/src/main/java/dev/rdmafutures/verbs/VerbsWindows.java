package dev.rdmafutures.verbs;

import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device's memory windows, by the index their rkeys share: a peer's Send with Invalidate names an rkey, and the
 * window it revoked learns so here; a region's or a QP's end revokes the windows bound over or on it; the device's
 * end closes them all, before its protection domain goes. Thread-safe.
 */
final class VerbsWindows {
    private static final Logger LOG = LoggerFactory.getLogger(VerbsWindows.class);

    private final String deviceName;
    private final long pdHandle;
    private final TokenRetirements tokenRetirements;
    private final Map<Integer, VerbsWindow> byIndex = new ConcurrentHashMap<>();

    VerbsWindows(String deviceName, long pdHandle, TokenRetirements tokenRetirements) {
        this.deviceName = deviceName;
        this.pdHandle = pdHandle;
        this.tokenRetirements = tokenRetirements;
    }

    /** Whether protection domain {@code pdHandle}'s device allocates type-2 windows: it allocates and frees one. */
    static boolean supported(long pdHandle) {
        long probe = NativeVerbs.allocMw(pdHandle);
        if (probe < 0) {
            return false;
        }
        NativeVerbs.deallocMw(probe);
        return true;
    }

    VerbsWindow allocate() {
        VerbsWindow window = VerbsWindow.allocate(this, pdHandle);
        byIndex.put(window.index(), window);
        return window;
    }

    /** A peer's Send with Invalidate revoked {@code rkey} on this device. */
    void invalidatedRemotely(int rkey) {
        VerbsWindow window = byIndex.get(rkey >>> 8);
        if (window != null) {
            window.invalidatedRemotely(rkey);
        }
    }

    /** {@code region} is being deregistered: the windows bound over it are revoked first. */
    void regionEnding(VerbsRegion region) {
        for (VerbsWindow window : byIndex.values()) {
            window.regionEnding(region);
        }
    }

    /** {@code queuePair} is about to be destroyed: the windows bound on it are revoked first. */
    void queuePairEnding(VerbsQueuePair queuePair) {
        for (VerbsWindow window : byIndex.values()) {
            window.queuePairEnding(queuePair);
        }
    }

    /** A window's token stopped working: invalidated, rebound, replaced or closed. */
    void tokenRetired() {
        tokenRetirements.retired();
    }

    void reindexed(VerbsWindow window, int oldIndex) {
        byIndex.remove(oldIndex, window);
        byIndex.put(window.index(), window);
    }

    void removed(VerbsWindow window, int index) {
        byIndex.remove(index, window);
    }

    void recordError(String call, String detail) {
        LOG.warn("{} on {} failed: {}", call, deviceName, detail);
    }

    /** Closes every window, before the protection domain is deallocated. */
    void closeAll() {
        for (VerbsWindow window : byIndex.values()) {
            window.close();
        }
    }
}
