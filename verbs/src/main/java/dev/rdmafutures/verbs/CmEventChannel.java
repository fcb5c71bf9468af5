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
    final VerbsListener owner;
    final ListenEvents events;

    /** The loop's own channel, where the CM events of its connections' ids arrive. */
    CmEventChannel(RdmaEventChannel own) {
        this(own, null, null);
    }

    CmEventChannel(RdmaEventChannel channel, VerbsListener listener, ListenEvents events) {
        this.channel = channel;
        this.handle = ((NatObject) channel).getObjId();
        this.fd = NativeVerbs.eventChannelFd(handle);
        this.listener = listener;
        this.owner = listener;
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
