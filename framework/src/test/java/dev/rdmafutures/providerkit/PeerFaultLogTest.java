package dev.rdmafutures.providerkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** No remote peer, nor many of them, can fill the logs with the faults they cause (issue 27, item 3). */
class PeerFaultLogTest {
    private static final long MINUTE = TimeUnit.SECONDS.toNanos(PeerFaultLog.WINDOW_SECONDS);
    private final RecordingLogger logger = new RecordingLogger();
    private final PeerFaultLog log = new PeerFaultLog(logger);

    private static InetSocketAddress peer(int host, int port) {
        return new InetSocketAddress("10.0." + (host >> 8) + "." + (host & 0xff), port);
    }

    @Test
    void aPeerThatReconnectsAfterEveryFaultGetsOneWarnLineAMinuteWithTheCountOfTheRest() {
        long now = 0;
        for (int i = 0; i < 1_000; i++) {
            log.fault(peer(1, 40_000 + i), now, "fault " + i); // a new connection, a new port, each time
            now += MINUTE / 2_000;
        }
        assertThat(logger.warnings).containsExactly("fault 0");
        assertThat(logger.debugs).hasSize(999);

        log.fault(peer(1, 50_000), MINUTE, "fault 1000");
        assertThat(logger.warnings).containsExactly("fault 0",
                "fault 1000 (999 more faults from 10.0.0.1 since its last WARN line, logged at DEBUG only)");
    }

    @Test
    void oneNoisyAddressDoesNotSilenceAnother() {
        for (int i = 0; i < 100; i++) {
            log.fault(peer(1, 40_000), i, "noisy " + i);
        }
        log.fault(peer(2, 40_000), 100, "other");
        assertThat(logger.warnings).containsExactly("noisy 0", "other");
    }

    @Test
    void manyAddressesTogetherGetABoundedNumberOfWarnLinesAMinute() {
        int addresses = 3 * PeerFaultLog.WARNINGS_PER_WINDOW;
        for (int i = 0; i < addresses; i++) {
            log.fault(peer(i, 40_000), i, "from " + i);
        }
        assertThat(logger.warnings).hasSize(PeerFaultLog.WARNINGS_PER_WINDOW);
        assertThat(logger.debugs).hasSize(addresses - PeerFaultLog.WARNINGS_PER_WINDOW);

        // The next minute, an address kept out of the log by the budget gets its line, with its count.
        logger.warnings.clear();
        log.fault(peer(addresses - 1, 40_000), MINUTE, "again");
        assertThat(logger.warnings).containsExactly("again (1 more faults from 10.0.0." + (addresses - 1)
                + " since its last WARN line, logged at DEBUG only)");
    }

    @Test
    void theLeastRecentlyHeardAddressesAreForgottenBeyondTheBound() {
        log.fault(peer(0, 40_000), 0, "zero");
        log.fault(peer(0, 40_000), 1, "zero, at DEBUG"); // a count address 0 would report with its next WARN line
        for (int i = 1; i <= PeerFaultLog.MAX_ADDRESSES; i++) {
            log.fault(peer(i, 40_000), i * MINUTE, "from " + i); // a minute apart: each logged, none over budget
        }
        logger.warnings.clear();
        // Address 0 was forgotten with its count, so its next fault is a first again, without one; the most recent
        // address is still in its window.
        log.fault(peer(0, 40_000), PeerFaultLog.MAX_ADDRESSES * MINUTE + 1, "zero again");
        log.fault(peer(PeerFaultLog.MAX_ADDRESSES, 40_000), PeerFaultLog.MAX_ADDRESSES * MINUTE + 2, "last again");
        assertThat(logger.warnings).containsExactly("zero again");
    }

    /** Keeps the formatted WARN and DEBUG lines. */
    private static final class RecordingLogger extends AbstractLogger {
        final List<String> warnings = new ArrayList<>();
        final List<String> debugs = new ArrayList<>();

        RecordingLogger() {
            this.name = "recording";
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments,
                                                   Throwable throwable) {
            String line = MessageFormatter.basicArrayFormat(pattern, arguments);
            (level == Level.WARN ? warnings : debugs).add(line);
        }

        @Override
        public boolean isTraceEnabled() {
            return true;
        }

        @Override
        public boolean isTraceEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isDebugEnabled() {
            return true;
        }

        @Override
        public boolean isDebugEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isInfoEnabled() {
            return true;
        }

        @Override
        public boolean isInfoEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isWarnEnabled() {
            return true;
        }

        @Override
        public boolean isWarnEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isErrorEnabled() {
            return true;
        }

        @Override
        public boolean isErrorEnabled(Marker marker) {
            return true;
        }
    }
}
