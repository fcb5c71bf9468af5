package dev.rdmafutures.testcontainers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The Java entry point to the project's VM harness ({@code testcontainers-rxe/vm/rdma-vm}): boots a throw-away
 * QEMU VM with {@code siw0} and/or {@code rxe0}, runs one shell command in it as root and returns its exit code and
 * output. The VM sees the host filesystem read-only, plus the directories named with {@link Builder#shareWritable}.
 * Immutable; {@link #builder()} has the defaults: devices {@code siw}, 1 vCPU, 2 GiB, 15 minutes.
 */
public final class RdmaVm {
    /** System property naming the harness script; else it is searched upwards from the working directory. */
    public static final String SCRIPT_PROPERTY = "rdmafutures.vm.script";
    /** Set to {@code 1} in the environment of commands that run inside the VM. */
    public static final String GUEST_ENV = "RDMAFUTURES_VM_GUEST";

    private final Path script;
    private final String devices;
    private final int cpus;
    private final String memory;
    private final Duration timeout;
    private final List<Path> writable;

    private RdmaVm(Builder b) {
        this.script = b.script;
        this.devices = b.devices;
        this.cpus = b.cpus;
        this.memory = b.memory;
        this.timeout = b.timeout;
        this.writable = List.copyOf(b.writable);
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** Whether the calling JVM runs inside the VM. */
    public static boolean isGuest() {
        return "1".equals(System.getenv(GUEST_ENV));
    }

    /** The harness script, if it can be found. */
    public static Optional<Path> findScript() {
        String configured = System.getProperty(SCRIPT_PROPERTY);
        if (configured != null) {
            return Optional.of(Path.of(configured)).filter(Files::isExecutable);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            for (Path candidate : List.of(dir.resolve("vm/rdma-vm"), dir.resolve("testcontainers-rxe/vm/rdma-vm"))) {
                if (Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }

    /** Why a VM cannot be booted here, or empty when it can: the exact thing to fix. */
    public static Optional<String> unavailabilityCause() {
        Optional<Path> script = findScript();
        if (script.isEmpty()) {
            return Optional.of("the VM harness script testcontainers-rxe/vm/rdma-vm was not found (set -D"
                    + SCRIPT_PROPERTY + ")");
        }
        if (!Files.isExecutable(Path.of("/usr/bin/qemu-system-x86_64"))) {
            return Optional.of("qemu-system-x86_64 is not installed: run " + script.get() + " setup (as root)");
        }
        Path home = Path.of(Objects.requireNonNullElse(System.getenv("RXEVM_HOME"),
                System.getProperty("user.home") + "/.cache/rdmafutures-vm"));
        if (!Files.exists(home.resolve("build/initramfs.cpio.gz"))) {
            return Optional.of("the VM is not set up (no " + home.resolve("build/initramfs.cpio.gz") + "): run "
                    + script.get() + " setup (as root)");
        }
        return Optional.empty();
    }

    /** What a command in the VM did. */
    public record Result(int exitCode, String output) {
        /** Whether the command exited 0. */
        public boolean succeeded() {
            return exitCode == 0;
        }
    }

    /**
     * Boots the VM, runs {@code command} in it (bash, as root, {@value #GUEST_ENV}=1, cwd the caller's), and
     * returns once the VM is gone. Exit code 125 means the VM reported none; the output then ends with the tail of
     * its console log.
     */
    public Result run(String command) throws IOException, InterruptedException {
        List<String> argv = List.of(script.toString(), "run", "export " + GUEST_ENV + "=1; " + command);
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("RXEVM_DEV", devices);
        env.put("RXEVM_SMP", Integer.toString(cpus));
        env.put("RXEVM_MEM", memory);
        env.put("RXEVM_TIMEOUT", Long.toString(timeout.toSeconds()));
        if (!writable.isEmpty()) {
            env.put("RXEVM_RW", String.join(",", writable.stream().map(Path::toString).toList()));
        }
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(timeout.toSeconds() + 60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("the VM harness did not end within " + timeout.plusSeconds(60));
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    /** Builds an {@link RdmaVm}; setters validate at once. */
    public static final class Builder {
        private Path script;
        private String devices = "siw";
        private int cpus = 1;
        private String memory = "2G";
        private Duration timeout = Duration.ofMinutes(15);
        private final List<Path> writable = new ArrayList<>();

        private Builder() {
            script = findScript().orElse(null);
        }

        /** {@code siw}, {@code rxe} or {@code both}. */
        public Builder devices(String which) {
            if (!List.of("siw", "rxe", "both").contains(which)) {
                throw new IllegalArgumentException("devices must be siw, rxe or both: " + which);
            }
            this.devices = which;
            return this;
        }

        /**
         * Virtual CPUs, 1..4. One is the default: under multi-threaded TCG, two let a JVM crash in freshly
         * JIT-compiled code (QEMU's translator races HotSpot's patching of a compiled method's entry).
         */
        public Builder cpus(int count) {
            if (count < 1 || count > 4) {
                throw new IllegalArgumentException("cpus must be 1..4: " + count);
            }
            this.cpus = count;
            return this;
        }

        /** Guest memory, e.g. {@code 2G}. */
        public Builder memory(String size) {
            if (!size.matches("[1-9][0-9]*[MG]")) {
                throw new IllegalArgumentException("memory like 512M or 2G: " + size);
            }
            this.memory = size;
            return this;
        }

        /** How long the VM may run. */
        public Builder timeout(Duration limit) {
            if (limit.isNegative() || limit.isZero()) {
                throw new IllegalArgumentException("timeout must be positive: " + limit);
            }
            this.timeout = limit;
            return this;
        }

        /** A host directory the VM may write (at the same path). */
        public Builder shareWritable(Path directory) {
            if (!Files.isDirectory(directory)) {
                throw new IllegalArgumentException("not a directory: " + directory);
            }
            writable.add(directory.toAbsolutePath());
            return this;
        }

        /**
         * Builds it.
         *
         * @throws IllegalStateException with {@link #unavailabilityCause()} when no VM can be booted here
         */
        public RdmaVm build() {
            Optional<String> cause = unavailabilityCause();
            if (cause.isPresent() || script == null) {
                throw new IllegalStateException(cause.orElse("the VM harness script was not found"));
            }
            return new RdmaVm(this);
        }
    }
}
