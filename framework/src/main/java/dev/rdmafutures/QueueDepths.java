package dev.rdmafutures;

/**
 * A connection's queue depths and scatter-gather limits, NDK's {@code InitiatorQueueDepth},
 * {@code ReceiveQueueDepth}, {@code MaxInitiatorRequestSge} and {@code MaxReceiveRequestSge} of {@code NdkCreateQp}.
 *
 * <ul>
 *   <li>{@code initiator}: READs, WRITEs, SENDs and Send-with-Invalidates posted and not yet reported.</li>
 *   <li>{@code receive}: receives posted and not yet reported.</li>
 *   <li>{@code initiatorSge}: segments one READ, WRITE or SEND may carry ({@link ScatterGatherList}).</li>
 *   <li>{@code receiveSge}: segments one receive may carry.</li>
 * </ul>
 *
 * <p>An operation posted beyond its depth fails at once with {@link Status#INSUFFICIENT_RESOURCES}, one with more
 * segments than allowed with {@link Status#INVALID_PARAMETER}; nothing is posted either way. A slot frees when an
 * operation's outcome is reported. What a consumer asks for with {@code withQueueDepths} and {@code withMaxSge} is
 * capped to {@link AdapterInfo#maxInitiatorQueueDepth()}, {@link AdapterInfo#maxReceiveQueueDepth()},
 * {@link AdapterInfo#maxInitiatorSge()} and {@link AdapterInfo#maxReceiveSge()};
 * {@link RdmaConnection#queueDepths()} reports what was granted.
 *
 * @param initiator    operations other than receives that may be outstanding
 * @param receive      receives that may be outstanding
 * @param initiatorSge segments per READ, WRITE or SEND
 * @param receiveSge   segments per receive
 */
public record QueueDepths(int initiator, int receive, int initiatorSge, int receiveSge) {
    /** The segments per operation a connect or accept asks for when the caller names none. */
    public static final int DEFAULT_MAX_SGE = 4;

    /** What a connect or accept asks for when the caller names nothing: depths of 128, 4 segments per operation. */
    public static final QueueDepths DEFAULT = new QueueDepths(128, 128);

    /** Rejects values below 1 with {@link Status#INVALID_PARAMETER}. */
    public QueueDepths {
        checkPositive("initiator queue depth", initiator);
        checkPositive("receive queue depth", receive);
        checkPositive("initiator segments per request", initiatorSge);
        checkPositive("receive segments per request", receiveSge);
    }

    /** Depths with {@value #DEFAULT_MAX_SGE} segments per operation. */
    public QueueDepths(int initiator, int receive) {
        this(initiator, receive, DEFAULT_MAX_SGE, DEFAULT_MAX_SGE);
    }

    /** These depths with other scatter-gather limits. */
    public QueueDepths withMaxSge(int initiatorSegments, int receiveSegments) {
        return new QueueDepths(initiator, receive, initiatorSegments, receiveSegments);
    }

    /** These depths capped to the adapter's maxima. */
    public QueueDepths cappedTo(AdapterInfo adapter) {
        return new QueueDepths(Math.min(initiator, adapter.maxInitiatorQueueDepth()),
                Math.min(receive, adapter.maxReceiveQueueDepth()),
                Math.min(initiatorSge, adapter.maxInitiatorSge()), Math.min(receiveSge, adapter.maxReceiveSge()));
    }

    private static void checkPositive(String which, int value) {
        if (value < 1) {
            throw new RdmaException(Status.INVALID_PARAMETER, which + " " + value
                    + " must be at least 1 (the provider caps it to the adapter's maximum)");
        }
    }
}
