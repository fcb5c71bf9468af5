package dev.rdmafutures.verbs;

/**
 * Work requests gathered during a duty cycle for one post at its end: a queue pair's chains or a shared receive
 * queue's. Listed with the loop ({@link VerbsEventLoop#postLater}) when the first one is gathered, once per cycle.
 */
interface PendingPosts {
    /**
     * Posts what was gathered, one chain per queue, and fails the requests the device refused; returns how many
     * requests it handled.
     */
    int postPending();
}
