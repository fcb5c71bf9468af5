package dev.rdmafutures.verbs.jni;

import com.ibm.disni.util.MemoryUtils;
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
 * {@code sun.nio.ch} exported to read direct-buffer addresses, and from JDK 24 on loading a native library through
 * JNI is restricted (JEP 472): without {@code --enable-native-access} JDK 24 and 25 print a warning at the first load
 * and later JDKs will refuse. A missing export or library path makes the provider unavailable with a message that
 * names every flag it needs, native access included, so that a user fixes the command line once. Native access
 * alone is left to the JVM, which warns or, under {@code --illegal-native-access=allow}, does not, as its user chose.
 */
public final class NativeLibrary {
    private static final String ALL_UNNAMED = "ALL-UNNAMED";
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
        Path onPath = findOnLibraryPath();
        String missing = missingFlags(onPath != null);
        if (!missing.isEmpty()) {
            return Optional.of(missing + ": start the JVM with " + launcherFlags(onPath != null
                    ? onPath.getParent().toString() : extractedDirectory()));
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

    /**
     * The launcher flags the verbs provider needs, for the modules as this JVM placed them (class path or module
     * path), with {@code libraryDirectory} as the directory that holds {@code libdisni.so}.
     */
    private static String launcherFlags(String libraryDirectory) {
        Module disni = MemoryUtils.class.getModule();
        Module ours = NativeLibrary.class.getModule();
        String nativeAccess = ours.isNamed() || disni.isNamed()
                ? nameOf(ours) + (nameOf(ours).equals(nameOf(disni)) ? "" : "," + nameOf(disni)) : ALL_UNNAMED;
        return "--add-exports java.base/sun.nio.ch=" + nameOf(disni) + " --enable-native-access=" + nativeAccess
                + " -Djava.library.path=" + libraryDirectory;
    }

    private static String nameOf(Module module) {
        return module.isNamed() ? module.getName() : ALL_UNNAMED;
    }

    /** What this JVM lacks of {@link #launcherFlags}, said in words, or empty. */
    private static String missingFlags(boolean libraryOnPath) {
        StringBuilder missing = new StringBuilder();
        if (!Object.class.getModule().isExported("sun.nio.ch", MemoryUtils.class.getModule())) {
            missing.append("DiSNI reads direct-buffer addresses through sun.nio.ch, which is not exported to it");
        }
        if (!libraryOnPath) {
            missing.append(missing.length() == 0 ? "" : "; ").append(FILE_NAME)
                    .append(" is not on java.library.path, the only place DiSNI loads it from");
        }
        if (missing.length() > 0 && (!nativeAccessEnabled(NativeLibrary.class.getModule())
                || !nativeAccessEnabled(MemoryUtils.class.getModule()))) {
            missing.append("; native access (loading libdisni.so) is not enabled for the verbs provider and DiSNI");
        }
        return missing.toString();
    }

    /** Whether JNI loading is allowed without a warning: always before JDK 24, which restricted it (JEP 472). */
    private static boolean nativeAccessEnabled(Module module) {
        if (Runtime.version().feature() < 24) {
            return true;
        }
        try {
            return (Boolean) Module.class.getMethod("isNativeAccessEnabled").invoke(module);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Module.isNativeAccessEnabled() failed", e);
        }
    }

    private static String extractedDirectory() {
        try {
            return extract().getParent().toString();
        } catch (IOException e) {
            return "<a directory holding libdisni.so; extracting this jar's copy failed: " + e.getMessage() + ">";
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
