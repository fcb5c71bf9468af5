package dev.rdmafutures.verbs;

import com.ibm.disni.util.MemoryUtils;
import dev.rdmafutures.verbs.NativeLayout.PollFd;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The descriptors a {@link VerbsEventLoop} waits on with one {@code poll(2)}, as an array of {@code struct pollfd} in
 * native memory: first its CM event channels (slot {@code i} for the loop's {@code i}th channel), then the device's
 * asynchronous events, the completion channel and the wake-up eventfd. The CM channels and the device's events come
 * first so that a poll that must not wait looks at them alone. Each poll leaves its findings in the array, which
 * the {@code *Ready} methods read until the next poll. Confined to the loop's thread.
 */
final class PollSet {
    private final int compChannelFd;
    private final int wakeupFd;
    private ByteBuffer fds;
    private long address;
    /** How many CM channels the set holds, which is also the slot of the device's events. */
    private int cmChannels;

    PollSet(int compChannelFd, int wakeupFd) {
        this.compChannelFd = compChannelFd;
        this.wakeupFd = wakeupFd;
    }

    /** Lays the set out anew for these CM channels' descriptors and the device events' descriptor. */
    void rebuild(int[] cmChannelFds, int deviceEventsFd) {
        cmChannels = cmChannelFds.length;
        int count = cmChannels + 3;
        fds = ByteBuffer.allocateDirect(count * PollFd.SIZE).order(ByteOrder.nativeOrder());
        address = MemoryUtils.getAddress(fds);
        for (int i = 0; i < cmChannels; i++) {
            fds.putInt(i * PollFd.SIZE + PollFd.FD, cmChannelFds[i]);
        }
        deviceEventsFd(deviceEventsFd);
        fds.putInt((cmChannels + 1) * PollFd.SIZE + PollFd.FD, compChannelFd);
        fds.putInt((cmChannels + 2) * PollFd.SIZE + PollFd.FD, wakeupFd);
        for (int i = 0; i < count; i++) {
            fds.putShort(i * PollFd.SIZE + PollFd.EVENTS, PollFd.POLLIN);
        }
    }

    /** Replaces the device events' descriptor: -1, which {@code poll(2)} skips, once they failed. */
    void deviceEventsFd(int fd) {
        fds.putInt(cmChannels * PollFd.SIZE + PollFd.FD, fd);
    }

    /** Looks at the CM channels and the device's events without waiting; whether any has something to read. */
    boolean pollEventsNow() {
        return NativeVerbs.pollFds(address, cmChannels + 1, 0) > 0;
    }

    /**
     * Waits up to {@code timeoutMs} for any descriptor of the set; returns how many are ready, 0 when the time ran
     * out or a signal interrupted the wait, negative ({@code -errno}) when the poll failed.
     */
    int pollAll(int timeoutMs) {
        return NativeVerbs.pollFds(address, cmChannels + 3, timeoutMs);
    }

    /** Whether the last poll found the CM channel of slot {@code slot} readable. */
    boolean cmChannelReady(int slot) {
        return ready(slot);
    }

    /** Whether the last poll found any CM channel or the device's events readable. */
    boolean anyEventReady() {
        for (int i = 0; i <= cmChannels; i++) {
            if (ready(i)) {
                return true;
            }
        }
        return false;
    }

    boolean deviceEventsReady() {
        return ready(cmChannels);
    }

    boolean completionChannelReady() {
        return ready(cmChannels + 1);
    }

    boolean wakeupReady() {
        return ready(cmChannels + 2);
    }

    private boolean ready(int slot) {
        return fds.getShort(slot * PollFd.SIZE + PollFd.REVENTS) != 0;
    }
}
