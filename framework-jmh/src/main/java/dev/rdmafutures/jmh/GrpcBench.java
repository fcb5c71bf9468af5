package dev.rdmafutures.jmh;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * gRPC-java over RdmaFutures' Netty transport on {@code soft} (or on {@code verbs} in the RDMA VM, at the device's
 * address {@code -Dbench.address}) beside the same program over Netty's NIO and epoll transports at the same address,
 * written against gRPC's public API (a byte-array marshaller, no protobuf), the shape of gRPC's own benchmarks:
 * <ul>
 *   <li>unary: one 1 KiB request answered by a 1 KiB response, one call at a time: the round trip's mean, median and
 *   99th percentile, calls per second;</li>
 *   <li>streaming: server-streaming calls of {@value #STREAM_MESSAGES} messages of 1 KiB each, one call after the
 *   other: messages per second.</li>
 * </ul>
 * Each transport runs with one event loop thread for the server (boss and worker) and one for the client, and gRPC's
 * direct executor on both sides, so that every transport has the same two busy threads and no hand-off to gRPC's
 * thread pool. Server and client share this JVM; the CPU time per call or message is the whole process's (user and
 * system), read at the start and the end of each measurement.
 *
 * <p>The machine is noisy, so the transports take turns: ROUNDS rounds, each measuring every transport for SECONDS
 * per benchmark, the order reversed every other round (a drift penalises every transport alike); each transport's
 * figure is the median of its rounds, and the ratios are of those medians. Before the first round every transport is
 * warmed up, unrecorded, for twice SECONDS per benchmark (3 s at least), then in further passes until the JIT has
 * settled or a limit is reached ({@code -Dbench.warmUpLimitSeconds}, 60 by default; the output and the JSON say which),
 * and every round's new connection for a quarter of SECONDS. Every call must succeed, or the run fails.
 *
 * <p>Usage: {@code GrpcBench TRANSPORTS SECONDS ROUNDS OUT.json}, TRANSPORTS a comma-separated list of
 * {@code rdma} (soft), {@code rdma_blocking}, {@code verbs}, {@code verbs_blocking}, {@code nio} and {@code epoll}
 * (skipped, and said so in the output, where Netty's epoll is not available); see {@link NettyTransport}.
 */
public final class GrpcBench {
    static final int SIZE = 1024;
    static final int STREAM_MESSAGES = 10_000;
    /** Where every server listens: loopback, or in the RDMA VM the device's address (rxe has no loopback). */
    private static final String ADDRESS = System.getProperty("bench.address", "127.0.0.1");
    /** Room for every unary round-trip time of one measurement: more than loopback round trips allow in SECONDS. */
    private static final int MAX_SAMPLES = 4_000_000;
    private static final long CALL_DEADLINE_SECONDS = 30;
    /**
     * The least warm-up per transport and benchmark: with 1 s, the first transport's first round still ran at a
     * tenth of its later rate (the JIT had not compiled gRPC's and Netty's paths yet).
     */
    private static final long WARM_UP_NANOS = TimeUnit.SECONDS.toNanos(3);
    /** Each further warm-up pass, per transport and benchmark. */
    private static final long WARM_UP_PASS_NANOS = TimeUnit.SECONDS.toNanos(2);
    /**
     * The JIT's compile time (summed over its threads) over a pass's time below which the warm-up ends: on this
     * project's host it falls below it within the first pass or two; in the VM in the first round it was about 0.8.
     */
    private static final double JIT_SETTLED_SHARE = 0.05;
    /** The longest warm-up ({@code -Dbench.warmUpLimitSeconds}): it ends there settled or not, and says so. */
    private static final long WARM_UP_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(
            Long.getLong("bench.warmUpLimitSeconds", 60));

    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };
    static final MethodDescriptor<byte[], byte[]> UNARY = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(MethodDescriptor.generateFullMethodName("bench.Bench", "Unary"))
            .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
    static final MethodDescriptor<byte[], byte[]> STREAM = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
            .setFullMethodName(MethodDescriptor.generateFullMethodName("bench.Bench", "Stream"))
            .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();

    private GrpcBench() {
    }

    /** A server and a channel to it over one transport. */
    static final class Setup implements AutoCloseable {
        final EventLoopGroup serverGroup;
        final EventLoopGroup clientGroup;
        final Server server;
        final ManagedChannel channel;

        Setup(NettyTransport transport) throws IOException {
            serverGroup = transport.group.get();
            clientGroup = transport.group.get();
            byte[] response = new byte[SIZE];
            ServerServiceDefinition service = ServerServiceDefinition.builder("bench.Bench")
                    .addMethod(UNARY, ServerCalls.asyncUnaryCall((request, reply) -> {
                        reply.onNext(response);
                        reply.onCompleted();
                    }))
                    .addMethod(STREAM, ServerCalls.asyncServerStreamingCall(GrpcBench::stream))
                    .build();
            server = NettyServerBuilder.forAddress(new InetSocketAddress(ADDRESS, 0))
                    .channelType(transport.serverChannel)
                    .bossEventLoopGroup(serverGroup).workerEventLoopGroup(serverGroup)
                    .directExecutor().addService(service).build().start();
            channel = NettyChannelBuilder.forAddress(new InetSocketAddress(ADDRESS, server.getPort()))
                    .channelType(transport.clientChannel).eventLoopGroup(clientGroup)
                    .directExecutor().usePlaintext().build();
        }

        @Override
        public void close() throws InterruptedException {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            clientGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
            serverGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Sends {@value #STREAM_MESSAGES} messages while the client keeps up: gRPC's flow control holds the rest back
     * ({@code isReady}), so that the stream measures the transport and not a queue growing in the server.
     */
    private static void stream(byte[] request, StreamObserver<byte[]> replies) {
        ServerCallStreamObserver<byte[]> observer = (ServerCallStreamObserver<byte[]>) replies;
        byte[] message = new byte[SIZE];
        int[] sent = {0};
        observer.setOnReadyHandler(() -> {
            while (observer.isReady() && sent[0] < STREAM_MESSAGES) {
                observer.onNext(message);
                sent[0]++;
            }
            if (sent[0] == STREAM_MESSAGES) {
                sent[0]++;
                observer.onCompleted();
            }
        });
    }

    /** What one measurement of one transport gave. */
    record Unary(double callsPerSecond, double meanMicros, double p50Micros, double p99Micros,
                 double cpuMicrosPerCall) {
    }

    record Stream(double messagesPerSecond, double megabytesPerSecond, double cpuMicrosPerMessage) {
    }

    static Unary unary(ManagedChannel channel, long nanos, long[] samples) {
        byte[] request = new byte[SIZE];
        int n = 0;
        long cpu0 = processCpuNanos();
        long start = System.nanoTime();
        long end = start + nanos;
        long now = start;
        while (now < end && n < samples.length) {
            byte[] response = ClientCalls.blockingUnaryCall(channel, UNARY,
                    CallOptions.DEFAULT.withDeadlineAfter(CALL_DEADLINE_SECONDS, TimeUnit.SECONDS), request);
            if (response.length != SIZE) {
                throw new IllegalStateException("a response of " + response.length + " bytes, not " + SIZE);
            }
            long t = System.nanoTime();
            samples[n++] = t - now;
            now = t;
        }
        long elapsed = now - start;
        long cpu = processCpuNanos() - cpu0;
        Arrays.sort(samples, 0, n);
        return new Unary(n * 1e9 / elapsed, elapsed / 1e3 / n, samples[n / 2] / 1e3,
                samples[Math.min(n - 1, (int) (n * 0.99))] / 1e3, cpu / 1e3 / n);
    }

    static Stream stream(ManagedChannel channel, long nanos) throws Exception {
        long messages = 0;
        long cpu0 = processCpuNanos();
        long start = System.nanoTime();
        long now = start;
        while (now - start < nanos) {
            messages += oneStream(channel);
            now = System.nanoTime();
        }
        long elapsed = now - start;
        long cpu = processCpuNanos() - cpu0;
        double rate = messages * 1e9 / elapsed;
        return new Stream(rate, rate * SIZE / 1e6, cpu / 1e3 / messages);
    }

    private static long oneStream(ManagedChannel channel) throws Exception {
        CompletableFuture<Long> done = new CompletableFuture<>();
        ClientCalls.asyncServerStreamingCall(channel.newCall(STREAM, CallOptions.DEFAULT
                .withDeadlineAfter(CALL_DEADLINE_SECONDS, TimeUnit.SECONDS)), new byte[SIZE], new StreamObserver<>() {
                    private long received;

                    @Override
                    public void onNext(byte[] value) {
                        if (value.length != SIZE) {
                            done.completeExceptionally(new IllegalStateException("a message of " + value.length
                                    + " bytes"));
                        }
                        received++;
                    }

                    @Override
                    public void onError(Throwable t) {
                        done.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                        done.complete(received);
                    }
                });
        long received = done.get(CALL_DEADLINE_SECONDS + 5, TimeUnit.SECONDS);
        if (received != STREAM_MESSAGES) {
            throw new IllegalStateException(received + " messages of " + STREAM_MESSAGES);
        }
        return received;
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: GrpcBench TRANSPORTS SECONDS ROUNDS OUT.json");
            System.exit(2);
        }
        List<String> skipped = new ArrayList<>();
        List<NettyTransport> transports = NettyTransport.parse(args[0], skipped);
        skipped.forEach(reason -> System.out.println("skipped: " + reason));
        double seconds = Double.parseDouble(args[1]);
        long nanos = (long) (seconds * 1e9);
        int rounds = Integer.parseInt(args[2]);
        Path out = Path.of(args[3]);
        long[] samples = new long[MAX_SAMPLES];

        WarmUp warmUp = warmUp(transports, Math.max(2 * nanos, WARM_UP_NANOS), samples);
        System.out.printf(Locale.ROOT, "warm-up %.1f s in %d passes, the JIT compiling %.1f%% of the last%s%n",
                warmUp.seconds, warmUp.passes, 100 * warmUp.lastJitShare,
                warmUp.settled() ? "" : " (not settled: the limit ended it)");
        List<List<Unary>> unaries = new ArrayList<>();
        List<List<Stream>> streams = new ArrayList<>();
        for (int i = 0; i < transports.size(); i++) {
            unaries.add(new ArrayList<>());
            streams.add(new ArrayList<>());
        }
        for (int round = 0; round < rounds; round++) {
            for (int k = 0; k < transports.size(); k++) {
                int i = round % 2 == 0 ? k : transports.size() - 1 - k;
                NettyTransport transport = transports.get(i);
                try (Setup setup = new Setup(transport)) {
                    unary(setup.channel, nanos / 4, samples); // the new connection's own warm-up
                    phase(round, transport, "unary");
                    Unary u = unary(setup.channel, nanos, samples);
                    phase(round, transport, "stream");
                    Stream s = stream(setup.channel, nanos);
                    unaries.get(i).add(u);
                    streams.get(i).add(s);
                    System.out.printf(Locale.ROOT, "round %d %-9s unary %8.1f us mean %8.1f us p50 %8.1f us p99 "
                            + "%8.0f calls/s %6.1f us cpu/call | stream %9.0f msg/s %7.1f MB/s %5.2f us cpu/msg%n",
                            round, transport.label, u.meanMicros, u.p50Micros, u.p99Micros, u.callsPerSecond,
                            u.cpuMicrosPerCall, s.messagesPerSecond, s.megabytesPerSecond, s.cpuMicrosPerMessage);
                }
            }
        }
        StringBuilder json = new StringBuilder();
        json.append("{\"size\": ").append(SIZE).append(", \"streamMessages\": ").append(STREAM_MESSAGES)
                .append(", \"seconds\": ").append(seconds).append(", \"rounds\": ").append(rounds)
                .append(", \"warmUpSeconds\": ").append(String.format(Locale.ROOT, "%.1f", warmUp.seconds))
                .append(", \"warmUpPasses\": ").append(warmUp.passes)
                .append(", \"warmUpJitShare\": ").append(String.format(Locale.ROOT, "%.3f", warmUp.lastJitShare))
                .append(", \"warmUpSettled\": ").append(warmUp.settled())
                .append(", \"skipped\": [");
        for (int i = 0; i < skipped.size(); i++) {
            json.append(i == 0 ? "" : ", ").append('"').append(skipped.get(i).replace("\"", "'")).append('"');
        }
        json.append("], \"transports\": [");
        for (int i = 0; i < transports.size(); i++) {
            List<Unary> u = unaries.get(i);
            List<Stream> s = streams.get(i);
            json.append(i == 0 ? "\n" : ",\n").append(String.format(Locale.ROOT,
                    "  {\"transport\": \"%s\", \"unary\": {\"meanMicros\": %.2f, \"p50Micros\": %.2f, "
                            + "\"p99Micros\": %.2f, \"callsPerSecond\": %.1f, \"cpuMicrosPerCall\": %.2f, "
                            + "\"roundsMeanMicros\": %s}, "
                            + "\"stream\": {\"messagesPerSecond\": %.1f, \"megabytesPerSecond\": %.2f, "
                            + "\"cpuMicrosPerMessage\": %.3f, \"roundsMessagesPerSecond\": %s}}",
                    transports.get(i).label,
                    median(u, Unary::meanMicros), median(u, Unary::p50Micros), median(u, Unary::p99Micros),
                    median(u, Unary::callsPerSecond), median(u, Unary::cpuMicrosPerCall),
                    list(u, Unary::meanMicros),
                    median(s, Stream::messagesPerSecond), median(s, Stream::megabytesPerSecond),
                    median(s, Stream::cpuMicrosPerMessage), list(s, Stream::messagesPerSecond)));
        }
        json.append("\n]}\n");
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, json);
        System.out.println("wrote " + out);
    }

    /**
     * Warms every transport up, unrecorded: a pass of {@code firstNanos} per benchmark, then passes of
     * {@link #WARM_UP_PASS_NANOS} while the JIT compiled for more than {@link #JIT_SETTLED_SHARE} of the last pass's
     * time, until {@link #WARM_UP_LIMIT_NANOS}. Under the RDMA VM's emulated CPU the compilers used a third of the
     * process's CPU in the first measured round and the rounds' round trips fell fourfold from the first to the fifth
     * (docs/profiles/2026-11-29-grpc-verbs-vm.md): rounds taken before the JIT settles compare how far each
     * transport's code is compiled, not the transports.
     */
    private static WarmUp warmUp(List<NettyTransport> transports, long firstNanos, long[] samples) throws Exception {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean measurable = jit != null && jit.isCompilationTimeMonitoringSupported();
        long start = System.nanoTime();
        int passes = 0;
        double share;
        long passNanos = firstNanos;
        do {
            long passStart = System.nanoTime();
            long compiled = measurable ? jit.getTotalCompilationTime() : 0;
            for (NettyTransport transport : transports) {
                try (Setup setup = new Setup(transport)) {
                    unary(setup.channel, passNanos, samples);
                    stream(setup.channel, passNanos);
                }
            }
            passes++;
            long passMillis = Math.max(1, (System.nanoTime() - passStart) / 1_000_000);
            share = measurable ? (double) (jit.getTotalCompilationTime() - compiled) / passMillis : 0;
            passNanos = WARM_UP_PASS_NANOS;
        } while (share > JIT_SETTLED_SHARE && System.nanoTime() - start < WARM_UP_LIMIT_NANOS);
        return new WarmUp((System.nanoTime() - start) / 1e9, passes, share);
    }

    /** How the warm-up ended: its length, its passes and the JIT's share of the last pass's time. */
    private record WarmUp(double seconds, int passes, double lastJitShare) {
        boolean settled() {
            return lastJitShare <= JIT_SETTLED_SHARE;
        }
    }

    /**
     * Announces a measured phase on standard output as it begins, so that a profiler attached from outside (the
     * scripts in docs/profiles) can take its window inside one benchmark of one transport.
     */
    private static void phase(int round, NettyTransport transport, String benchmark) {
        System.out.printf(Locale.ROOT, "measuring round %d %s %s%n", round, transport.label, benchmark);
        System.out.flush();
    }

    private static <T> double median(List<T> rows, ToDoubleFunction<T> field) {
        double[] values = rows.stream().mapToDouble(field).sorted().toArray();
        int n = values.length;
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }

    private static <T> String list(List<T> rows, ToDoubleFunction<T> field) {
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < rows.size(); i++) {
            s.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.2f", field.applyAsDouble(rows.get(i))));
        }
        return s.append(']').toString();
    }
}
