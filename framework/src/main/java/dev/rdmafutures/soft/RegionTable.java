package dev.rdmafutures.soft;

import dev.rdmafutures.Access;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.ProviderDomain;
import dev.rdmafutures.spi.SharedReceiveQueueEvents;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntFunction;

/**
 * A protection domain's STag table: regions, memory windows and fast-register slots by STag index ({@link SoftStag}).
 * The device has one for its default domain and one per domain created; a connection looks its peer's tokens up in
 * its own domain's only, so a token of another domain is not found there whatever its bits. A new entry's STag is 32
 * random bits from a SecureRandom (index never 0, so no STag is 0; an index is never shared while its entry is in
 * the table), so a peer cannot guess a token it was not given; a lookup of an invalidated region's or a closed
 * window's STag finds nothing, and the entry found for an index says whether the STag's key is the valid one.
 *
 * <p>It also remembers the last {@value #RETIRED_REMEMBERED} STags that stopped being valid (a region invalidated, a
 * window rebound, invalidated or closed): a peer that uses one raced this side's revocation, which a correct peer can
 * do, rather than guessed. Such a fault still terminates the connection but does not count against the peer's
 * address ({@code PeerFaultPolicy}). Telling them apart gives a guesser nothing: a guess lands on a retired STag as
 * rarely as on a live one, and a retired one reaches no memory.
 */
final class RegionTable implements ProviderDomain {
    private static final int MAX_STAGS = 1 << 20;
    private static final int RETIRED_REMEMBERED = 4096; // a power of two: the cursor wraps by mask

    private final Map<Integer, SoftStag> byIndex = new ConcurrentHashMap<>();
    private final SecureRandom random = new SecureRandom();
    /** A ring of retired STags, written lock-free from any thread; 0, which no STag is, marks an empty slot. */
    private final AtomicIntegerArray retired = new AtomicIntegerArray(RETIRED_REMEMBERED);
    private final AtomicInteger retiredCursor = new AtomicInteger();

    @Override
    public SoftRegion register(ByteBuffer bytes, Set<Access> access) {
        return insert(stag -> new SoftRegion(this, bytes, access, stag));
    }

    @Override
    public SoftWindow allocateWindow() {
        return insert(stag -> new SoftWindow(this, stag));
    }

    @Override
    public SoftFastRegion allocateFastRegion() {
        return insert(stag -> new SoftFastRegion(this, stag));
    }

    @Override
    public SoftSharedReceiveQueue createSharedReceiveQueue(int depth, int maxSge, SharedReceiveQueueEvents events) {
        return new SoftSharedReceiveQueue(depth, events);
    }

    /** Nothing to release: the table goes with the last connection and entry that refer to it. */
    @Override
    public void close() {
    }

    /** Puts {@code registration} in force at the index of {@code slot}, which holds it while none is. */
    void install(SoftRegion registration, SoftFastRegion slot) {
        byIndex.put(slot.index(), registration);
    }

    /** {@code registration}, made in {@code slot}, ended: the slot holds its index again, unless it was closed. */
    void uninstall(SoftRegion registration, SoftFastRegion slot) {
        if (slot.released()) {
            byIndex.remove(registration.index(), registration);
        } else {
            byIndex.replace(registration.index(), registration, slot);
        }
    }

    private <T extends SoftStag> T insert(IntFunction<T> entryFor) {
        if (byIndex.size() >= MAX_STAGS) {
            throw new RdmaException(Status.INSUFFICIENT_RESOURCES, "the soft device holds " + MAX_STAGS
                    + " registrations and memory windows already; release some");
        }
        while (true) {
            int stag = random.nextInt();
            int index = SoftStag.indexOf(stag);
            if (index == 0 || byIndex.containsKey(index)) {
                continue;
            }
            T entry = entryFor.apply(stag);
            if (byIndex.putIfAbsent(index, entry) == null) {
                return entry;
            }
        }
    }

    /** The entry owning {@code stag}'s index, or null; whether {@code stag} itself is valid is the entry's to say. */
    SoftStag lookup(int stag) {
        return byIndex.get(SoftStag.indexOf(stag));
    }

    void remove(SoftStag entry) {
        byIndex.remove(entry.index(), entry);
    }

    /** {@code stag} was valid and is not any more. */
    void retire(int stag) {
        if (stag != 0) {
            retired.set(retiredCursor.getAndIncrement() & (RETIRED_REMEMBERED - 1), stag);
        }
    }

    /**
     * Whether {@code stag} is among the last STags retired. Scans the ring: asked only when a peer's access already
     * failed, which ends its connection.
     */
    boolean retiredRecently(int stag) {
        if (stag == 0) {
            return false;
        }
        for (int i = 0; i < RETIRED_REMEMBERED; i++) {
            if (retired.get(i) == stag) {
                return true;
            }
        }
        return false;
    }
}
