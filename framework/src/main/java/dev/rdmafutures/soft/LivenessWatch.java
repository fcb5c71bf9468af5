package dev.rdmafutures.soft;

import dev.rdmafutures.spi.Cancellable;
import dev.rdmafutures.spi.PollerContext;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Ends a connection whose peer went silent while it owed us something: a Read Response, or room in the socket for
 * our bytes. TCP alone would retransmit for about 15 minutes before giving up on a cut link. While something is
 * owed, a timer looks every quarter of the deadline whether the peer moved (bytes arrived, or the socket took bytes)
 * since the last look; once it has not for the whole deadline, {@code onSilence} runs. So a silent peer is detected
 * between the deadline and 1.25 times it after its last sign of life. The timer runs only from {@link #arm} (a
 * request posted, bytes the socket would not take) until a look finds nothing owed, so idle connections cost the
 * poller nothing however many there are. The data path only counts, without a clock. Poller thread only.
 */
final class LivenessWatch {
    private final PollerContext poller;
    private final long timeoutNanos;
    private final Duration period;
    private final BooleanSupplier owed;
    private final Runnable onSilence;
    private long progress;
    private long seenProgress;
    private long quietSince;
    private final Runnable check = this::check;
    private Cancellable timer;
    private boolean stopped;

    /** Watches with {@code timeout}; {@code owed}: whether the peer owes us progress now. */
    LivenessWatch(PollerContext poller, Duration timeout, BooleanSupplier owed, Runnable onSilence) {
        this.poller = poller;
        this.timeoutNanos = timeout.toNanos();
        this.period = Duration.ofNanos(Math.max(timeoutNanos / 4, Duration.ofMillis(10).toNanos()));
        this.owed = owed;
        this.onSilence = onSilence;
    }

    /** Something may be owed from now on: watches, unless it already does. */
    void arm() {
        if (timer == null && !stopped) {
            seenProgress = progress;
            quietSince = poller.nanoTime();
            timer = poller.schedule(period, check);
        }
    }

    /** The peer showed life: bytes arrived, or the socket took ours. */
    void progressed() {
        progress++;
    }

    void stop() {
        stopped = true;
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    private void check() {
        timer = null;
        if (stopped) {
            return;
        }
        if (!owed.getAsBoolean()) {
            return; // nothing owed: the next arm() watches again
        }
        long now = poller.nanoTime();
        if (progress != seenProgress) {
            seenProgress = progress;
            quietSince = now;
        } else if (now - quietSince >= timeoutNanos) {
            stopped = true;
            onSilence.run();
            return;
        }
        timer = poller.schedule(period, check);
    }
}
