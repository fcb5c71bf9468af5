package dev.rdmafutures.jmh;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
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
 * thread drains them, as {@code Poller.execute} and {@code runCommands} do. The JDK's ConcurrentLinkedQueue (what
 * the poller uses) against Agrona's many-to-one queues, linked and array-backed. Run with {@code -prof gc} for the
 * bytes per hand-off. Decides whether the poller adopts Agrona's queue (docs/architecture.md).
 */
@State(Scope.Group)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CommandQueueBenchmark {
    /** The queue under test. */
    @Param({"jdk-clq", "agrona-m2o-linked", "agrona-m2o-array"})
    public String queue;

    private Queue<Runnable> commands;
    private final Runnable command = () -> { };

    @Setup
    public void setUp() {
        commands = switch (queue) {
            case "jdk-clq" -> new ConcurrentLinkedQueue<>();
            case "agrona-m2o-linked" -> new ManyToOneConcurrentLinkedQueue<>();
            case "agrona-m2o-array" -> new ManyToOneConcurrentArrayQueue<>(64 * 1024);
            default -> throw new IllegalArgumentException(queue);
        };
    }

    /** The application thread hands over a command (spinning while a bounded queue is full). */
    @Benchmark
    @Group("handOff")
    @GroupThreads(1)
    public void offer() {
        while (!commands.offer(command)) {
            Thread.onSpinWait();
        }
    }

    /** The poller drains one command, if any. */
    @Benchmark
    @Group("handOff")
    @GroupThreads(1)
    public void poll(Blackhole bh) {
        bh.consume(commands.poll());
    }
}
