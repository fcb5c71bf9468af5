package dev.rdmafutures.verbs;

import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.spi.AdapterInfoBuilder;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.verbs.NativeLayout.DeviceInfo;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.nio.ByteBuffer;

/**
 * What a device can do, from {@code ibv_query_device} and port 1's link layer, as this provider offers it.
 *
 * <p>Segments per request are the device's {@code max_sge}; receives' also within {@code max_srq_sge} where the
 * device has shared receive queues, which take the same receives. A READ scatters into at most {@code max_sge_rd}
 * segments (1 on siw), so a READ with more becomes several ({@link SendList}): each connection's send queue holds
 * that many work requests per READ, and its loop's CQ every work request and every receive, its own or any of a
 * shared queue's. So each depth, the shared receive queue's too, keeps {@code depth * parts} within
 * {@code max_qp_wr} and {@code depth * (parts + 1)} within {@code max_cqe}. On siw (vendor {@code 0x626d74}) short
 * payloads are cut at page boundaries ({@link SendList}), which may double the segments (and a READ's requests).
 *
 * <p>rxe (vendor {@code 0xffffff}) writes the kernel's {@code IB_WC_WITH_INVALIDATE} (bit 2) into the completions
 * libibverbs hands over unchanged, where bit 2 reads as {@code IBV_WC_IP_CSUM_OK}; so there a receive completion with
 * either bit carries an invalidated rkey. Its windows confine a peer's rights and connection, but not the bound span:
 * rxe checks an access through a window against the region under it.
 *
 * @param adapterInfo               what the runtime reports
 * @param maxReadSge                the segments one READ work request scatters into ({@code max_sge_rd})
 * @param shortCrossings            whether short payloads must not cross a page inside one segment (siw)
 * @param invalidatedFlags          the {@code wc_flags} bits that say a receive completion revoked an rkey
 * @param maxCompletionQueueEntries the device's {@code max_cqe}: how large one CQ can be
 */
record DeviceCapabilities(AdapterInfo adapterInfo, int maxReadSge, boolean shortCrossings, int invalidatedFlags,
                          int maxCompletionQueueEntries) {
    private static final int LINK_LAYER_ETHERNET = 2;
    /** siw's {@code vendor_id}, "bmt". */
    private static final int SIW_VENDOR_ID = 0x626d74;
    /** rxe's {@code vendor_id} (IBTA's "no vendor"). */
    private static final int RXE_VENDOR_ID = 0xffffff;
    /** The kernel's {@code IB_WC_WITH_INVALIDATE}, as rxe reports it. */
    private static final int KERNEL_WITH_INVALIDATE = 1 << 2;
    /** IB/RoCE private-data limits for RDMA_PS_TCP: connect, accept, reject. */
    private static final int[] IB_PRIVATE_DATA = {56, 196, 148};
    /** iWARP: librdmacm's 8-bit length (255) less MPA revision 2's 4-byte IRD/ORD header (measured on siw). */
    private static final int IWARP_PRIVATE_DATA = 251;

    /**
     * Queries device context {@code handle} named {@code name}, using {@code scratch} at {@code address};
     * {@code windows}: whether it allocates type-2 memory windows.
     */
    static DeviceCapabilities query(long handle, String name, ByteBuffer scratch, long address, boolean windows) {
        int rc = NativeVerbs.queryDevice(handle, address);
        if (rc < 0) {
            throw new RdmaException(Status.DEVICE_REMOVED, "ibv_query_device on " + name + " failed: errno " + -rc);
        }
        int maxInbound = Math.min(scratch.getInt(DeviceInfo.MAX_QP_RD_ATOM), 255);
        int maxOutbound = Math.min(scratch.getInt(DeviceInfo.MAX_QP_INIT_RD_ATOM), 255);
        int maxSge = Math.max(1, scratch.getInt(DeviceInfo.MAX_SGE));
        int maxReadSge = Math.max(1, scratch.getInt(DeviceInfo.MAX_SGE_RD));
        boolean sharedQueues = scratch.getInt(DeviceInfo.MAX_SRQ) > 0;
        int maxReceiveSge = sharedQueues
                ? Math.max(1, Math.min(maxSge, scratch.getInt(DeviceInfo.MAX_SRQ_SGE))) : maxSge;
        int vendor = scratch.getInt(DeviceInfo.VENDOR_ID);
        boolean shortCrossings = vendor == SIW_VENDOR_ID;
        boolean rxe = vendor == RXE_VENDOR_ID;
        int parts = SendList.parts(SendList.segments(maxSge, shortCrossings), maxReadSge, windows);
        int maxQueueDepth = Math.max(1, Math.min(scratch.getInt(DeviceInfo.MAX_QP_WR) / parts,
                scratch.getInt(DeviceInfo.MAX_CQE) / (parts + 1)));
        int maxSharedDepth = sharedQueues ? Math.min(scratch.getInt(DeviceInfo.MAX_SRQ_WR), maxQueueDepth) : 0;
        boolean iwarp = scratch.getInt(DeviceInfo.IWARP) == 1;
        AdapterInfo.Transport transport = AdapterInfo.Transport.IWARP;
        if (!iwarp) {
            NativeVerbs.queryPort(handle, 1, address);
            transport = scratch.getInt(NativeLayout.PortInfo.LINK_LAYER) == LINK_LAYER_ETHERNET
                    ? AdapterInfo.Transport.ROCE : AdapterInfo.Transport.INFINIBAND;
        }
        AdapterInfo info = new AdapterInfoBuilder()
                .providerName(VerbsProvider.NAME)
                .deviceName(name)
                .transport(transport)
                .maxReadLimits(maxInbound, maxOutbound)
                .maxQueueDepths(maxQueueDepth, maxQueueDepth)
                .maxSge(maxSge, maxReceiveSge)
                .maxSharedReceiveQueueDepth(maxSharedDepth)
                .maxPrivateData(iwarp ? IWARP_PRIVATE_DATA : IB_PRIVATE_DATA[0],
                        iwarp ? IWARP_PRIVATE_DATA : IB_PRIVATE_DATA[1],
                        iwarp ? IWARP_PRIVATE_DATA : IB_PRIVATE_DATA[2])
                .memoryWindowsSupported(windows)
                .memoryWindowSpanEnforced(windows && !rxe)
                .readLocalInvalidateSupported(false)
                .remoteInvalidateSupported(windows)
                .regionInvalidateSupported(false)
                .passiveAcceptWaitsForCompleteConnect(!iwarp)
                .sendWaitsForPeerReceive(!iwarp)
                .readFenceOnReadSupported(vendor != SIW_VENDOR_ID) // siw's post_send: "A READ cannot be fenced"
                .build();
        int invalidatedFlags = NativeLayout.Completion.WITH_INV | (rxe ? KERNEL_WITH_INVALIDATE : 0);
        return new DeviceCapabilities(info, maxReadSge, shortCrossings, invalidatedFlags,
                scratch.getInt(DeviceInfo.MAX_CQE));
    }
}
