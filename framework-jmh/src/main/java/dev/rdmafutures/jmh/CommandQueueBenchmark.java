package dev.rdmafutures.jmh;

import dev.rdmafutures.internal.poller.ManyToOneArrayQueue;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
import org.jctools.queues.atomic.MpscAtomicArrayQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The poller's cross-thread command hand-off on its own: one application thread offers commands, the poller
 * thread drains them, as {@code Poller.execute} and {@code runCommands} do. The poller's own VarHandle
 * {@code ManyToOneArrayQueue} against the JDK's ConcurrentLinkedQueue, Agrona 1.x's many-to-one queues (linked and
 * array-backed: the poller's queue until JDK 24's {@code sun.misc.Unsafe} warning; they print it here on JDK 24 and
 * later) and JCTools' Unsafe-free {@code MpscAtomicArrayQueue}. Run with {@code -prof gc} for the bytes per
 * hand-off (docs/architecture.md, "Libraries we use").
 */
@State(Scope.Group)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CommandQueueBenchmark {
    /** The queue under test. */
    @Param({"own-m2o-array", "jdk-clq", "agrona-m2o-linked", "agrona-m2o-array", "jctools-mpsc-atomic"})
    public String queue;

    /** One fork measures one queue, so each of these call sites sees one implementation. */
    private Predicate<Runnable> offer;
    private Supplier<Runnable> poll;
    private final Runnable command = () -> { };

    @Setup
    public void setUp() {
        if (queue.equals("own-m2o-array")) {
            ManyToOneArrayQueue<Runnable> own = new ManyToOneArrayQueue<>(64 * 1024);
            offer = own::offer;
            poll = own::poll;
            return;
        }
        Queue<Runnable> commands = switch (queue) {
            case "jdk-clq" -> new ConcurrentLinkedQueue<>();
            case "agrona-m2o-linked" -> new ManyToOneConcurrentLinkedQueue<>();
            case "agrona-m2o-array" -> new ManyToOneConcurrentArrayQueue<>(64 * 1024);
            case "jctools-mpsc-atomic" -> new MpscAtomicArrayQueue<>(64 * 1024);
            default -> throw new IllegalArgumentException(queue);
        };
        offer = commands::offer;
        poll = commands::poll;
    }

    /** The application thread hands over a command (spinning while a bounded queue is full). */
    @Benchmark
    @Group("handOff")
    @GroupThreads(1)
    public void offer() {
        while (!offer.test(command)) {
            Thread.onSpinWait();
        }
    }

    /** The poller drains one command, if any. */
    @Benchmark
    @Group("handOff")
    @GroupThreads(1)
    public void poll(Blackhole bh) {
        bh.consume(poll.get());
    }
}
