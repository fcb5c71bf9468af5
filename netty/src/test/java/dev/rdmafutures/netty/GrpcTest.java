package dev.rdmafutures.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.netty.channel.EventLoopGroup;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * gRPC-java over RDMA channels, written against gRPC's public API only: what an application changes is the channel
 * type and the event loop group given to the builders. On {@code soft} over loopback here; the VM stage's subclasses
 * override {@link #newGroup()} and {@link #address()} to run it on {@code verbs} at a device's address.
 */
public class GrpcTest {
    private static final MethodDescriptor.Marshaller<String> UTF8 = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
            return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
            try {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };
    static final MethodDescriptor<String, String> SAY_HELLO = MethodDescriptor.<String, String>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(MethodDescriptor.generateFullMethodName("helloworld.Greeter", "SayHello"))
            .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();
    static final MethodDescriptor<String, String> COUNT = MethodDescriptor.<String, String>newBuilder()
            .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
            .setFullMethodName(MethodDescriptor.generateFullMethodName("helloworld.Greeter", "Count"))
            .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();

    private EventLoopGroup group;
    private Server server;
    private ManagedChannel channel;

    static ServerServiceDefinition greeter() {
        return ServerServiceDefinition.builder("helloworld.Greeter")
                .addMethod(SAY_HELLO, ServerCalls.asyncUnaryCall((name, reply) -> {
                    reply.onNext("Hello " + name);
                    reply.onCompleted();
                }))
                .addMethod(COUNT, ServerCalls.asyncServerStreamingCall((n, replies) -> {
                    for (int i = 0; i < Integer.parseInt(n); i++) {
                        replies.onNext(Integer.toString(i));
                    }
                    replies.onCompleted();
                }))
                .build();
    }

    /** The group the server and the channel share, on the runtimes the test runs on. */
    protected EventLoopGroup newGroup() {
        return new RdmaEventLoopGroup(1);
    }

    /** The address the server binds and the channel connects to. */
    protected InetAddress address() {
        return InetAddress.getLoopbackAddress();
    }

    /**
     * How many times the calls' deadlines are stretched: 1 here. The deadlines keep a broken transport from hanging
     * the build and claim no speed; the VM stage, whose emulated CPU runs gRPC's cold paths many times slower,
     * stretches them.
     */
    protected long deadlineScale() {
        return 1;
    }

    private CallOptions within(long seconds) {
        return CallOptions.DEFAULT.withDeadlineAfter(seconds * deadlineScale(), TimeUnit.SECONDS);
    }

    @BeforeEach
    void start() throws IOException {
        group = newGroup();
        server = NettyServerBuilder.forAddress(new InetSocketAddress(address(), 0))
                .channelType(RdmaServerSocketChannel.class)
                .bossEventLoopGroup(group).workerEventLoopGroup(group)
                .addService(greeter()).build().start();
        channel = NettyChannelBuilder.forAddress(new InetSocketAddress(address(), server.getPort()))
                .channelType(RdmaSocketChannel.class).eventLoopGroup(group)
                .usePlaintext().build();
    }

    @AfterEach
    void stop() throws Exception {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
    }

    @Test
    void unaryHelloWorld() {
        assertThat(ClientCalls.blockingUnaryCall(channel, SAY_HELLO, within(10), "world")).isEqualTo("Hello world");
    }

    @Test
    void serverStreamingDeliversEveryMessageInOrder() {
        Iterator<String> replies = ClientCalls.blockingServerStreamingCall(channel, COUNT, within(30), "10000");
        List<String> received = new ArrayList<>();
        replies.forEachRemaining(received::add);
        assertThat(received).hasSize(10000);
        for (int i = 0; i < received.size(); i++) {
            assertThat(received.get(i)).isEqualTo(Integer.toString(i));
        }
    }

    @Test
    void largeMessagesCrossManyStreamBuffers() {
        String big = "x".repeat(3 * 1024 * 1024 + 7);
        assertThat(ClientCalls.blockingUnaryCall(channel, SAY_HELLO, within(30), big)).isEqualTo("Hello " + big);
    }

    @Test
    void aCallWhoseServerIsGoneEndsUnavailable() throws Exception {
        assertThat(ClientCalls.blockingUnaryCall(channel, SAY_HELLO, within(10), "first")).isEqualTo("Hello first");
        server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, SAY_HELLO, within(10), "second"))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    }
}
