package dev.rdmafutures.soft;

import dev.rdmafutures.Access;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The device's STag table. STags are 32 random bits from a SecureRandom (never 0, never reused while valid), so a
 * peer cannot guess a token it was not given; a lookup of an invalidated token finds nothing.
 */
final class RegionTable {
    private static final int MAX_REGIONS = 1 << 20;

    private final Map<Integer, SoftRegion> byToken = new ConcurrentHashMap<>();
    private final SecureRandom random = new SecureRandom();

    SoftRegion register(ByteBuffer bytes, Set<Access> access) {
        if (byToken.size() >= MAX_REGIONS) {
            throw new RdmaException(Status.INSUFFICIENT_RESOURCES, "the soft device holds " + MAX_REGIONS
                    + " registrations already; deregister some");
        }
        while (true) {
            int token = random.nextInt();
            if (token == 0) {
                continue;
            }
            SoftRegion region = new SoftRegion(this, bytes, access, token);
            if (byToken.putIfAbsent(token, region) == null) {
                return region;
            }
        }
    }

    /** The valid region with {@code token}, or null. */
    SoftRegion lookup(int token) {
        return byToken.get(token);
    }

    void remove(SoftRegion region) {
        byToken.remove(region.token(), region);
    }
}
