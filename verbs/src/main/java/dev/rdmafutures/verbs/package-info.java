/**
 * The {@code verbs} provider: real RDMA devices (hardware, rxe, siw) through DiSNI's verbs classes and the
 * project's own {@code libdisni.so}, which adds what DiSNI lacks (CM event data, read limits, private data,
 * reject, shared ports, asynchronous events, work-request lists with any number of segments, shared receive
 * queues). One {@link dev.rdmafutures.verbs.VerbsEventLoop} per poller waits on
 * its CM event channels, the device's asynchronous events, its completion channel and a wake-up eventfd. Each CM id
 * is a {@link dev.rdmafutures.verbs.VerbsConnection} with its lifecycle and teardown, established by an
 * {@link dev.rdmafutures.verbs.ActiveHandshake} or a {@link dev.rdmafutures.verbs.PassiveHandshake}; its
 * {@link dev.rdmafutures.verbs.VerbsQueuePair} owns the QP and the data path, its completions coming through the
 * loop's shared CQs ({@link dev.rdmafutures.verbs.CompletionQueues}); a
 * {@link dev.rdmafutures.verbs.VerbsSharedReceiveQueue} serves the QPs created with it, on any poller.
 */
package dev.rdmafutures.verbs;
