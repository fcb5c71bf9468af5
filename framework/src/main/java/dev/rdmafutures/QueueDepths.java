package dev.rdmafutures;

/**
 * A connection's queue depths, NDK's {@code InitiatorQueueDepth} and {@code ReceiveQueueDepth} of {@code NdkCreateQp}:
 * how many operations may be outstanding at once.
 *
 * <ul>
 *   <li>{@code initiator}: READs, WRITEs, SENDs and Send-with-Invalidates posted and not yet reported.</li>
 *   <li>{@code receive}: receives posted and not yet reported.</li>
 * </ul>
 *
 * <p>An operation posted beyond its depth fails at once with {@link Status#INSUFFICIENT_RESOURCES} and nothing is
 * posted; a slot frees when an operation's outcome is reported. What a consumer asks for with
 * {@code withQueueDepths(initiator, receive)} is capped to {@link AdapterInfo#maxInitiatorQueueDepth()} and
 * {@link AdapterInfo#maxReceiveQueueDepth()}; {@link RdmaConnection#queueDepths()} reports what was granted.
 *
 * @param initiator operations other than receives that may be outstanding
 * @param receive   receives that may be outstanding
 */
public record QueueDepths(int initiator, int receive) {
    /** The depths a connect or accept asks for when the caller names none: 128 each. */
    public static final QueueDepths DEFAULT = new QueueDepths(128, 128);

    /** Rejects depths below 1 with {@link Status#INVALID_PARAMETER}. */
    public QueueDepths {
        checkPositive("initiator", initiator);
        checkPositive("receive", receive);
    }

    /** These depths capped to the adapter's maxima. */
    public QueueDepths cappedTo(AdapterInfo adapter) {
        return new QueueDepths(Math.min(initiator, adapter.maxInitiatorQueueDepth()),
                Math.min(receive, adapter.maxReceiveQueueDepth()));
    }

    private static void checkPositive(String which, int depth) {
        if (depth < 1) {
            throw new RdmaException(Status.INVALID_PARAMETER, which + " queue depth " + depth
                    + " must be at least 1 (the provider caps it to the adapter's maximum)");
        }
    }
}
