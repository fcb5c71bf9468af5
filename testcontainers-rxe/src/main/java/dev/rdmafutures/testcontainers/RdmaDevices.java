package dev.rdmafutures.testcontainers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The verbs devices a Linux host exposes in sysfs ({@code /sys/class/infiniband}), with their port states, and the
 * exact reason when there are none: what test environments report when they skip.
 */
public final class RdmaDevices {
    /** One device port as sysfs shows it. */
    public record Port(String device, int port, String state, String linkLayer) {
        /** Whether the port can carry traffic. */
        public boolean isActive() {
            return state.endsWith("ACTIVE");
        }
    }

    private final Path sysfs;

    /** Devices of this host. */
    public RdmaDevices() {
        this(Path.of("/sys/class/infiniband"));
    }

    /** Devices under another sysfs directory (tests, containers with a bind-mounted sysfs). */
    public RdmaDevices(Path infinibandClassDirectory) {
        this.sysfs = infinibandClassDirectory;
    }

    /** Every port of every device, sorted by device and port. */
    public List<Port> ports() throws IOException {
        List<Port> ports = new ArrayList<>();
        if (!Files.isDirectory(sysfs)) {
            return ports;
        }
        try (Stream<Path> devices = Files.list(sysfs)) {
            for (Path device : devices.sorted().toList()) {
                Path portsDir = device.resolve("ports");
                if (!Files.isDirectory(portsDir)) {
                    continue;
                }
                try (Stream<Path> portDirs = Files.list(portsDir)) {
                    for (Path p : portDirs.sorted().toList()) {
                        ports.add(new Port(device.getFileName().toString(),
                                Integer.parseInt(p.getFileName().toString()),
                                read(p.resolve("state")), read(p.resolve("link_layer"))));
                    }
                }
            }
        }
        return ports;
    }

    /** Why no active port is available, or empty when one is. */
    public Optional<String> absenceReason() throws IOException {
        if (!Files.isDirectory(sysfs)) {
            return Optional.of(sysfs + " does not exist: this kernel has no RDMA core loaded "
                    + "(load rdma_rxe or siw, or run the suite in the project's VM)");
        }
        List<Port> ports = ports();
        if (ports.isEmpty()) {
            return Optional.of("no verbs device under " + sysfs + " (rdma link add rxe0 type rxe netdev <if>)");
        }
        if (ports.stream().noneMatch(Port::isActive)) {
            return Optional.of("no ACTIVE port: " + ports);
        }
        return Optional.empty();
    }

    private static String read(Path file) throws IOException {
        return Files.isReadable(file) ? Files.readString(file).strip() : "unknown";
    }
}
