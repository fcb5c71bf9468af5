package dev.rdmafutures.conformance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The threads and file descriptors this process holds at one moment, to show that whatever a test opened is gone
 * after it closed everything. Descriptors are read from {@code /proc/self/fd}; where there is none, only threads count.
 */
record ProcessResources(Set<Thread> threads, Set<String> descriptors) {
    private static final Path FDS = Path.of("/proc/self/fd");
    /**
     * What the listing's own descriptor points at. It is open while the directory is read, so it appears in every
     * sample, under whichever number was free at the time: a number it takes that another sample did not counts as
     * new unless it is left out.
     */
    private static final Path LISTING = Path.of("/proc", Long.toString(ProcessHandle.current().pid()), "fd");

    static ProcessResources now() {
        return new ProcessResources(Set.copyOf(Thread.getAllStackTraces().keySet()), openDescriptors());
    }

    /** Samples until nothing beyond {@code before} is left, or {@code within} has passed; returns the last sample. */
    static ProcessResources settledTo(ProcessResources before, Duration within) {
        ProcessResources[] last = new ProcessResources[1];
        Waits.poll(within, () -> {
            last[0] = now();
            return last[0].newThreads(before).isEmpty() && last[0].newDescriptors(before).isEmpty();
        });
        return last[0];
    }

    /** Names of the live threads that were not alive in {@code before}. */
    List<String> newThreads(ProcessResources before) {
        return threads.stream().filter(t -> t.isAlive() && !before.threads.contains(t)).map(Thread::getName).toList();
    }

    /** Descriptors, as "number -> target", that {@code before} did not hold. */
    List<String> newDescriptors(ProcessResources before) {
        return descriptors.stream().filter(d -> !before.descriptors.contains(d)).sorted().toList();
    }

    private static Set<String> openDescriptors() {
        if (!Files.isDirectory(FDS)) {
            return Set.of();
        }
        List<String> found = new ArrayList<>();
        try (Stream<Path> fds = Files.list(FDS)) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    Path target = Files.readSymbolicLink(fd);
                    if (!target.equals(LISTING)) {
                        found.add(fd.getFileName() + " -> " + target);
                    }
                } catch (IOException closedMeanwhile) {
                    // another thread closed it while we listed: not held
                }
            }
        } catch (IOException e) {
            throw new AssertionError("cannot list " + FDS, e);
        }
        return Set.copyOf(found);
    }
}
