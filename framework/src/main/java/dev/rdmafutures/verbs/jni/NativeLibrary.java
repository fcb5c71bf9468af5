package dev.rdmafutures.verbs.jni;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Finds and loads {@code libdisni.so}, which this jar carries for linux-x86_64. DiSNI's own classes load it with
 * {@code System.loadLibrary("disni")}, which searches only {@code java.library.path}, fixed at JVM start; so the
 * library is extracted to a stable per-content directory and, when that directory is not on the path, the exact
 * flag to add is reported instead of failing later with an {@link UnsatisfiedLinkError}. DiSNI also needs
 * {@code sun.nio.ch} exported to read direct-buffer addresses on JDK 17.
 */
public final class NativeLibrary {
    /** The JVM flag DiSNI needs on JDK 9 and later. */
    public static final String ADD_EXPORTS = "--add-exports java.base/sun.nio.ch=ALL-UNNAMED";
    private static final String FILE_NAME = System.mapLibraryName("disni");
    private static final String RESOURCE = "linux-x86_64/" + FILE_NAME;
    private static final Object LOCK = new Object();
    private static volatile Optional<String> problem;

    private NativeLibrary() {
    }

    /** Loads the library once; returns why it cannot be used, or empty when it is loaded. Thread-safe. */
    public static Optional<String> ensureLoaded() {
        Optional<String> known = problem;
        if (known != null) {
            return known;
        }
        synchronized (LOCK) {
            if (problem == null) {
                problem = load();
            }
            return problem;
        }
    }

    private static Optional<String> load() {
        if (!"Linux".equals(System.getProperty("os.name")) || !"amd64".equals(System.getProperty("os.arch"))) {
            return Optional.of("the verbs provider ships libdisni.so for linux-x86_64 only, not "
                    + System.getProperty("os.name") + "/" + System.getProperty("os.arch"));
        }
        if (!Object.class.getModule().isExported("sun.nio.ch", NativeLibrary.class.getModule())) {
            return Optional.of("DiSNI reads direct-buffer addresses through sun.nio.ch: start the JVM with "
                    + ADD_EXPORTS);
        }
        Path onPath = findOnLibraryPath();
        if (onPath == null) {
            return Optional.of(notOnPath());
        }
        try {
            System.load(onPath.toString());
            return Optional.empty();
        } catch (UnsatisfiedLinkError e) {
            return Optional.of("cannot load " + onPath + ": " + e.getMessage()
                    + " (libibverbs1 and librdmacm1 must be installed)");
        }
    }

    private static Path findOnLibraryPath() {
        for (String dir : System.getProperty("java.library.path", "").split(File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Path candidate = Path.of(dir, FILE_NAME);
                if (Files.isRegularFile(candidate)) {
                    return candidate.toAbsolutePath();
                }
            }
        }
        return null;
    }

    private static String notOnPath() {
        try {
            Path extracted = extract();
            return FILE_NAME + " is not on java.library.path; DiSNI loads it from there only. This jar's copy is at "
                    + extracted + ": start the JVM with -Djava.library.path=" + extracted.getParent();
        } catch (IOException e) {
            return FILE_NAME + " is not on java.library.path and extracting this jar's copy failed: " + e;
        }
    }

    /** Extracts the bundled library to {@code <tmpdir>/rdmafutures-<user>/<sha-256 prefix>/libdisni.so}. */
    public static Path extract() throws IOException {
        byte[] bytes;
        try (InputStream in = NativeLibrary.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IOException("this build carries no " + RESOURCE
                        + " (it was built without libibverbs-dev/librdmacm-dev)");
            }
            bytes = in.readAllBytes();
        }
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "rdmafutures-" + System.getProperty("user.name"),
                digest(bytes));
        Path target = dir.resolve(FILE_NAME);
        if (!Files.isRegularFile(target) || Files.size(target) != bytes.length) {
            Files.createDirectories(dir);
            Path temporary = Files.createTempFile(dir, FILE_NAME, ".part");
            Files.write(temporary, bytes);
            Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        return target;
    }

    private static String digest(byte[] bytes) {
        try {
            byte[] sha = MessageDigest.getInstance("SHA-256").digest(bytes);
            return HexFormat.of().formatHex(sha, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
