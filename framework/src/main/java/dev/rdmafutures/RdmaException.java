package dev.rdmafutures;

import java.util.Objects;

/**
 * The one exception type of RdmaFutures: every failed future and every rejected call carries one, with the
 * {@link Status} that says what happened, never {@link Status#SUCCESS} (the constructors throw
 * {@link IllegalArgumentException} for it). Two exceptions: a {@code null} where an object is required throws
 * {@link NullPointerException} naming the argument, as the JDK's own APIs do; and the callback forms of
 * {@link RdmaConnection}'s posts return their refusal as a {@link Status} instead of throwing.
 *
 * <p>When a peer rejects a connection, {@link #peerPrivateData()} holds the private data it sent with the
 * rejection (NDK's reject private data); it is empty otherwise.
 */
public class RdmaException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private static final byte[] NONE = new byte[0];

    private final Status status;
    private final byte[] peerPrivateData;

    /** A failure with a status and a message that says what the caller can do about it. */
    public RdmaException(Status status, String message) {
        this(status, message, null, NONE);
    }

    /** A failure caused by a lower-level exception. */
    public RdmaException(Status status, String message, Throwable cause) {
        this(status, message, cause, NONE);
    }

    /** A failure that carries the peer's private data, as a rejected connect does. */
    public RdmaException(Status status, String message, Throwable cause, byte[] peerPrivateData) {
        super("[" + Objects.requireNonNull(status, "status") + "] " + message, cause);
        if (status == Status.SUCCESS) {
            throw new IllegalArgumentException("SUCCESS is not a failure: " + message);
        }
        this.status = status;
        this.peerPrivateData = peerPrivateData.length == 0 ? NONE : peerPrivateData.clone();
    }

    /** What happened. */
    public Status status() {
        return status;
    }

    /** Shorthand for {@code status().isRetryable()}. */
    public boolean isRetryable() {
        return status.isRetryable();
    }

    /** The private data the peer sent with a rejection, a fresh copy; empty when there was none. */
    public byte[] peerPrivateData() {
        return peerPrivateData.length == 0 ? NONE : peerPrivateData.clone();
    }
}
