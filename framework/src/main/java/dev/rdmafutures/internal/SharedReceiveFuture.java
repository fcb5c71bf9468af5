package dev.rdmafutures.internal;

import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.SharedReceive;
import dev.rdmafutures.SharedReceiveCallback;
import java.util.OptionalInt;

/** The future of one shared-receive-queue receive posted through the future API: the callback of its operation. */
final class SharedReceiveFuture extends RdmaFuture<SharedReceive> implements SharedReceiveCallback {
    SharedReceiveFuture(Driver driver) {
        super(driver);
    }

    @Override
    public void received(long context, RdmaConnection connection, int bytes) {
        complete(new SharedReceive(connection, bytes, OptionalInt.empty()));
    }

    @Override
    public void receivedWithInvalidate(long context, RdmaConnection connection, int bytes, int token) {
        complete(new SharedReceive(connection, bytes, OptionalInt.of(token)));
    }

    @Override
    public void failed(long context, RdmaException error) {
        completeExceptionally(error);
    }
}
