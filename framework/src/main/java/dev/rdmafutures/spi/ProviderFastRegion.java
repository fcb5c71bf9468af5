package dev.rdmafutures.spi;

import dev.rdmafutures.Access;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * A provider's fast-register region slot, from {@link ProviderDomain#allocateFastRegion()}: each
 * {@link WorkRequest.Kind#FAST_REGISTER} request puts a registration {@link #prepare} made in force, revoking the
 * slot's earlier one; {@link WorkRequest.Kind#INVALIDATE_WINDOW} revokes the one in force. As a
 * {@link ProviderWindow}, its token is the registration's, and it is "bound" while a registration is in force.
 * Thread-safe.
 */
public interface ProviderFastRegion extends ProviderWindow {
    /**
     * A registration of {@code bytes} with {@code access} for this slot's next FAST_REGISTER request, with a new
     * token, and not valid until that request takes effect. Called on any thread.
     *
     * @throws dev.rdmafutures.RdmaException INVALID_DEVICE_STATE when the slot was closed
     */
    ProviderRegion prepare(ByteBuffer bytes, Set<Access> access);
}
