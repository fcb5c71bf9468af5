package dev.rdmafutures;

import dev.rdmafutures.poller.DutyCycleErrors;
import dev.rdmafutures.poller.Poller;
import dev.rdmafutures.spi.BoundListener;
import dev.rdmafutures.spi.ProviderConfig;
import dev.rdmafutures.spi.ProviderDevice;
import dev.rdmafutures.spi.RdmaProvider;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
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
 */
public final class RdmaRuntime implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaRuntime.class);

    private final String providerName;
    private final ProviderDevice device;
    private final AdapterInfo adapterInfo;
    private final DutyCycleErrors errors = new DutyCycleErrors();
    private final Completions completions;
    private final List<Poller> pollers = new ArrayList<>();
    private final AtomicInteger nextPoller = new AtomicInteger();
    private final Duration connectTimeout;
    private final Duration closeTimeout;
    private final int listenBacklog;
    private final RdmaConnector connector = new ConnectorImpl(this);
    private final Set<ListenerImpl> listeners = ConcurrentHashMap.newKeySet();
    private final Set<SharedEndpointImpl> sharedEndpoints = ConcurrentHashMap.newKeySet();
    private final Set<MemoryRegionImpl> regions = ConcurrentHashMap.newKeySet();
    private final boolean invoked;
    /** Whether the thread that polls this invoked runtime is registered to drive it when it waits. */
    private boolean driverRegistered;
    private volatile boolean closed;

    private RdmaRuntime(Builder b, RdmaProvider provider) {
        this.providerName = provider.name();
        this.connectTimeout = b.connectTimeout;
        this.closeTimeout = b.disconnectTimeout.plusSeconds(5);
        this.listenBacklog = b.listenBacklog;
        this.completions = new Completions(b.completionExecutor, errors);
        this.device = provider.open(new ProviderConfig(b.providerOptions, b.handshakeTimeout, b.disconnectTimeout));
        this.adapterInfo = device.adapterInfo();
        this.invoked = b.pollerThreads == 0;
        for (int i = 0; i < Math.max(1, b.pollerThreads); i++) {
            pollers.add(new Poller(b.threadNamePrefix + "-" + i, b.idleStrategy, errors, device::newEventLoop,
                    !invoked));
        }
        pollers.forEach(Poller::start);
        if (invoked) {
            Invokers.register(this); // the building thread drives it: its join() and get() poll
        }
        LOG.info("RdmaFutures runtime started: {}, {} poller(s), {} idle strategy", adapterInfo, b.pollerThreads,
                b.idleStrategy);
    }

    /** A builder with the documented defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The provider in use, e.g. {@code soft}. */
    public String providerName() {
        return providerName;
    }

    /** The adapter's capabilities and limits. */
    public AdapterInfo adapterInfo() {
        return adapterInfo;
    }

    /** The connector for outgoing connections. */
    public RdmaConnector connector() {
        return connector;
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
        Validation.local(address, "listen address");
        if (closed) {
            throw Validation.closed("listen");
        }
        BoundListener bound = device.bindListener(address, listenBacklog);
        ListenerImpl listener = new ListenerImpl(this, bound, listenBacklog);
        listeners.add(listener);
        Poller poller = nextPoller();
        if (!poller.execute(() -> poller.eventLoop().listen(bound, listener))) {
            listener.close();
            throw Validation.closed("listen");
        }
        return listener;
    }

    /**
     * Reserves {@code local} (port 0 picks one) for many outgoing connections to different destinations.
     *
     * @throws RdmaException SHARING_VIOLATION, INVALID_ADDRESS, TOO_MANY_ADDRESSES, INVALID_DEVICE_STATE
     */
    public SharedEndpoint sharedEndpoint(InetSocketAddress local) {
        Validation.local(local, "shared endpoint address");
        if (closed) {
            throw Validation.closed("sharedEndpoint");
        }
        SharedEndpointImpl[] self = new SharedEndpointImpl[1];
        SharedEndpointImpl shared = new SharedEndpointImpl(this, device.reserveSharedAddress(local),
                () -> sharedEndpoints.remove(self[0]));
        self[0] = shared;
        sharedEndpoints.add(shared);
        return shared;
    }

    /**
     * Registers {@code buffer}'s bytes from position to limit (NDK's NdkRegister). Direct buffers let the provider
     * move data without the JDK's temporary copies.
     *
     * @throws RdmaException INVALID_PARAMETER (empty, or write access to a read-only buffer), INSUFFICIENT_RESOURCES,
     *                       INVALID_DEVICE_STATE (closed runtime)
     */
    public MemoryRegion register(ByteBuffer buffer, Access... access) {
        Objects.requireNonNull(buffer, "buffer");
        EnumSet<Access> rights = Validation.accessRights(access);
        if (!buffer.hasRemaining()) {
            throw new RdmaException(Status.INVALID_PARAMETER, "cannot register an empty buffer");
        }
        if (buffer.isReadOnly() && (rights.contains(Access.LOCAL_WRITE) || rights.contains(Access.REMOTE_WRITE))) {
            throw new RdmaException(Status.INVALID_PARAMETER, "a read-only buffer cannot be registered for writing");
        }
        if (closed) {
            throw Validation.closed("register");
        }
        MemoryRegionImpl region = new MemoryRegionImpl(this, device.register(buffer.slice(), rights));
        regions.add(region);
        return region;
    }

    /**
     * Runs one duty cycle on the calling thread, for a runtime built with {@code pollerThreads(0)} (Agrona's
     * AgentInvoker): commands, socket events, deadlines and completions all happen inside this call, on this
     * thread, so a latency-critical client pays no thread hand-off. The first thread to call it owns the runtime;
     * {@code join()} and {@code get()} on the thread that built the runtime, or that polls it, keep polling until
     * their future is done. Wait on its futures only from that thread: no other thread completes them.
     *
     * @return the work done, 0 when idle
     * @throws IllegalStateException if the runtime has poller threads, or another thread owns it
     */
    public int poll() {
        if (!invoked) {
            throw new IllegalStateException("this runtime has poller threads; poll() is for pollerThreads(0)");
        }
        int work = 0;
        // By index: an iterator per call is garbage in every spin of a wait unless C2 has compiled this away.
        for (int i = 0; i < pollers.size(); i++) {
            work += pollers.get(i).invoke(); // refuses any thread but the owner: registering once per runtime suffices
        }
        if (!driverRegistered) {
            driverRegistered = true;
            Invokers.register(this);
        }
        return work;
    }

    /** How many errors the pollers contained (each distinct cause is logged once). */
    public long pollerErrorCount() {
        return errors.total();
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Closes listeners and shared endpoints, ends every connection (RUNTIME_CLOSED) and fails every pending future
     * (CANCELED), then stops the pollers, waiting for them up to the disconnect timeout plus 5 s. Idempotent.
     * Called from a poller thread (a callback), it does not wait for that thread.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        new ArrayList<>(listeners).forEach(ListenerImpl::close);
        new ArrayList<>(sharedEndpoints).forEach(SharedEndpointImpl::close);
        new ArrayList<>(regions).forEach(MemoryRegionImpl::deregister);
        boolean allStopped = true;
        for (Poller p : pollers) {
            allStopped &= p.close(closeTimeout) || p.inPollerThread();
        }
        device.close();
        if (invoked) {
            Invokers.unregister(this);
        }
        if (!allStopped) {
            LOG.warn("a poller of the {} runtime did not stop within {}", providerName, closeTimeout);
        }
        LOG.info("RdmaFutures runtime on {} closed", providerName);
    }

    // ------------------------------------------------------------------------------------- for the API internals

    Poller nextPoller() {
        return pollers.get(Math.floorMod(nextPoller.getAndIncrement(), pollers.size()));
    }

    Completions completions() {
        return completions;
    }

    Duration connectTimeout() {
        return connectTimeout;
    }

    void forget(ListenerImpl listener) {
        listeners.remove(listener);
    }

    void forget(MemoryRegionImpl region) {
        regions.remove(region);
    }

    @Override
    public String toString() {
        return "RdmaRuntime[" + providerName + (closed ? ", closed" : "") + "]";
    }

    /**
     * Builds an {@link RdmaRuntime}. Every setter validates its argument at once. Defaults:
     * <ul>
     *   <li>provider {@code soft}; {@code auto} picks the available provider with the highest priority
     *       ({@code verbs} before {@code soft}) and logs why</li>
     *   <li>1 poller thread, {@link IdleStrategy#BACKOFF}, thread names {@code rdmafutures-poller-N}</li>
     *   <li>futures complete on the poller thread (no completion executor)</li>
     *   <li>connect timeout 10 s, handshake timeout 10 s, disconnect timeout 5 s, listen backlog 128</li>
     * </ul>
     */
    public static final class Builder {
        /** Chooses the highest-priority available provider. */
        public static final String AUTO = "auto";
        private static final Pattern OPTION_KEY = Pattern.compile("[a-z0-9]+\\.[A-Za-z0-9._-]+");

        private String provider = "soft";
        private int pollerThreads = 1;
        private IdleStrategy idleStrategy = IdleStrategy.BACKOFF;
        private Executor completionExecutor;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration handshakeTimeout = Duration.ofSeconds(10);
        private Duration disconnectTimeout = Duration.ofSeconds(5);
        private int listenBacklog = 128;
        private String threadNamePrefix = "rdmafutures-poller";
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
         * application drives the runtime with {@link RdmaRuntime#poll()} from one thread of its own.
         */
        public Builder pollerThreads(int count) {
            if (count < 0 || count > 64) {
                throw new RdmaException(Status.INVALID_PARAMETER, "pollerThreads must be 0..64: " + count);
            }
            this.pollerThreads = count;
            return this;
        }

        /** How pollers wait when idle. */
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
            return new RdmaRuntime(this, selectProvider());
        }

        private RdmaProvider selectProvider() {
            List<RdmaProvider> all = new ArrayList<>();
            ServiceLoader.load(RdmaProvider.class, RdmaRuntime.class.getClassLoader()).forEach(all::add);
            if (AUTO.equals(provider)) {
                return selectAutomatically(all);
            }
            RdmaProvider chosen = all.stream().filter(p -> p.name().equals(provider)).findFirst()
                    .orElseThrow(() -> new RdmaException(Status.INVALID_PARAMETER, "no provider named " + provider
                            + " on the class path; known: " + all.stream().map(RdmaProvider::name)
                            .collect(Collectors.joining(", "))));
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
