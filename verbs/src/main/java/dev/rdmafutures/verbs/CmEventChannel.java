package dev.rdmafutures.verbs;

import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.impl.NatObject;
import dev.rdmafutures.spi.ListenEvents;
import dev.rdmafutures.verbs.jni.NativeVerbs;

/**
 * A CM event channel a {@link VerbsEventLoop} reads: its own, or a listener's, whose connect requests arrive on it.
 * Confined to the loop's thread.
 */
final class CmEventChannel {
    final RdmaEventChannel channel;
    final long handle;
    final int fd;
    /** The listener until it stops listening; null: the loop's own channel, or a stopped listener's. */
    private VerbsListener listener;
    /** The listener whose channel this is, stopped or not; null for the loop's own. */
    final VerbsListener of;
    final ListenEvents events;

    CmEventChannel(RdmaEventChannel channel, VerbsListener listener) {
        this(channel, listener, null);
    }

    CmEventChannel(RdmaEventChannel channel, VerbsListener listener, ListenEvents events) {
        this.channel = channel;
        this.handle = ((NatObject) channel).getObjId();
        this.fd = NativeVerbs.eventChannelFd(handle);
        this.listener = listener;
        this.of = listener;
        this.events = events;
    }

    /** The listener whose requests arrive here; null once it stopped listening, and for the loop's own channel. */
    VerbsListener listener() {
        return listener;
    }

    /** The listener stopped: requests it spawned may still report here, but no new one is answered. */
    void stopListening() {
        listener = null;
    }
}
