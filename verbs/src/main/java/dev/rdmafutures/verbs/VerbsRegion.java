package dev.rdmafutures.verbs;

import com.ibm.disni.verbs.IbvMr;
import dev.rdmafutures.Access;
import dev.rdmafutures.spi.ProviderRegion;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

/**
 * A verbs memory region: DiSNI's {@link IbvMr} over a direct buffer; peers address it by virtual address. Where the
 * device binds memory windows it is registered for them too, and its end revokes the windows bound over it first.
 */
final class VerbsRegion implements ProviderRegion {
    private final IbvMr mr;
    private final long mrHandle;
    private final VerbsWindows windows;
    private final TokenRetirements tokenRetirements;
    private final ByteBuffer bytes;
    private final Set<Access> access;
    private final AtomicBoolean valid = new AtomicBoolean(true);
    private final BiConsumer<String, Throwable> errors;

    /**
     * {@code mr} over {@code bytes}, its {@code struct ibv_mr *} {@code mrHandle}; {@code windows}: the domain's, or
     * null where the device binds none; {@code tokenRetirements}: the domain's, told when a region peers could
     * reach is deregistered.
     */
    VerbsRegion(IbvMr mr, long mrHandle, ByteBuffer bytes, Set<Access> access, VerbsWindows windows,
                TokenRetirements tokenRetirements, BiConsumer<String, Throwable> errors) {
        this.mr = mr;
        this.mrHandle = mrHandle;
        this.windows = windows;
        this.tokenRetirements = tokenRetirements;
        this.bytes = bytes;
        this.access = Set.copyOf(access);
        this.errors = errors;
    }

    long address() {
        return mr.getAddr();
    }

    /** The {@code struct ibv_mr *} a window bind names. */
    long mrHandle() {
        return mrHandle;
    }

    int localKey() {
        return mr.getLkey();
    }

    @Override
    public int token() {
        return mr.getRkey();
    }

    @Override
    public long remoteBase() {
        return mr.getAddr();
    }

    @Override
    public ByteBuffer bytes() {
        return bytes;
    }

    @Override
    public int length() {
        return mr.getLength();
    }

    @Override
    public Set<Access> access() {
        return access;
    }

    @Override
    public boolean isValid() {
        return valid.get();
    }

    @Override
    public void invalidate() {
        if (valid.compareAndSet(true, false)) {
            // A region no peer could reach retires no token a peer could hold.
            if (access.contains(Access.REMOTE_READ) || access.contains(Access.REMOTE_WRITE)) {
                tokenRetirements.retired();
            }
            if (windows != null) {
                windows.regionEnding(this);
            }
            try {
                mr.deregMr().execute().free();
            } catch (IOException e) {
                errors.accept("deregister memory region", e);
            }
        }
    }
}
