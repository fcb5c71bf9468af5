/**
 * RdmaFutures' public API: RDMA with NDK's semantics, every operation completing a
 * {@link java.util.concurrent.CompletableFuture} (or, allocation-free, a {@link dev.rdmafutures.CompletionCallback}).
 *
 * <p>Start with {@link dev.rdmafutures.RdmaRuntime#builder()}: a runtime opens one provider ({@code soft}, pure Java
 * iWARP over TCP; {@code verbs}, real RDMA devices) and drives it with its poller threads. What the adapter can do is
 * in {@link dev.rdmafutures.AdapterInfo}; every refusal is an {@link dev.rdmafutures.RdmaException} with an
 * NTSTATUS-like {@link dev.rdmafutures.Status}.
 *
 * <h2>From NDK names to ours</h2>
 * <table class="striped">
 * <caption>NDKPI (and Network Direct) calls and their RdmaFutures counterparts</caption>
 * <thead><tr><th scope="col">NDK</th><th scope="col">RdmaFutures</th></tr></thead>
 * <tbody>
 * <tr><th scope="row">opening the NDK adapter, NdkQueryAdapterInfo</th>
 *     <td>{@code RdmaRuntime.builder().provider(..).build()}, {@link dev.rdmafutures.RdmaRuntime#adapterInfo()}</td></tr>
 * <tr><th scope="row">NdkConnect (INDConnector::Connect)</th>
 *     <td>{@code runtime.connector().connect(address).withReadLimits(in, out).withPrivateData(bytes).start()}</td></tr>
 * <tr><th scope="row">NdkConnectWithSharedEndpoint</th>
 *     <td>{@link dev.rdmafutures.RdmaRuntime#sharedEndpoint}, then {@code connect(..).from(sharedEndpoint)}</td></tr>
 * <tr><th scope="row">NdkCompleteConnect, NdkReject on the active side</th>
 *     <td>{@code connect(..).deferCompletion().start()}, then {@link dev.rdmafutures.PendingConnection#complete()}
 *     or {@link dev.rdmafutures.PendingConnection#reject()}</td></tr>
 * <tr><th scope="row">NdkGetConnectionData</th>
 *     <td>{@link dev.rdmafutures.RdmaConnection#connectionData()},
 *     {@link dev.rdmafutures.PendingConnection#connectionData()}</td></tr>
 * <tr><th scope="row">NdkCreateListener, NdkListen, its connect event callback</th>
 *     <td>{@link dev.rdmafutures.RdmaRuntime#listen}, {@link dev.rdmafutures.RdmaListener#next()} or
 *     {@link dev.rdmafutures.RdmaListener#onRequest}</td></tr>
 * <tr><th scope="row">NdkAcceptEx (with its disconnect event callback)</th>
 *     <td>{@link dev.rdmafutures.ConnectionRequest#accept()}, after {@code onDisconnect(callback)}</td></tr>
 * <tr><th scope="row">NdkReject (passive side)</th>
 *     <td>{@link dev.rdmafutures.ConnectionRequest#reject(byte[])}</td></tr>
 * <tr><th scope="row">NdkDisconnect</th><td>{@link dev.rdmafutures.RdmaConnection#disconnect()}</td></tr>
 * <tr><th scope="row">NdkCreateQp, NdkCreateQpWithSrq (depths, SGEs)</th>
 *     <td>{@code withQueueDepths(..)}, {@code withMaxSge(..)} at connect or accept;
 *     {@link dev.rdmafutures.RdmaConnection#queueDepths()}</td></tr>
 * <tr><th scope="row">NdkCreateSrq, NdkSrqReceive, NdkModifySrq's notify threshold</th>
 *     <td>{@link dev.rdmafutures.RdmaRuntime#sharedReceiveQueue}, {@code queue.receive(..)},
 *     {@code queue.notifyBelow(n)}</td></tr>
 * <tr><th scope="row">NdkCreateMr, NdkRegisterMr, NdkDeregisterMr</th>
 *     <td>{@link dev.rdmafutures.RdmaRuntime#register}, {@link dev.rdmafutures.MemoryRegion#deregister()}</td></tr>
 * <tr><th scope="row">NdkGetRemoteTokenFromMr</th><td>{@link dev.rdmafutures.MemoryRegion#remote()}</td></tr>
 * <tr><th scope="row">NdkCreateMw, NdkBind, NdkInvalidate</th>
 *     <td>{@link dev.rdmafutures.RdmaRuntime#allocateMemoryWindow()}, {@link dev.rdmafutures.RdmaConnection#bind},
 *     {@link dev.rdmafutures.RdmaConnection#invalidate(dev.rdmafutures.MemoryWindow)}</td></tr>
 * <tr><th scope="row">NdkCreateMr for fast registration, NdkFastRegister</th>
 *     <td>{@link dev.rdmafutures.RdmaRuntime#allocateFastRegion()},
 *     {@link dev.rdmafutures.RdmaConnection#fastRegister}</td></tr>
 * <tr><th scope="row">NdkRead (flags, SGL), NdkWrite</th>
 *     <td>{@code read(..)}, {@code write(..)} with a region or a {@link dev.rdmafutures.ScatterGatherList} and
 *     {@link dev.rdmafutures.OperationFlags}</td></tr>
 * <tr><th scope="row">NdkSend, NdkSendAndInvalidate, NdkReceive</th>
 *     <td>{@code send(..)}, {@code sendAndInvalidate(..)}, {@code receive(..)}</td></tr>
 * <tr><th scope="row">NDK_OP_FLAG_DEFER, a run of deferred posts</th>
 *     <td>{@link dev.rdmafutures.OperationFlags#DEFER}, {@link dev.rdmafutures.RdmaConnection#batch()}</td></tr>
 * <tr><th scope="row">NdkGetCqResults and the request completion callbacks</th>
 *     <td>the futures and {@link dev.rdmafutures.CompletionCallback}s the pollers complete</td></tr>
 * </tbody>
 * </table>
 */
package dev.rdmafutures;
