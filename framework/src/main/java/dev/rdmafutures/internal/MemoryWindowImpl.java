package dev.rdmafutures.internal;

import dev.rdmafutures.MemoryWindow;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.ProviderWindow;

/** The API face of a provider's memory window; remembers the span of its last binding for {@link #remote()}. */
final class MemoryWindowImpl implements MemoryWindow {
    private final RuntimeOwner owner;
    private final DomainImpl domain;
    private final ProviderWindow window;
    private volatile RemoteBuffer bound;
    private volatile boolean closed;

    MemoryWindowImpl(DomainImpl domain, ProviderWindow window) {
        this.owner = domain.owner();
        this.domain = domain;
        this.window = window;
    }

    ProviderWindow provider() {
        return window;
    }

    boolean belongsTo(RuntimeOwner runtime) {
        return owner == runtime;
    }

    DomainImpl domain() {
        return domain;
    }

    boolean isClosed() {
        return closed;
    }

    /** A bind of {@code length} bytes that gave the window {@code token} succeeded: what the peer addresses. */
    RemoteBuffer boundTo(int length, int token) {
        RemoteBuffer remote = new RemoteBuffer(window.remoteBase(), length, token);
        if (token == window.token()) {
            bound = remote; // a later bind that took effect already keeps its own
        }
        return remote;
    }

    @Override
    public boolean isBound() {
        return !closed && window.isBound();
    }

    @Override
    public int token() {
        return window.token();
    }

    @Override
    public RemoteBuffer remote() {
        RemoteBuffer remote = bound;
        if (remote == null || !isBound()) {
            throw new RdmaException(Status.INVALID_DEVICE_STATE, this + " is not bound");
        }
        return remote;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        window.close();
        domain.untrack(this);
    }

    @Override
    public String toString() {
        return String.format("MemoryWindow[token %08x%s]", window.token(), isBound() ? ", bound" : "");
    }
}
