package dev.rdmafutures.verbs;

import com.ibm.disni.verbs.IbvContext;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps siw's queues off the mapping key libsiw (rdma-core 44) mistakes for a failure. siw hands out each device
 * context's mapping keys as page offsets, lowest free first, and libsiw takes key {@code 0x90000} (page 144, its
 * {@code SIW_INVAL_UOBJ_KEY}) for a failed mapping: the CQ, QP or SRQ whose queue would start at page 144 fails to be
 * created, and so does every later one while that page stays the lowest free. The first runtime on a siw context
 * creates one CQ whose ring spans pages 0 to 255, before any queue of its own, so that no queue can start at page
 * 144. It lives as long as the context, which librdmacm opens once per process: hence one per context, held here.
 */
final class SiwMappingGuard {
    private static final Logger LOG = LoggerFactory.getLogger(SiwMappingGuard.class);
    /** siw's CQEs take 32 bytes: 32,768 of them span 256 pages. */
    private static final int ENTRIES = 32768;
    private static final Set<Long> GUARDED_CONTEXTS = new HashSet<>();

    private SiwMappingGuard() {
    }

    /** Creates the guard on context {@code handle} unless it has one; {@code maxCqe} bounds its size. */
    static synchronized void ensure(IbvContext context, long handle, int maxCqe) {
        if (!GUARDED_CONTEXTS.add(handle)) {
            return;
        }
        try {
            context.createCQ(context.createCompChannel(), Math.min(ENTRIES, maxCqe), 0); // never destroyed
        } catch (IOException e) {
            LOG.warn("siw: the CQ that keeps queues off page 144 could not be created ({}); a queue that maps there"
                    + " will fail", e.getMessage());
        }
    }
}
