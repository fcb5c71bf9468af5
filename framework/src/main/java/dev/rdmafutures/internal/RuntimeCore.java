package dev.rdmafutures.internal;

import dev.rdmafutures.Access;
import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.Admission;
import dev.rdmafutures.FastRegion;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.MemoryWindow;
import dev.rdmafutures.PollerMetrics;
import dev.rdmafutures.ProtectionDomain;
import dev.rdmafutures.RdmaConnector;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RuntimeMetrics;
import dev.rdmafutures.SharedEndpoint;
import dev.rdmafutures.SharedReceiveQueue;
import dev.rdmafutures.Status;
import dev.rdmafutures.internal.poller.DutyCycleErrors;
import dev.rdmafutures.internal.poller.Poller;
import dev.rdmafutures.internal.poller.PollerProxy;
import dev.rdmafutures.spi.BoundListener;
import dev.rdmafutures.spi.ProviderConfig;
import dev.rdmafutures.spi.ProviderDevice;
import dev.rdmafutures.spi.RdmaProvider;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What stands behind {@code RdmaRuntime}: one provider device, its pollers ({@link PollerSet}: who drives which, and
 * where new work goes), and the resources (listeners, shared endpoints, regions) to release at close. Its parts see it
 * only as a {@link RuntimeOwner}. Past 450 lines, mostly Javadoc: each resource it creates is validated and tracked
 * here, in one place, so that its close releases them in the one order that is safe.
 *
 * <p>An application-driven runtime ({@code pollerThreads(0)}) with one poller has exactly one owner thread at a time:
 * the thread that built it, until the owner hands it over with {@link #handOver(Thread)}. With several
 * ({@code invokedPollers}), each poller has an owner of its own, the thread that {@linkplain #claim(int) claimed} it,
 * and what such a thread starts lives on its poller ({@link #nextPoller()}). Only an owner polls, and only its own
 * pollers; its waits on the runtime's futures poll too ({@link Driver}); any other thread's poll is refused with the
 * owner's name.
 */
public final class RuntimeCore implements RuntimeOwner, Driver, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RuntimeCore.class);

    private final String providerName;
    private final ProviderDevice device;
    private final AdapterInfo adapterInfo;
    private final DutyCycleErrors errors = new DutyCycleErrors();
    private final RuntimeRecorder recorder;
    private final Completions completions;
    private final PollerSet pollers;
    private final Duration connectTimeout;
    private final Duration closeTimeout;
    private final int listenBacklog;
    private final Admission admission;
    private final PeerFaults peerFaults;
    private final RdmaConnector connector = new ConnectorImpl(this);
    /** Listeners, shared endpoints and regions still open: closed with the runtime. */
    private final Set<AutoCloseable> resources = ConcurrentHashMap.newKeySet();
    private final DomainImpl defaultDomain;
    /** Protection domains created and not closed: released with the runtime, after what was made in them. */
    private final Set<DomainImpl> domains = ConcurrentHashMap.newKeySet();
    /** An application-driven runtime with one poller, which its building thread owns until it hands it over. */
    private final boolean single;
    /** Set once, by the one close() that runs the shutdown; concurrent closes return at once. */
    private final AtomicBoolean closed = new AtomicBoolean();
    /**
     * Whether the current owner has this runtime in its {@link OwnedRuntimes} index; owner thread only. Read by the
     * one-poller path alone: owners of several pollers are indexed when they claim.
     */
    private boolean indexedByOwner;

    /** Opens {@code provider} and starts the pollers; the calling thread owns an application-driven runtime. */
    public RuntimeCore(RuntimeSettings settings, RdmaProvider provider) {
        this.providerName = provider.name();
        this.connectTimeout = settings.connectTimeout();
        this.closeTimeout = settings.disconnectTimeout().plusSeconds(5);
        this.listenBacklog = settings.listenBacklog();
        this.admission = settings.admission();
        this.completions = new Completions(settings.completionExecutor(), errors);
        this.device = provider.open(new ProviderConfig(settings.providerOptions(), settings.handshakeTimeout(),
                settings.disconnectTimeout(), settings.livenessTimeout()));
        this.adapterInfo = device.adapterInfo();
        this.defaultDomain = new DomainImpl(this, device.defaultDomain(), true);
        this.recorder = new RuntimeRecorder(providerName, settings.slowOperationThreshold());
        this.peerFaults = new PeerFaults(settings.peerFaultPolicy(), recorder);
        boolean invoked = settings.pollerThreads() == 0;
        this.single = invoked && settings.invokedPollers() == 1;
        int count = invoked ? settings.invokedPollers() : settings.pollerThreads();
        // One invoked poller belongs to the building thread; several wait for the threads that claim them.
        Thread owner = single ? Thread.currentThread() : null;
        List<Poller> made = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            made.add(new Poller(settings.threadNamePrefix() + "-" + i, settings.idleStrategy(), settings.ticker(),
                    errors, peerFaults::fault, device::newEventLoop, invoked, owner));
        }
        this.pollers = new PollerSet(made, invoked);
        pollers.start();
        if (owner != null) {
            OwnedRuntimes.enter(this);
        }
        LOG.info("RdmaFutures runtime started: {}, {} poller(s){}, {} idle strategy", adapterInfo, count,
                owner != null ? " (driven by thread '" + owner.getName() + "')"
                        : invoked ? " (each driven by the thread that claims it)" : " on threads of their own",
                settings.idleStrategy());
    }

    /** The provider's name. */
    public String providerName() {
        return providerName;
    }

    @Override
    public AdapterInfo adapterInfo() {
        return adapterInfo;
    }

    /** The connector for outgoing connections. */
    public RdmaConnector connector() {
        return connector;
    }

    /** Binds, then listens on the next poller. */
    public RdmaListener listen(InetSocketAddress address) {
        Validation.local(address, "listen address");
        if (closed.get()) {
            throw Validation.closed("listen");
        }
        BoundListener bound = device.bindListener(address);
        ListenerImpl listener = new ListenerImpl(this, bound, listenBacklog);
        resources.add(listener);
        try {
            nextPoller().listen(bound, listener);
        } catch (RdmaException refused) {
            listener.close();
            throw refused;
        }
        return listener;
    }

    /** Reserves a shared local endpoint. */
    public SharedEndpoint sharedEndpoint(InetSocketAddress local) {
        Validation.local(local, "shared endpoint address");
        if (closed.get()) {
            throw Validation.closed("sharedEndpoint");
        }
        SharedEndpointImpl shared = new SharedEndpointImpl(this, device.reserveSharedAddress(local));
        resources.add(shared);
        return shared;
    }

    @Override
    public DomainImpl defaultDomain() {
        return defaultDomain;
    }

    /** Creates a protection domain; see {@code RdmaRuntime.protectionDomain}. */
    public ProtectionDomain protectionDomain() {
        if (closed.get()) {
            throw Validation.closed("protectionDomain");
        }
        DomainImpl domain = new DomainImpl(this, device.createDomain(), false);
        domains.add(domain);
        if (closed.get()) { // closed meanwhile: its close may have released the domains before this one was added
            domains.remove(domain);
            domain.closeWithRuntime();
            throw Validation.closed("protectionDomain");
        }
        return domain;
    }

    /** Allocates a memory window; see {@code RdmaRuntime.allocateMemoryWindow}. */
    public MemoryWindow allocateMemoryWindow() {
        return allocateMemoryWindow(defaultDomain);
    }

    MemoryWindow allocateMemoryWindow(DomainImpl domain) {
        if (!adapterInfo.isMemoryWindowSupported()) {
            throw Windows.unsupported(this);
        }
        if (closed.get()) {
            throw Validation.closed("allocateMemoryWindow");
        }
        MemoryWindowImpl window = domain.create("allocate a memory window in",
                () -> new MemoryWindowImpl(domain, domain.provider().allocateWindow()));
        resources.add(window);
        return window;
    }

    /** Allocates a fast-register region slot; see {@code RdmaRuntime.allocateFastRegion}. */
    public FastRegion allocateFastRegion() {
        return allocateFastRegion(defaultDomain);
    }

    FastRegion allocateFastRegion(DomainImpl domain) {
        if (!adapterInfo.isFastRegisterSupported()) {
            throw Windows.fastRegisterUnsupported(this);
        }
        if (closed.get()) {
            throw Validation.closed("allocateFastRegion");
        }
        FastRegionImpl slot = domain.create("allocate a fast-register region in",
                () -> new FastRegionImpl(domain, domain.provider().allocateFastRegion()));
        resources.add(slot);
        return slot;
    }

    /** Creates a shared receive queue on the next poller; see {@code RdmaRuntime.sharedReceiveQueue}. */
    public SharedReceiveQueue sharedReceiveQueue(int depth, int maxSge) {
        return sharedReceiveQueue(defaultDomain, depth, maxSge);
    }

    SharedReceiveQueue sharedReceiveQueue(DomainImpl domain, int depth, int maxSge) {
        int maxDepth = adapterInfo.maxSharedReceiveQueueDepth();
        if (maxDepth == 0) {
            throw new RdmaException(Status.NOT_SUPPORTED, adapterInfo.deviceName()
                    + " has no shared receive queues (AdapterInfo.maxSharedReceiveQueueDepth is 0)");
        }
        if (depth < 1 || depth > maxDepth || maxSge < 1 || maxSge > adapterInfo.maxReceiveSge()) {
            throw new RdmaException(Status.INVALID_PARAMETER, "a shared receive queue of depth " + depth + " with "
                    + maxSge + " segments per receive: " + adapterInfo.deviceName() + " allows depth 1.." + maxDepth
                    + " and 1.." + adapterInfo.maxReceiveSge() + " segments");
        }
        if (closed.get()) {
            throw Validation.closed("sharedReceiveQueue");
        }
        SharedReceiveQueueImpl queue = domain.create("create a shared receive queue in", () -> {
            SharedReceiveQueueImpl created = new SharedReceiveQueueImpl(domain, nextPoller(), depth, maxSge);
            created.bind(domain.provider().createSharedReceiveQueue(depth, maxSge, created));
            return created;
        });
        resources.add(queue);
        return queue;
    }

    /** Registers {@code buffer}'s bytes from position to limit. */
    public MemoryRegion register(ByteBuffer buffer, Access... access) {
        return register(defaultDomain, buffer, access);
    }

    MemoryRegion register(DomainImpl domain, ByteBuffer buffer, Access... access) {
        EnumSet<Access> rights = Validation.bufferRights(buffer, access);
        if (closed.get()) {
            throw Validation.closed("register");
        }
        MemoryRegionImpl region = domain.create("register in",
                () -> new MemoryRegionImpl(domain, domain.provider().register(buffer.slice(), rights)));
        resources.add(region);
        return region;
    }

    /**
     * One duty cycle of the caller's pollers, on an owner thread of an application-driven runtime: the only one, or
     * of several the one the caller claimed.
     *
     * @throws IllegalStateException when the runtime has poller threads, or the caller is not an owner
     */
    public int poll() {
        int work = pollers.poll();
        if (single && !indexedByOwner) {
            indexedByOwner = true; // only the owner gets here: the thread it was handed over to, on its first poll
            OwnedRuntimes.enter(this);
        }
        return work;
    }

    /**
     * Blocks the owner of an application-driven runtime until there is work, {@link #wakeUp()}, or {@code maxNanos};
     * with several pollers, the one the caller owns.
     *
     * @throws IllegalStateException when the runtime has poller threads, or the caller owns none of its pollers
     */
    public void awaitWork(long maxNanos) {
        pollers.awaitWork(maxNanos);
    }

    /** Wakes the owners of an application-driven runtime out of {@link #awaitWork}, or makes their next one return. */
    public void wakeUp() {
        pollers.wakeUp();
    }

    /**
     * Makes the calling thread the owner of invoked poller {@code index}; see {@code InvokedPoller.claim}.
     *
     * @throws IllegalStateException when another thread owns it, or the caller drives another of the pollers
     */
    public void claim(int index) {
        pollers.claim(index);
        OwnedRuntimes.enter(this); // its waits on this runtime's futures poll what it owns
    }

    /**
     * Stops invoked poller {@code index}, on its owner: its connections end and what is pending on it fails, on this
     * thread, and nothing more is handed to it; the runtime's other pollers go on. Idempotent.
     *
     * @throws IllegalStateException when the caller is not the poller's owner
     */
    public void closePoller(int index) {
        pollers.close(index, closeTimeout);
    }

    /**
     * Invoked poller {@code index}, for its handle to drive directly.
     *
     * @throws IllegalStateException when the runtime has poller threads
     * @throws IllegalArgumentException when {@code index} is out of range
     */
    public Poller invokedPoller(int index) {
        return pollers.invokedPoller(index);
    }

    /**
     * Makes {@code next} the owner of this application-driven runtime; called by the current owner.
     *
     * @throws IllegalStateException when the runtime has poller threads or several invoked pollers, or the caller
     *                               is not its owner
     */
    public void handOver(Thread next) {
        pollers.handOver(next);
        indexedByOwner = false;
        OwnedRuntimes.leave(this); // the new owner indexes it when it polls or waits
        LOG.debug("runtime on {} handed over to thread '{}'", providerName, next.getName());
    }

    /** The owner thread of an application-driven runtime (of its first poller); null when poller threads drive it. */
    public Thread owner() {
        return pollers.owner();
    }

    @Override
    public boolean ownedByCurrentThread() {
        return pollers.owned() != null;
    }

    @Override
    public void adoptOnOwner() {
        OwnedRuntimes.enter(this);
        indexedByOwner = true;
    }

    @Override
    public Admission admission() {
        return admission;
    }

    @Override
    public RuntimeRecorder recorder() {
        return recorder;
    }

    @Override
    public PeerFaults peerFaults() {
        return peerFaults;
    }

    /** The runtime's counters now; see {@code RdmaRuntime.metrics}. */
    public RuntimeMetrics metrics() {
        List<PollerMetrics> duty = pollers.metrics();
        return new RuntimeMetrics(recorder.operations(), recorder.connects(), recorder.connectFailures(),
                recorder.accepts(), recorder.rejects(), recorder.peerRefusals(), recorder.peerBackOffs(),
                recorder.open(), duty, errors.total(), errors.byCause());
    }

    /** How many errors the pollers contained. */
    public long pollerErrorCount() {
        return errors.total();
    }

    @Override
    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Closes listeners and shared endpoints, ends every connection and fails what is pending (the event loops'
     * close), then deregisters regions and releases the device. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (pollers.invoked() && ownedByCurrentThread()) {
            OwnedRuntimes.leave(this);
        }
        for (AutoCloseable r : new ArrayList<>(resources)) {
            if (!(r instanceof MemoryRegionImpl) && !(r instanceof SharedReceiveQueueImpl)) {
                closeGuarded(r);
            }
        }
        boolean allStopped = pollers.close(closeTimeout);
        // Shared receive queues once their connections ended; regions last: an operation posted while the runtime
        // closed fails as CONNECTION_INVALID, never as a region that vanished under it.
        for (AutoCloseable r : new ArrayList<>(resources)) {
            if (r instanceof SharedReceiveQueueImpl queue) {
                queue.closeAfterConnections();
            }
        }
        new ArrayList<>(resources).forEach(this::closeGuarded);
        for (DomainImpl domain : new ArrayList<>(domains)) {
            try {
                domain.closeWithRuntime();
            } catch (RuntimeException e) {
                errors.record("close " + domain, e);
            }
        }
        device.close();
        if (!allStopped) {
            LOG.warn("a poller of the {} runtime did not stop within {}", providerName, closeTimeout);
        }
        LOG.info("RdmaFutures runtime on {} closed", providerName);
    }

    private void closeGuarded(AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception e) {
            errors.record("close " + resource, e);
        }
    }

    // ------------------------------------------------------------------------------------------- RuntimeOwner

    /** {@inheritDoc} See {@link PollerSet#next()}. */
    @Override
    public PollerProxy nextPoller() {
        return pollers.next();
    }

    @Override
    public Completions completions() {
        return completions;
    }

    @Override
    public Duration connectTimeout() {
        return connectTimeout;
    }

    @Override
    public <T> RdmaFuture<T> newFuture() {
        return new RdmaFuture<>(driver());
    }

    @Override
    public Driver driver() {
        return pollers.invoked() ? this : null;
    }

    @Override
    public void untrack(Object resource) {
        resources.remove(resource);
        domains.remove(resource);
    }

    @Override
    public String toString() {
        return "RdmaRuntime[" + providerName + (closed.get() ? ", closed" : "") + "]";
    }
}
