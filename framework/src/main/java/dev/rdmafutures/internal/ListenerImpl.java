package dev.rdmafutures.internal;

import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.BoundListener;
import dev.rdmafutures.spi.IncomingRequest;
import dev.rdmafutures.spi.ListenEvents;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A listener: requests go to the handler if one is set, else to the oldest waiting {@link #next()} future, else
 * into a queue as deep as the backlog; beyond that they are refused, as are those from an address the runtime's
 * {@code PeerFaultPolicy} holds off. Guarded by its own monitor, never held while
 * user code runs.
 */
final class ListenerImpl implements RdmaListener, ListenEvents {
    private final RuntimeOwner runtime;
    private final BoundListener bound;
    private final int backlog;
    private final ArrayDeque<ConnectionRequestImpl> queued = new ArrayDeque<>();
    private final ArrayDeque<CompletableFuture<ConnectionRequest>> waiting = new ArrayDeque<>();
    private Consumer<ConnectionRequest> handler;
    private boolean closed;

    ListenerImpl(RuntimeOwner runtime, BoundListener bound, int backlog) {
        this.runtime = runtime;
        this.bound = bound;
        this.backlog = backlog;
    }

    @Override
    public InetSocketAddress localAddress() {
        return bound.localAddress();
    }

    @Override
    public void onRequest(IncomingRequest incoming) {
        ConnectionRequestImpl request = new ConnectionRequestImpl(runtime, incoming);
        if (runtime.peerFaults().refuses(incoming.remoteAddress().getAddress(), incoming.poller().nanoTime())) {
            request.refuse(); // the address is in a back-off for its faults: the application never sees it
            return;
        }
        offer(request);
    }

    private void offer(ConnectionRequestImpl request) {
        Consumer<ConnectionRequest> h = null;
        CompletableFuture<ConnectionRequest> waiter = null;
        synchronized (this) {
            if (!closed) {
                if (handler != null) {
                    h = handler;
                } else if ((waiter = waiting.poll()) == null && queued.size() < backlog) {
                    queued.add(request);
                    return;
                }
            }
        }
        if (h != null) {
            dispatch(h, request);
        } else if (waiter != null) {
            runtime.completions().deliver(waiter, request, this::offerAgain);
        } else {
            request.refuse(); // closed, or the backlog is full: the peer sees CONNECTION_REFUSED
        }
    }

    private void offerAgain(ConnectionRequest request) {
        offer((ConnectionRequestImpl) request); // its waiter had been cancelled
    }

    private void dispatch(Consumer<ConnectionRequest> h, ConnectionRequestImpl request) {
        runtime.completions().callback("listener request handler", () -> {
            try {
                h.accept(request);
            } catch (RuntimeException e) {
                request.refuse();
                throw e;
            }
        });
    }

    @Override
    public void onRequestWithdrawn(IncomingRequest incoming, RdmaException reason) {
        synchronized (this) {
            queued.removeIf(r -> r.incoming() == incoming);
        }
    }

    @Override
    public CompletableFuture<ConnectionRequest> next() {
        synchronized (this) {
            if (closed) {
                return RdmaFuture.failed(new RdmaException(Status.CANCELED, "listener " + localAddress()
                        + " is closed"));
            }
            if (handler != null) {
                return RdmaFuture.failed(new RdmaException(Status.INVALID_DEVICE_STATE,
                        "listener " + localAddress() + " hands its requests to a handler"));
            }
            ConnectionRequestImpl first = queued.poll();
            if (first != null) {
                RdmaFuture<ConnectionRequest> done = runtime.newFuture();
                done.complete(first);
                return done;
            }
            RdmaFuture<ConnectionRequest> waiter = runtime.newFuture();
            waiting.add(waiter);
            return waiter;
        }
    }

    @Override
    public void onRequest(Consumer<ConnectionRequest> requestHandler) {
        Objects.requireNonNull(requestHandler, "handler");
        List<ConnectionRequestImpl> backlogged;
        synchronized (this) {
            if (handler != null) {
                throw new RdmaException(Status.INVALID_DEVICE_STATE, "listener " + localAddress()
                        + " already has a request handler");
            }
            handler = requestHandler;
            backlogged = new ArrayList<>(queued);
            queued.clear();
        }
        backlogged.forEach(r -> r.poller().endSubject("handing a queued request to the handler", r,
                () -> dispatch(requestHandler, r)));
    }

    @Override
    public void close() {
        List<ConnectionRequestImpl> refused;
        List<CompletableFuture<ConnectionRequest>> cancelled;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            refused = new ArrayList<>(queued);
            queued.clear();
            cancelled = new ArrayList<>(waiting);
            waiting.clear();
        }
        bound.close();
        runtime.untrack(this);
        refused.forEach(ConnectionRequestImpl::refuse);
        RdmaException closedError = new RdmaException(Status.CANCELED, "listener " + localAddress() + " was closed");
        cancelled.forEach(f -> f.completeExceptionally(closedError));
    }

    @Override
    public String toString() {
        return "RdmaListener[" + localAddress() + "]";
    }
}
