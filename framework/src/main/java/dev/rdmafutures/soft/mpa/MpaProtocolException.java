package dev.rdmafutures.soft.mpa;

import dev.rdmafutures.Status;

/** The peer sent bytes that break MPA; {@link #status()} says how the connection attempt fails. */
public final class MpaProtocolException extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient Status status;

    /** A protocol violation with the status the attempt fails with. */
    public MpaProtocolException(Status status, String message) {
        super(message);
        this.status = status;
    }

    /** The status to report. */
    public Status status() {
        return status;
    }
}
