package dev.rdmafutures.testcontainers;

import com.github.dockerjava.api.DockerClient;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.images.builder.ImageFromDockerfile;

/**
 * A container with a real RDMA device: the host's verbs device (rxe, siw or hardware) passed through, host
 * networking so that the device's address is the container's, privileged for {@code /dev/infiniband} and locked
 * memory. It starts when the device's port is ACTIVE inside the container ({@link PortActiveWaitStrategy}), and
 * {@link #runJava} runs a framework peer in it. Two images:
 * <ul>
 *   <li>{@link #LOCAL_IMAGE}, made by {@code vm/import-local-image.sh} with {@code docker import} where no image
 *       registry is reachable: an empty root into which the host's {@code /usr} (rdma-core, the JDK) is mounted
 *       read-only; used when present;</li>
 *   <li>otherwise one built from a Dockerfile ({@code debian:bookworm-slim} with rdma-core and a JRE).</li>
 * </ul>
 * Where no registry is reachable, Testcontainers must pull no helper image either (Ryuk, the start-up checks'
 * alpine): run with {@code TESTCONTAINERS_RYUK_DISABLED=true} and {@code TESTCONTAINERS_CHECKS_DISABLE=true} in the
 * environment, and {@code TESTCONTAINERS_HOST_OVERRIDE=localhost} if a {@code /.dockerenv} is around ({@link InRdmaVm}
 * classes get all three in the VM).
 */
public final class RxeContainer extends GenericContainer<RxeContainer> {
    /** The image {@code vm/import-local-image.sh} imports. */
    public static final String LOCAL_IMAGE = "rdmafutures/rxe-peer:local";
    /** Where the JDK lives in both images. */
    public static final String JAVA = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java";
    private static final String DOCKERFILE = String.join("\n",
            "FROM debian:bookworm-slim",
            "RUN apt-get update && apt-get install -y --no-install-recommends rdma-core ibverbs-providers"
                    + " ibverbs-utils openjdk-17-jre-headless && rm -rf /var/lib/apt/lists/*",
            "");

    private final String device;
    private final Set<String> classpath = new LinkedHashSet<>();
    private String nativeDirectory;

    /** A container for RDMA device {@code device}, e.g. {@code rxe0}, on the image this machine can have. */
    public RxeContainer(String device) {
        super(image());
        this.device = Objects.requireNonNull(device, "device");
        withPrivilegedMode(true);
        withNetworkMode("host");
        withCommand("sleep", "infinity");
        if (hostMountedImage()) {
            withFileSystemBind("/usr", "/usr", BindMode.READ_ONLY);
            withFileSystemBind("/etc/ld.so.cache", "/etc/ld.so.cache", BindMode.READ_ONLY);
            withFileSystemBind("/etc/libibverbs.d", "/etc/libibverbs.d",
                    BindMode.READ_ONLY);
        }
        waitingFor(new PortActiveWaitStrategy(device).withStartupTimeout(Duration.ofSeconds(60)));
    }

    private static boolean hostMountedImage() {
        DockerClient client = DockerClientFactory.lazyClient();
        return !client.listImagesCmd().withImageNameFilter(LOCAL_IMAGE).exec().isEmpty();
    }

    private static Future<String> image() {
        if (hostMountedImage()) {
            return CompletableFuture.completedFuture(LOCAL_IMAGE);
        }
        return new ImageFromDockerfile("rdmafutures/rxe-peer", false).withFileFromString("Dockerfile", DOCKERFILE);
    }

    /** The RDMA device this container waits for. */
    public String device() {
        return device;
    }

    /**
     * Makes {@code path} (a {@link File#pathSeparator}-separated class path) available in the container at the
     * same locations, read-only, for {@link #runJava}.
     */
    public RxeContainer withClasspath(String path) {
        Path repository = Path.of(System.getProperty("user.home"), ".m2", "repository");
        Set<Path> mounts = new LinkedHashSet<>();
        for (String entry : path.split(File.pathSeparator)) {
            if (!entry.isEmpty() && classpath.add(entry)) {
                Path p = Path.of(entry).toAbsolutePath();
                mounts.add(p.startsWith(repository) ? repository : Files.isDirectory(p) ? p : p.getParent());
            }
        }
        for (Path mount : mounts) {
            withFileSystemBind(mount.toString(), mount.toString(), BindMode.READ_ONLY);
        }
        return this;
    }

    /** The directory with {@code libdisni.so} for the verbs provider, mounted read-only at the same place. */
    public RxeContainer withNativeLibraryDirectory(String directory) {
        this.nativeDirectory = directory;
        withFileSystemBind(directory, directory, BindMode.READ_ONLY);
        return this;
    }

    /**
     * Runs {@code mainClass} with the class path and native directory given, and the JVM flags the verbs provider
     * needs; returns once it exits.
     */
    public ExecResult runJava(String mainClass, String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(JAVA, "-cp", String.join(File.pathSeparator, classpath),
                "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        if (nativeDirectory != null) {
            command.add("-Djava.library.path=" + nativeDirectory);
        }
        command.add(mainClass);
        command.addAll(List.of(arguments));
        return execInContainer(command.toArray(String[]::new));
    }
}
