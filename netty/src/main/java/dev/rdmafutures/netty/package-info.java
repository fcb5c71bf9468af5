/**
 * Netty channels over RdmaFutures connections: {@link dev.rdmafutures.netty.RdmaEventLoopGroup} (one
 * application-driven {@link dev.rdmafutures.RdmaRuntime} per group, each event loop driving a poller of it through
 * Netty 4.2's {@link io.netty.channel.IoHandler}), {@link dev.rdmafutures.netty.RdmaSocketChannel} and
 * {@link dev.rdmafutures.netty.RdmaServerSocketChannel}. A Netty or gRPC application moves to RDMA by naming these
 * three classes where it named NIO's; see docs/netty.md for the byte stream's wire format and its limits.
 */
package dev.rdmafutures.netty;
