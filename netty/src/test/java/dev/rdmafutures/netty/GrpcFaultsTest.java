package dev.rdmafutures.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.RdmaRuntime;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code bin/faults}' gRPC rows (issue 26, item 5): gRPC calls in flight over RDMA channels on soft when the server's
 * side dies or the link is cut without a reset. Every call must end with gRPC's own {@code UNAVAILABLE} within a
 * bound (for the cut: the stream's probe interval and the runtime's liveness deadline), none may hang, and the same {@code ManagedChannel} then serves
 * a new call once a server is reachable again. Each case prints a {@code FAULT-ROW}. Every wait is bounded by
 * {@link #WAIT}; each call also carries a deadline of that length, so a call the fault left hanging ends
 * DEADLINE_EXCEEDED and fails the test instead of stalling it.
 */
class GrpcFaultsTest {
    /** Every wait, and every call's deadline: a call that reaches it was left hanging by the fault. */
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Calls must have ended this long after the server died; its kernel resets the connection at once. */
    private static final Duration SETTLE = Duration.ofSeconds(5);
    /** The runtimes' liveness deadline in the link-cut case, short so that the test is. */
    private static final Duration LIVENESS = Duration.ofSeconds(1);
    /** Unary calls held by the server when the fault strikes, beside one server stream that flows. */
    private static final int HELD_UNARY = 8;

    private static final MethodDescriptor<String, String> HOLD = GrpcTest.SAY_HELLO.toBuilder()
            .setFullMethodName(MethodDescriptor.generateFullMethodName("faults.Held", "Hold")).build();
    private static final MethodDescriptor<String, String> FLOOD = GrpcTest.COUNT.toBuilder()
            .setFullMethodName(MethodDescriptor.generateFullMethodName("faults.Held", "Flood")).build();

    private final List<AutoCloseable> cleanup = new ArrayList<>();

    @AfterEach
    void release() throws Exception {
        for (int i = cleanup.size() - 1; i >= 0; i--) {
            cleanup.get(i).close();
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void callsInFlightWhenTheServerDiesEndUnavailableAndTheChannelReconnects() throws Exception {
        ServerSide first = serve(new InetSocketAddress("127.0.0.1", 0), builder -> { });
        ManagedChannel channel = channel(new RdmaEventLoopGroup(1), first.address());
        InFlight calls = InFlight.start(channel, first);

        long killed = System.nanoTime();
        first.kill();
        Map<Status.Code, Integer> outcomes = calls.awaitEnded();
        Duration detected = calls.firstEndSince(killed);
        Duration settled = calls.lastEndSince(killed);

        assertThat(outcomes).as("every call in flight ends UNAVAILABLE").containsOnlyKeys(Status.Code.UNAVAILABLE);
        assertThat(settled).as("all ended within %s of the death", SETTLE).isLessThan(SETTLE);

        // A server back on the same address: the same channel reconnects and serves.
        ServerSide second = serve(first.address(), builder -> { });
        assertThat(hello(channel, "again")).isEqualTo("Hello again");
        assertThat(second.address()).isEqualTo(first.address());

        row("gRPC server's runtime closed under it (its connections end as in a process death): "
                        + HELD_UNARY + " unary calls held by the server, 1 server stream flowing", calls, outcomes,
                detected.toMillis() + " ms after the death, all ended at " + settled.toMillis() + " ms",
                "yes: the same ManagedChannel reconnected to a new server on the same address and served a call",
                calls.streamed() + " stream messages delivered in order (the stream ends after what arrived before"
                        + " the death); no call left pending");
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void callsInFlightWhenTheLinkIsCutSilentlyEndUnavailableWithinTheLivenessDeadline() throws Exception {
        Consumer<RdmaRuntime.Builder> shortDeadline = builder -> builder.livenessTimeout(LIVENESS);
        ServerSide server = serve(new InetSocketAddress("127.0.0.1", 0), shortDeadline);
        BlackHoleRelay relay = new BlackHoleRelay(server.address());
        cleanup.add(relay);
        ManagedChannel channel = channel(new RdmaEventLoopGroup(1, shortDeadline), relay.address());
        InFlight calls = InFlight.start(channel, server);

        long cut = System.nanoTime();
        relay.cut();
        Map<Status.Code, Integer> outcomes = calls.awaitEnded();
        Duration detected = calls.firstEndSince(cut);
        Duration settled = calls.lastEndSince(cut);
        // The stream READs its peer once it heard nothing for one to two probe intervals; from that READ, soft's
        // watch ends the connection between 1.25 and 1.5 deadlines later (the READ leaving is the last sign of
        // life, and the watch looks every quarter deadline). One second more for a busy 2-core host.
        Duration probed = Duration.ofMillis(2 * ByteStream.PROBE_INTERVAL_MILLIS);
        Duration bound = probed.plus(LIVENESS.multipliedBy(3).dividedBy(2)).plusSeconds(1);

        assertThat(outcomes).as("every call in flight ends UNAVAILABLE").containsOnlyKeys(Status.Code.UNAVAILABLE);
        assertThat(settled).as("all ended within %s of the cut (liveness deadline %s)", bound, LIVENESS)
                .isLessThan(bound);

        // The link heals: the same channel reconnects through the relay and serves.
        relay.heal();
        assertThat(hello(channel, "healed")).isEqualTo("Hello healed");

        row("link cut silently (relay black-holes both ways, no FIN/RST) under gRPC: " + HELD_UNARY
                        + " unary calls held by the server, 1 server stream flowing", calls, outcomes,
                detected.toMillis() + " ms after the cut, all ended at " + settled.toMillis()
                        + " ms (liveness deadline " + LIVENESS.toMillis() + " ms)",
                "yes: after the link healed the same ManagedChannel reconnected and served a call",
                calls.streamed() + " stream messages delivered in order; no call left pending");
    }

    // --- the calls in flight ---

    /** The calls a test started, each with how and when it ended. */
    private static final class InFlight {
        private final List<CompletableFuture<Status>> ends = new ArrayList<>();
        private final List<AtomicLong> endedAt = new ArrayList<>();
        private final AtomicLong streamed = new AtomicLong();
        private volatile boolean outOfOrder;

        /** Starts the held unary calls and the stream; returns once the server holds them all and the stream flows. */
        static InFlight start(ManagedChannel channel, ServerSide server) throws Exception {
            InFlight calls = new InFlight();
            CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            for (int i = 0; i < HELD_UNARY; i++) {
                ClientCalls.asyncUnaryCall(channel.newCall(HOLD, options), "held " + i, calls.observer(null));
            }
            CountDownLatch flowing = new CountDownLatch(100);
            ClientCall<String, String> stream = channel.newCall(FLOOD, options);
            ClientCalls.asyncServerStreamingCall(stream, "flood", calls.observer(flowing));
            assertThat(server.held.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("the server holds every call")
                    .isTrue();
            assertThat(flowing.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("the stream flows").isTrue();
            for (CompletableFuture<Status> end : calls.ends) {
                assertThat(end).as("no call ended before the fault").isNotDone();
            }
            return calls;
        }

        private StreamObserver<String> observer(CountDownLatch flowing) {
            CompletableFuture<Status> end = new CompletableFuture<>();
            AtomicLong at = new AtomicLong();
            ends.add(end);
            endedAt.add(at);
            return new StreamObserver<>() {
                private long next;

                @Override
                public void onNext(String value) {
                    if (flowing != null) {
                        outOfOrder |= !value.equals(Long.toString(next++));
                        streamed.incrementAndGet();
                        flowing.countDown();
                    }
                }

                @Override
                public void onError(Throwable t) {
                    at.set(System.nanoTime());
                    end.complete(Status.fromThrowable(t));
                }

                @Override
                public void onCompleted() {
                    at.set(System.nanoTime());
                    end.complete(Status.OK);
                }
            };
        }

        /** Waits for every call to end (each within {@link #WAIT}, its deadline); how many ended with which code. */
        Map<Status.Code, Integer> awaitEnded() throws Exception {
            Map<Status.Code, Integer> outcomes = new EnumMap<>(Status.Code.class);
            for (CompletableFuture<Status> end : ends) {
                Status status = end.get(WAIT.toMillis() + 5_000, TimeUnit.MILLISECONDS);
                outcomes.merge(status.getCode(), 1, Integer::sum);
            }
            assertThat(outOfOrder).as("the stream's messages arrived in order").isFalse();
            return outcomes;
        }

        Duration firstEndSince(long fault) {
            return Duration.ofNanos(endedAt.stream().mapToLong(AtomicLong::get).min().orElseThrow() - fault);
        }

        Duration lastEndSince(long fault) {
            return Duration.ofNanos(endedAt.stream().mapToLong(AtomicLong::get).max().orElseThrow() - fault);
        }

        int size() {
            return ends.size();
        }

        long streamed() {
            return streamed.get();
        }
    }

    // --- the server's side ---

    /** A gRPC server on an event loop whose runtime the test can close under it. */
    private static final class ServerSide {
        final CountDownLatch held = new CountDownLatch(HELD_UNARY + 1);
        final List<RdmaIoHandler> handlers = new CopyOnWriteArrayList<>();
        EventLoopGroup group;
        Server server;

        InetSocketAddress address() {
            return (InetSocketAddress) server.getListenSockets().get(0);
        }

        /**
         * The server's side dies: its runtime closes on its own event loop, ending every connection and closing its
         * sockets, with no gRPC GOAWAY or RST_STREAM before it (gRPC's server is never told).
         */
        void kill() throws Exception {
            group.submit(() -> handlers.get(0).runtime().close()).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }

        ServerServiceDefinition held() {
            return ServerServiceDefinition.builder("faults.Held")
                    .addMethod(HOLD, ServerCalls.asyncUnaryCall((name, reply) -> held.countDown()))
                    .addMethod(FLOOD, ServerCalls.asyncServerStreamingCall((request, replies) -> {
                        ServerCallStreamObserver<String> out = (ServerCallStreamObserver<String>) replies;
                        long[] next = {0};
                        out.setOnCancelHandler(() -> { });
                        out.setOnReadyHandler(() -> {
                            while (out.isReady() && !out.isCancelled()) {
                                out.onNext(Long.toString(next[0]++));
                            }
                        });
                        held.countDown();
                    }))
                    .build();
        }
    }

    private ServerSide serve(InetSocketAddress address, Consumer<RdmaRuntime.Builder> configuration)
            throws Exception {
        ServerSide side = new ServerSide();
        IoHandlerFactory rdma = RdmaIoHandler.newFactory(configuration);
        side.group = new MultiThreadIoEventLoopGroup(1, executor -> {
            IoHandler handler = rdma.newHandler(executor);
            side.handlers.add((RdmaIoHandler) handler);
            return handler;
        });
        cleanup.add(() -> side.group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(WAIT.toMillis()));
        side.server = NettyServerBuilder.forAddress(address)
                .channelType(RdmaServerSocketChannel.class)
                .bossEventLoopGroup(side.group).workerEventLoopGroup(side.group)
                .addService(GrpcTest.greeter()).addService(side.held()).build().start();
        cleanup.add(() -> side.server.shutdownNow().awaitTermination(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        return side;
    }

    private ManagedChannel channel(EventLoopGroup group, InetSocketAddress target) {
        cleanup.add(() -> group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(WAIT.toMillis()));
        ManagedChannel channel = NettyChannelBuilder.forAddress(target)
                .channelType(RdmaSocketChannel.class).eventLoopGroup(group)
                .usePlaintext().build();
        cleanup.add(() -> channel.shutdownNow().awaitTermination(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        return channel;
    }

    /** A new call on {@code channel}; it waits for the channel to be ready again, as long as its deadline. */
    private static String hello(ManagedChannel channel, String name) {
        return ClientCalls.blockingUnaryCall(channel, GrpcTest.SAY_HELLO, CallOptions.DEFAULT.withWaitForReady()
                .withDeadlineAfter(WAIT.toMillis(), TimeUnit.MILLISECONDS), name);
    }

    /** One row of bin/faults' table (the framework's FaultRows format; that class lives in its test-jar). */
    private static void row(String fault, InFlight calls, Map<Status.Code, Integer> outcomes, String detected,
                            String serving, String verified) {
        System.out.printf("FAULT-ROW | %s | %s | %d | %s | %s | %s | %s |%n", fault, "soft (gRPC over Netty)",
                calls.size(), outcomes, detected, serving, verified);
    }
}
