package dev.rdmafutures.verbs;

import java.util.List;

/**
 * Work requests gathered during a duty cycle for one post at its end: a queue pair's chains or a shared receive
 * queue's. Listed with the loop ({@link VerbsEventLoop#postLater}) when the first one is gathered, once per cycle.
 *
 * <p>The loop posts in two phases, {@link #postAll}: every listed queue's receives, then every listed queue's
 * send-queue requests. A receive posted on a poller before a Send therefore reaches the device before that Send, also
 * when the Send's answer comes back on another queue pair of the poller or through a shared receive queue: as with
 * NDK or plain verbs, where each post reaches the device when it is made, the peer cannot answer a Send before the
 * receive posted ahead of it is there.
 */
interface PendingPosts {
    /**
     * Posts the receives gathered so far, one chain; returns how many. May run more than once before
     * {@link #postPendingSends()}; requests the device refused fail there.
     */
    int postPendingReceives();

    /**
     * Posts what was gathered and not yet posted, receives first, one chain per queue, fails the requests the device
     * refused and ends the listing; returns how many requests it handled.
     */
    int postPendingSends();

    /**
     * Posts everything {@code listed} gathered: each one's receives, then each one's send-queue requests. By index, to
     * the end as the list grows: a refused request's callback may post again, and what it lists gets both phases too.
     * Returns how many requests were handled.
     */
    static int postAll(List<? extends PendingPosts> listed) {
        int work = 0;
        int received = 0;
        int sent = 0;
        while (received < listed.size()) {
            for (; received < listed.size(); received++) {
                work += listed.get(received).postPendingReceives();
            }
            for (; sent < received; sent++) {
                work += listed.get(sent).postPendingSends();
            }
        }
        return work;
    }
}
