package dev.rdmafutures;

import dev.rdmafutures.internal.RuntimeCore;
import dev.rdmafutures.internal.RuntimeSettings;
import dev.rdmafutures.internal.Validation;
import dev.rdmafutures.spi.RdmaProvider;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entry point: one provider opened on one adapter, driven by one or more poller threads. Thread-safe. Close
 * it to stop its threads and release every socket, registration and connection it holds.
 *
 * <pre>{@code
 * try (RdmaRuntime runtime = RdmaRuntime.builder().build()) {
 *     RdmaConnection c = runtime.connector().connect(server)
 *             .withReadLimits(8, 8).withPrivateData(hello).start().get();
 * }
 * }</pre>
 *
 * <p>An application-driven runtime ({@code pollerThreads(0)}) has no poller thread and one owner thread at a
 * time: the thread that built it, until that thread hands it over with {@link #handOver(Thread)}. Only the owner
 * runs {@link #poll()}; the owner's {@code join()} and {@code get()} on any RdmaFutures future poll every runtime
 * it owns while they wait; other threads may wait on its futures while the owner polls. Built with
 * {@link Builder#invokedPollers(int) invokedPollers(n)}, it has n pollers, each driven by the thread that claims it
 * ({@link #invokedPoller(int)}).
 *
 * <p>This file is the facade and its validated {@link Builder}, kept together past 450 lines so that the entry point
 * and every default read in one place; each method delegates to {@code internal.RuntimeCore}, which holds the logic.
 */
public final class RdmaRuntime implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaRuntime.class);

    private final RuntimeCore core;

    private RdmaRuntime(RuntimeCore core) {
        this.core = core;
    }

    /** A builder with the documented defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The provider in use, e.g. {@code soft}. */
    public String providerName() {
        return core.providerName();
    }

    /** The adapter's capabilities and limits. */
    public AdapterInfo adapterInfo() {
        return core.adapterInfo();
    }

    /** The connector for outgoing connections. */
    public RdmaConnector connector() {
        return core.connector();
    }

    /**
     * Binds and listens on {@code address} (port 0 picks one) with the runtime's backlog. Address errors are
     * immediate.
     *
     * @throws RdmaException SHARING_VIOLATION (in use, or a shared endpoint's port), INVALID_ADDRESS (not an
     *                       address of this host, or unresolved), INSUFFICIENT_RESOURCES, INVALID_DEVICE_STATE
     *                       (closed runtime)
     */
    public RdmaListener listen(InetSocketAddress address) {
        return core.listen(address);
    }

    /**
     * Reserves {@code local} (port 0 picks one) for many outgoing connections to different destinations.
     *
     * @throws RdmaException SHARING_VIOLATION, INVALID_ADDRESS, TOO_MANY_ADDRESSES, INVALID_DEVICE_STATE
     */
    public SharedEndpoint sharedEndpoint(InetSocketAddress local) {
        return core.sharedEndpoint(local);
    }

    /**
     * Creates a protection domain ({@code NdkCreatePd}); see {@link ProtectionDomain}. What this runtime's own methods
     * make, and connections that name no domain, are in the runtime's default domain.
     *
     * @throws RdmaException {@link Status#INSUFFICIENT_RESOURCES} when the adapter has no room,
     *                       {@link Status#INVALID_DEVICE_STATE} when the runtime is closed
     */
    public ProtectionDomain protectionDomain() {
        return core.protectionDomain();
    }

    /**
     * Allocates an unbound memory window ({@code NdkCreateMw}) in the default protection domain; see
     * {@link MemoryWindow}.
     *
     * @throws RdmaException {@link Status#NOT_SUPPORTED} where {@link AdapterInfo#isMemoryWindowSupported()} is false,
     *                       {@link Status#INSUFFICIENT_RESOURCES} when the adapter has no window left,
     *                       {@link Status#INVALID_DEVICE_STATE} when the runtime is closed
     */
    public MemoryWindow allocateMemoryWindow() {
        return core.allocateMemoryWindow();
    }

    /**
     * Allocates an empty fast-register region slot ({@code NdkCreateMr} for fast registration); see {@link FastRegion}.
     *
     * @throws RdmaException {@link Status#NOT_SUPPORTED} where {@link AdapterInfo#isFastRegisterSupported()} is false,
     *                       {@link Status#INSUFFICIENT_RESOURCES} when the adapter has no token left,
     *                       {@link Status#INVALID_DEVICE_STATE} when the runtime is closed
     */
    public FastRegion allocateFastRegion() {
        return core.allocateFastRegion();
    }

    /**
     * Creates a receive queue that connections of this runtime can share ({@code NdkCreateSrq}); see
     * {@link SharedReceiveQueue}.
     *
     * @param depth  receives that may be outstanding, 1..{@link AdapterInfo#maxSharedReceiveQueueDepth()}
     * @param maxSge segments per receive, 1..{@link AdapterInfo#maxReceiveSge()}
     * @throws RdmaException {@link Status#NOT_SUPPORTED} when the adapter has no shared receive queues,
     *                       {@link Status#INVALID_PARAMETER} beyond the maxima, {@link Status#INVALID_DEVICE_STATE}
     *                       when the runtime is closed
     */
    public SharedReceiveQueue sharedReceiveQueue(int depth, int maxSge) {
        return core.sharedReceiveQueue(depth, maxSge);
    }

    /**
     * Registers {@code buffer}'s bytes from position to limit (NDK's NdkRegister). Direct buffers let the provider
     * move data without the JDK's temporary copies.
     *
     * @throws RdmaException INVALID_PARAMETER (empty, or write access to a read-only buffer), INSUFFICIENT_RESOURCES,
     *                       INVALID_DEVICE_STATE (closed runtime)
     */
    public MemoryRegion register(ByteBuffer buffer, Access... access) {
        return core.register(buffer, access);
    }

    /**
     * Runs one duty cycle on the calling thread, for a runtime built with {@code pollerThreads(0)} (Agrona's
     * AgentInvoker): commands, socket events, deadlines and completions all happen inside this call, on this
     * thread, so a latency-critical client pays no thread hand-off. Only the owner may call it: the thread that
     * built the runtime, or the one it was handed over to. With several invoked pollers, it runs one duty cycle of
     * the one the calling thread claimed.
     *
     * @return the work done, 0 when idle
     * @throws IllegalStateException if the runtime has poller threads, or the caller is not the owner (the message
     *                               names the owner)
     */
    public int poll() {
        return core.poll();
    }

    /**
     * Blocks the owner of an application-driven runtime until there is something to {@link #poll()}: its event source
     * has events or completions ready, another thread handed it an operation, {@link #wakeUp()} was called, or
     * {@code timeout} passed; never past the runtime's own next deadline (a connect or disconnect timeout). It returns
     * at once when a poll would find work already: operations the owner posted since its last poll, a deadline due,
     * events or completions ready. So a loop may wait first and poll after, as Netty's {@code IoHandler} does where it
     * blocks (a poll before each wait would only look where the wait looks), or poll first and wait when a poll found
     * nothing.
     *
     * @throws IllegalStateException if the runtime has poller threads, or the caller is not the owner
     */
    public void awaitWork(long timeout, TimeUnit unit) {
        core.awaitWork(unit.toNanos(timeout));
    }

    /**
     * Makes the owner's blocked {@link #awaitWork} return at once, or its next one when it is not blocked now.
     * Thread-safe; a no-op on a runtime with poller threads, which wake themselves.
     */
    public void wakeUp() {
        core.wakeUp();
    }

    /**
     * Hands an application-driven runtime to {@code next}, which becomes the only thread that may {@link #poll()}
     * it and whose waits on its futures poll it. Call it on the current owner; from then on the calling thread is
     * refused like any other.
     *
     * @throws IllegalStateException if the runtime has poller threads or several invoked pollers (each is claimed
     *                               instead), or the caller is not the owner
     */
    public void handOver(Thread next) {
        core.handOver(next);
    }

    /**
     * The owner thread of an application-driven runtime (with several pollers, of the first); empty when poller
     * threads drive it, or no thread has claimed that poller yet.
     */
    public Optional<Thread> owner() {
        return Optional.ofNullable(core.owner());
    }

    /**
     * Poller {@code index} of an application-driven runtime, 0 to {@link Builder#invokedPollers(int)} - 1: its owner
     * drives it alone ({@link InvokedPoller#poll()}), as each event loop of a group drives its own.
     *
     * @throws IllegalStateException when the runtime has poller threads
     * @throws IllegalArgumentException when {@code index} is out of range
     */
    public InvokedPoller invokedPoller(int index) {
        return new InvokedPoller(core, index); // validated as the handle is made
    }

    /**
     * The runtime's counters now: operations of every connection and shared receive queue (ended ones included),
     * connection set-ups by outcome, each poller's duty cycle. Counting is always on and allocates nothing; a
     * snapshot allocates. For Micrometer, bind {@code dev.rdmafutures.micrometer.RdmaFuturesMetrics}.
     */
    public RuntimeMetrics metrics() {
        return core.metrics();
    }

    /** How many errors the pollers contained (each distinct cause is logged once). */
    public long pollerErrorCount() {
        return core.pollerErrorCount();
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return core.isClosed();
    }

    /**
     * Closes listeners and shared endpoints, ends every connection (RUNTIME_CLOSED) and fails every pending future
     * (CANCELED), then stops the pollers, waiting for them up to the disconnect timeout plus 5 s, and deregisters
     * every region. Idempotent. Called from a poller thread (a callback), it does not wait for that thread.
     */
    @Override
    public void close() {
        core.close();
    }

    @Override
    public String toString() {
        return core.toString();
    }

    /**
     * Builds an {@link RdmaRuntime}. Every setter validates its argument at once. Defaults:
     * <ul>
     *   <li>provider {@code soft}; {@code auto} picks the available provider with the highest priority
     *       ({@code verbs} before {@code soft}) and logs why</li>
     *   <li>1 poller thread, {@link IdleStrategy#BACKOFF}, thread names {@code rdmafutures-poller-N}</li>
     *   <li>futures complete on the poller thread (no completion executor)</li>
     *   <li>connect timeout 10 s, handshake timeout 10 s, disconnect timeout 5 s, listen backlog 128</li>
     *   <li>liveness timeout 10 s, slow-operation threshold (JFR) 10 ms</li>
     *   <li>deadlines on {@link Ticker#system()}</li>
     *   <li>{@link Admission#failFast()}: a post without a free slot is refused at once</li>
     * </ul>
     */
    public static final class Builder {
        /** Chooses the highest-priority available provider. */
        public static final String AUTO = "auto";
        private static final Pattern OPTION_KEY = Pattern.compile("[a-z0-9]+\\.[A-Za-z0-9._-]+");

        private String provider = "soft";
        private int pollerThreads = 1;
        private int invokedPollers = 1;
        private IdleStrategy idleStrategy = IdleStrategy.BACKOFF;
        private Executor completionExecutor;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration handshakeTimeout = Duration.ofSeconds(10);
        private Duration disconnectTimeout = Duration.ofSeconds(5);
        private int listenBacklog = 128;
        private String threadNamePrefix = "rdmafutures-poller";
        private Duration slowOperationThreshold = Duration.ofMillis(10);
        private Duration livenessTimeout = Duration.ofSeconds(10);
        private Ticker ticker = Ticker.system();
        private Admission admission = Admission.failFast();
        private PeerFaultPolicy peerFaultPolicy = PeerFaultPolicy.standard();
        private final Map<String, String> providerOptions = new LinkedHashMap<>();

        private Builder() {
        }

        /** The provider by name ({@code soft}, {@code verbs}, any on the class path) or {@link #AUTO}. */
        public Builder provider(String name) {
            Objects.requireNonNull(name, "provider");
            if (name.isBlank()) {
                throw new RdmaException(Status.INVALID_PARAMETER, "provider name is blank");
            }
            this.provider = name;
            return this;
        }

        /**
         * Poller threads, 0..64; connections are spread across them round robin. 0 starts no thread: the
         * application drives the runtime with {@link RdmaRuntime#poll()} from one thread of its own, the thread
         * that calls {@link #build()}, until it {@linkplain RdmaRuntime#handOver(Thread) hands it over}.
         */
        public Builder pollerThreads(int count) {
            if (count < 0 || count > 64) {
                throw new RdmaException(Status.INVALID_PARAMETER, "pollerThreads must be 0..64: " + count);
            }
            this.pollerThreads = count;
            return this;
        }

        /**
         * With {@code pollerThreads(0)}: how many pollers the application drives, 1..64 (default 1). One is owned by
         * the thread that calls {@link #build()}. Of several, none is owned at first: each is driven by the thread
         * that {@linkplain InvokedPoller#claim() claims} it ({@link RdmaRuntime#invokedPoller(int)}), one per
         * thread, as each event loop of a Netty group drives one. A connect, listen or shared receive queue started
         * on a thread that owns a poller lives on that poller; from any other thread, on the next one round robin. A
         * listener deals the connections it accepts to the pollers in turn, as with poller threads. A poller no
         * thread drives yet runs nothing handed to it, deadlines included.
         *
         * @throws RdmaException INVALID_PARAMETER outside 1..64; {@link #build()} refuses more than one with poller
         *                       threads
         */
        public Builder invokedPollers(int count) {
            if (count < 1 || count > 64) {
                throw new RdmaException(Status.INVALID_PARAMETER, "invokedPollers must be 1..64: " + count);
            }
            this.invokedPollers = count;
            return this;
        }

        /**
         * How pollers wait when idle: poller threads always; invoked pollers where their owners ask
         * ({@link InvokedPoller#idleWithoutBlocking}).
         */
        public Builder idleStrategy(IdleStrategy strategy) {
            this.idleStrategy = Objects.requireNonNull(strategy, "idleStrategy");
            return this;
        }

        /** Complete futures and run callbacks on this executor instead of the poller thread. */
        public Builder completionExecutor(Executor executor) {
            this.completionExecutor = Objects.requireNonNull(executor, "completionExecutor");
            return this;
        }

        /** The default deadline of a connect, from start() to established. */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = Validation.timeout(timeout, "connectTimeout");
            return this;
        }

        /**
         * How long a listener waits for a peer's request and for the peer to complete after an accept, and how
         * long a request may wait for an answer before it is withdrawn.
         */
        public Builder handshakeTimeout(Duration timeout) {
            this.handshakeTimeout = Validation.timeout(timeout, "handshakeTimeout");
            return this;
        }

        /** How long a graceful disconnect waits for the peer before closing the transport. */
        public Builder disconnectTimeout(Duration timeout) {
            this.disconnectTimeout = Validation.timeout(timeout, "disconnectTimeout");
            return this;
        }

        /** The backlog of listeners, 1..65535: the queue of requests nobody has taken yet. */
        public Builder listenBacklog(int backlog) {
            if (backlog < 1 || backlog > 65535) {
                throw new RdmaException(Status.INVALID_PARAMETER, "listenBacklog must be 1..65535: " + backlog);
            }
            this.listenBacklog = backlog;
            return this;
        }

        /** The prefix of poller thread names. */
        public Builder threadNamePrefix(String prefix) {
            Objects.requireNonNull(prefix, "threadNamePrefix");
            if (prefix.isBlank()) {
                throw new RdmaException(Status.INVALID_PARAMETER, "threadNamePrefix is blank");
            }
            this.threadNamePrefix = prefix;
            return this;
        }

        /**
         * How long the peer of an established connection may show no life while it owes us something (a Read
         * Response, room for our bytes) before the connection ends: its oldest waiting operation fails with
         * {@link Status#IO_TIMEOUT}, the others with CANCELED, and it ends with
         * {@link DisconnectReason#CONNECTION_RESET}. Detected between this and 1.25 times this after the peer's last
         * sign of life; default 10 s. soft uses it (TCP alone retransmits for about 15 minutes on a cut link), and
         * also sets TCP keepalive from it so that an idle connection to a vanished peer ends too. verbs gives its
         * queue pairs an ACK timeout and retry count whose whole budget, (retries + 1) × 4.096 µs × 2^timeout, is the
         * longest not above this (8.6 s for the default, 1.9 s for 2 s), and the RC transport fails the oldest request
         * with IO_TIMEOUT when it is spent; that bounds a cut link on RoCE and IB (rxe included), not on iWARP (siw),
         * whose TCP retransmits on.
         */
        public Builder livenessTimeout(Duration timeout) {
            this.livenessTimeout = Validation.timeout(timeout, "livenessTimeout");
            return this;
        }

        /**
         * From how long after its hand-off to the poller an operation that ends is reported as a JDK Flight Recorder
         * {@code dev.rdmafutures.SlowOperation} event; default 10 ms. Operations are timed only while a recording
         * enables that event.
         */
        public Builder slowOperationThreshold(Duration threshold) {
            this.slowOperationThreshold = Validation.timeout(threshold, "slowOperationThreshold");
            return this;
        }

        /**
         * The time source of the runtime's deadlines; {@link Ticker#system()} by default. Tests give one they advance,
         * and reach a timeout without waiting for it (see {@link Ticker}).
         */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /**
         * What a connection's post does when its queue has no free slot: refused at once ({@link
         * Admission#failFast()}, the default) or waiting for one ({@link Admission#waitForSlot}).
         */
        public Builder admission(Admission admission) {
            this.admission = Objects.requireNonNull(admission, "admission");
            return this;
        }

        /**
         * When the runtime's listeners refuse a peer address for the faults its connections made (forged tokens,
         * protocol errors). {@link PeerFaultPolicy#standard()} by default; {@link PeerFaultPolicy#disabled()} for a
         * harness that makes faults on purpose.
         */
        public Builder peerFaultPolicy(PeerFaultPolicy policy) {
            this.peerFaultPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * A provider-specific option, keyed {@code provider.name} (e.g. {@code soft.crc}); the provider that opens
         * rejects unknown keys of its own prefix and ignores other providers' keys.
         */
        public Builder providerOption(String key, String value) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
            if (!OPTION_KEY.matcher(key).matches()) {
                throw new RdmaException(Status.INVALID_PARAMETER, "option key must look like provider.name: " + key);
            }
            providerOptions.put(key, value);
            return this;
        }

        /**
         * Selects and opens the provider, starts the pollers.
         *
         * @throws RdmaException INVALID_PARAMETER for an unknown provider, NOT_SUPPORTED (with the provider's own
         *                       reason) for one that cannot run here
         */
        public RdmaRuntime build() {
            if (invokedPollers > 1 && pollerThreads > 0) {
                throw new RdmaException(Status.INVALID_PARAMETER, "invokedPollers(" + invokedPollers + ") needs "
                        + "pollerThreads(0): a runtime has poller threads or pollers the application drives");
            }
            return new RdmaRuntime(new RuntimeCore(new RuntimeSettings(pollerThreads, invokedPollers, idleStrategy,
                    completionExecutor, connectTimeout, handshakeTimeout, disconnectTimeout, listenBacklog,
                    threadNamePrefix, livenessTimeout, slowOperationThreshold, ticker, admission, peerFaultPolicy,
                    providerOptions),
                    selectProvider()));
        }

        private RdmaProvider selectProvider() {
            List<RdmaProvider> all = new ArrayList<>();
            ServiceLoader.load(RdmaProvider.class, RdmaRuntime.class.getClassLoader()).forEach(all::add);
            if (AUTO.equals(provider)) {
                return selectAutomatically(all);
            }
            RdmaProvider chosen = all.stream().filter(p -> p.name().equals(provider)).findFirst()
                    .orElseThrow(() -> new RdmaException(Status.INVALID_PARAMETER, "no provider named " + provider
                            + " on the class path" + ("verbs".equals(provider)
                                    ? " (it is in the artifact dev.rdmafutures:rdmafutures-verbs)" : "")
                            + "; known: " + all.stream().map(RdmaProvider::name).collect(Collectors.joining(", "))));
            if (!chosen.isAvailable()) {
                throw new RdmaException(Status.NOT_SUPPORTED, "provider " + provider + " cannot run here: "
                        + chosen.unavailabilityCause().orElse("no reason given"));
            }
            return chosen;
        }

        private static RdmaProvider selectAutomatically(List<RdmaProvider> all) {
            all.sort(Comparator.comparingInt(RdmaProvider::autoSelectionPriority).reversed());
            List<String> skipped = new ArrayList<>();
            for (RdmaProvider p : all) {
                if (p.isAvailable()) {
                    LOG.info("provider auto-selection chose {}{}", p.name(),
                            skipped.isEmpty() ? " (highest priority)" : " because " + String.join("; ", skipped));
                    return p;
                }
                skipped.add(p.name() + " is unavailable: " + p.unavailabilityCause().orElse("no reason given"));
            }
            throw new RdmaException(Status.NOT_SUPPORTED, "no provider can run here: " + String.join("; ", skipped));
        }
    }
}
