/**
 * The {@code verbs} provider: real RDMA devices (hardware, rxe, siw) through DiSNI's verbs classes and the
 * project's own {@code libdisni.so}, which adds what DiSNI lacks (CM event data, read limits, private data,
 * reject, shared ports). One event loop per poller owns a CM event channel and a completion channel; each
 * connection owns its CQ.
 */
package dev.rdmafutures.verbs;
