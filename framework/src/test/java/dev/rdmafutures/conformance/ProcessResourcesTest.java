package dev.rdmafutures.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.channels.Pipe;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ProcessResourcesTest {

    @Test
    void theListingsOwnDescriptorIsNeverCountedAsHeld() throws IOException {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "no /proc/self/fd here");
        ProcessResources before = ProcessResources.now();
        // Occupies the lowest free numbers, so the next listing's descriptor takes a number the first did not.
        Pipe pipe = Pipe.open();
        try (Pipe.SourceChannel source = pipe.source(); Pipe.SinkChannel sink = pipe.sink()) {
            ProcessResources after = ProcessResources.now();

            assertThat(after.descriptors()).noneMatch(d -> d.endsWith("/fd"));
            assertThat(after.newDescriptors(before)).filteredOn(d -> d.contains("pipe:")).hasSize(2);
        }
    }
}
