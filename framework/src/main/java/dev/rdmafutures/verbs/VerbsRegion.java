package dev.rdmafutures.verbs;

import com.ibm.disni.verbs.IbvMr;
import dev.rdmafutures.Access;
import dev.rdmafutures.spi.ProviderRegion;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

/** A verbs memory region: DiSNI's {@link IbvMr} over a direct buffer; peers address it by virtual address. */
final class VerbsRegion implements ProviderRegion {
    private final IbvMr mr;
    private final ByteBuffer bytes;
    private final Set<Access> access;
    private final AtomicBoolean valid = new AtomicBoolean(true);
    private final BiConsumer<String, Throwable> errors;

    VerbsRegion(IbvMr mr, ByteBuffer bytes, Set<Access> access, BiConsumer<String, Throwable> errors) {
        this.mr = mr;
        this.bytes = bytes;
        this.access = Set.copyOf(access);
        this.errors = errors;
    }

    long address() {
        return mr.getAddr();
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
            try {
                mr.deregMr().execute().free();
            } catch (IOException e) {
                errors.accept("deregister memory region", e);
            }
        }
    }
}
