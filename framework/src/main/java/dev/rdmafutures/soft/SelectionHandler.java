package dev.rdmafutures.soft;

import java.nio.channels.SelectionKey;

/** Something registered with a {@link SoftEventLoop}'s selector. */
interface SelectionHandler {
    /** Its key is ready. */
    void onReady(SelectionKey key);

    /** The loop is closing: release everything and report what was outstanding. */
    void onLoopClosed();
}
