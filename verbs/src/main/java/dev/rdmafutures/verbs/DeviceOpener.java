package dev.rdmafutures.verbs;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.impl.NatIbvContext;
import com.ibm.disni.verbs.impl.NatObject;
import com.ibm.disni.verbs.impl.NativeDispatcher;
import com.ibm.disni.verbs.impl.RdmaCmNat;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.ProviderConfig;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds and opens the {@link VerbsDevice} a runtime asked for: librdmacm's devices by name (option
 * {@value #OPTION_DEVICE}) or the first whose port 1 is ACTIVE; its context, a protection domain, whether it
 * allocates memory windows, and its limits ({@link DeviceCapabilities}).
 */
final class DeviceOpener {
    static final String OPTION_DEVICE = "verbs.device";
    private static final Logger LOG = LoggerFactory.getLogger(DeviceOpener.class);
    private static final int PORT_ACTIVE = 4;

    private DeviceOpener() {
    }

    /**
     * Opens the device {@value #OPTION_DEVICE} names, or the first whose port 1 is ACTIVE.
     *
     * @throws RdmaException NOT_SUPPORTED with {@code unavailable}'s reason, INVALID_PARAMETER for an unknown option,
     *                       DEVICE_REMOVED when no device fits
     */
    static VerbsDevice open(ProviderConfig config, Optional<String> unavailable) {
        String wanted = null;
        for (Map.Entry<String, String> option : config.options().entrySet()) {
            if (!option.getKey().startsWith(VerbsProvider.NAME + ".")) {
                continue;
            }
            if (!option.getKey().equals(OPTION_DEVICE)) {
                throw new RdmaException(Status.INVALID_PARAMETER,
                        "unknown option " + option.getKey() + "; the verbs provider knows " + OPTION_DEVICE);
            }
            wanted = option.getValue();
        }
        if (unavailable.isPresent()) {
            throw new RdmaException(Status.NOT_SUPPORTED, "the verbs provider is unavailable: " + unavailable.get());
        }
        try {
            RdmaCm cm = RdmaCm.open();
            NativeLayout.verify();
            NativeDispatcher dispatcher = dispatcherOf(cm);
            ByteBuffer scratch = ByteBuffer.allocateDirect(512).order(ByteOrder.nativeOrder());
            long address = MemoryUtils.getAddress(scratch);
            int count = NativeVerbs.getDevices(address, 32);
            if (count < 0) {
                throw new RdmaException(Status.DEVICE_REMOVED, "rdma_get_devices failed: errno " + -count);
            }
            long[] handles = new long[Math.min(count, 32)];
            for (int i = 0; i < handles.length; i++) {
                handles[i] = scratch.getLong(i * 8);
            }
            List<String> seen = new ArrayList<>();
            for (long handle : handles) {
                String name = deviceName(handle, scratch, address);
                seen.add(name);
                boolean chosen = wanted != null ? wanted.equals(name) : portActive(handle, scratch, address);
                if (chosen) {
                    return open(config, cm, dispatcher, handle, name, scratch, address);
                }
            }
            throw new RdmaException(Status.DEVICE_REMOVED, wanted != null
                    ? "no RDMA device named " + wanted + "; librdmacm sees " + seen
                    : "no RDMA device with port 1 ACTIVE among " + seen);
        } catch (IOException e) {
            throw new RdmaException(Status.INSUFFICIENT_RESOURCES, "opening the verbs provider failed: " + e, e);
        }
    }

    private static VerbsDevice open(ProviderConfig config, RdmaCm cm, NativeDispatcher dispatcher, long handle,
                                    String name, ByteBuffer scratch, long address) throws IOException {
        IbvContext context = new NatIbvContext(handle, dispatcher);
        IbvPd pd = context.allocPd();
        boolean windows = VerbsWindows.supported(((NatObject) pd).getObjId());
        DeviceCapabilities capabilities = DeviceCapabilities.query(handle, name, scratch, address, windows);
        if (capabilities.shortCrossings()) { // siw
            SiwMappingGuard.ensure(context, handle, capabilities.maxCompletionQueueEntries());
        }
        LOG.debug("opened {}", capabilities.adapterInfo());
        return new VerbsDevice(config, cm, dispatcher, context, pd, capabilities);
    }

    private static String deviceName(long context, ByteBuffer scratch, long address) {
        int length = NativeVerbs.deviceName(context, address, 64);
        byte[] name = new byte[Math.max(length, 0)];
        scratch.get(0, name);
        return new String(name, StandardCharsets.US_ASCII);
    }

    private static boolean portActive(long context, ByteBuffer scratch, long address) {
        return NativeVerbs.queryPort(context, 1, address) == 0
                && scratch.getInt(NativeLayout.PortInfo.STATE) == PORT_ACTIVE;
    }

    /** DiSNI keeps its dispatcher package-private; wrapping ids and contexts the CM hands us needs it. */
    private static NativeDispatcher dispatcherOf(RdmaCm cm) {
        try {
            Field field = RdmaCmNat.class.getDeclaredField("nativeDispatcher");
            field.setAccessible(true);
            return (NativeDispatcher) field.get(cm);
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new RdmaException(Status.NOT_SUPPORTED, "this DiSNI is not version 2.1: " + e, e);
        }
    }
}
