package dev.rdmafutures.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaVerbs;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.verbs.jni.NativeLibrary;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * What the verbs provider can show on a host without RDMA devices: our libdisni satisfies DiSNI's version and
 * layout checks, the extension answers, and the provider says exactly why it is unavailable. Its conformance runs
 * on rxe0 and siw0 inside the VM (testcontainers-rxe, VerbsOnRxeVmTest and VerbsOnSiwVmTest).
 */
class VerbsProviderTest {

    @Test
    void theJarCarriesTheLibraryAndDisniAcceptsIt() throws Exception {
        assumeThat(VerbsProviderTest.class.getResource("/dev/rdmafutures/verbs/jni/linux-x86_64/libdisni.so"))
                .as("built without libibverbs-dev/librdmacm-dev").isNotNull();
        assertThat(NativeLibrary.ensureLoaded()).isEmpty();
        // DiSNI's dispatcher checks the ABI version (32) and adopts our struct sizes when it is constructed.
        assertThat(RdmaCm.open()).isNotNull();
        assertThat(RdmaVerbs.open()).isNotNull();
        assertThat(com.ibm.disni.verbs.impl.NatIbvSendWR.CSIZE).isEqualTo(128);
        assertThat(com.ibm.disni.verbs.impl.SockAddrIn.CSIZE).isEqualTo(16);
    }

    @Test
    void theExtensionReportsErrorsAsNegativeErrnoWithoutCrashing() {
        assumeThat(NativeLibrary.ensureLoaded()).isEmpty();
        assertThat(NativeVerbs.setReuseAddr(0, 1)).isEqualTo(-22);
        assertThat(NativeVerbs.setAckTimeout(0, 16)).isEqualTo(-22);
        assertThat(NativeVerbs.setMinRnrTimer(0, 12)).isEqualTo(-22);
        assertThat(NativeVerbs.queryDevice(0, 0)).isEqualTo(-22);
        assertThat(NativeVerbs.createQp(0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0)).isEqualTo(-22);
        assertThat(NativeVerbs.destroyQp(0)).isEqualTo(-22);
        assertThat(NativeVerbs.createSrq(0, 16, 1)).isEqualTo(-22);
        assertThat(NativeVerbs.modifySrqLimit(0, 4)).isEqualTo(-22);
        assertThat(NativeVerbs.postSrqRecv(0, 0, 0)).isEqualTo(-22);
        assertThat(NativeVerbs.destroySrq(0)).isEqualTo(-22);
        assertThat(NativeVerbs.layout(0, 64)).isEqualTo(-22);
        int wakeup = NativeVerbs.createWakeup();
        assertThat(wakeup).isPositive();
        assertThat(NativeVerbs.drainWakeup(wakeup)).isZero();
        assertThat(NativeVerbs.signalWakeup(wakeup)).isZero();
        assertThat(NativeVerbs.drainWakeup(wakeup)).isOne();
        assertThat(NativeVerbs.closeFd(wakeup)).isZero();
    }

    @Test
    void onlyJniEntryPointsAreExported() throws Exception {
        Path library = Path.of(System.getProperty("rdmafutures.native.dir", "target/native"), "libdisni.so");
        assumeThat(Files.exists(library)).isTrue();
        Process nm = new ProcessBuilder("nm", "-D", "--defined-only", library.toString()).start();
        String[] symbols = new String(nm.getInputStream().readAllBytes()).lines()
                .map(l -> l.substring(l.lastIndexOf(' ') + 1)).toArray(String[]::new);
        assertThat(nm.waitFor()).isZero();
        long natives = java.util.stream.Stream.of(com.ibm.disni.verbs.impl.NativeDispatcher.class,
                        com.ibm.disni.util.NativeAffinity.class, NativeVerbs.class)
                .flatMap(c -> java.util.Arrays.stream(c.getDeclaredMethods()))
                .filter(m -> java.lang.reflect.Modifier.isNative(m.getModifiers())).count();
        assertThat(symbols).allMatch(s -> s.startsWith("Java_")).hasSize((int) natives);
    }

    @Test
    void withoutItsLauncherFlagsTheProviderNamesEveryFlagItNeeds() throws Exception {
        assumeThat(VerbsProviderTest.class.getResource("/dev/rdmafutures/verbs/jni/linux-x86_64/libdisni.so"))
                .as("built without libibverbs-dev/librdmacm-dev").isNotNull();
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                PrintLoadProblem.class.getName()).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes());
        assertThat(child.waitFor()).as(output).isZero();
        assertThat(output).contains("not exported").contains("not on java.library.path")
                .contains("start the JVM with --add-exports java.base/sun.nio.ch=ALL-UNNAMED "
                        + "--enable-native-access=ALL-UNNAMED -Djava.library.path=/")
                .doesNotContain("WARNING");
        if (Runtime.version().feature() >= 24) {
            assertThat(output).contains("native access (loading libdisni.so) is not enabled");
        }
    }

    /** Prints why the library cannot load in a JVM started with none of the verbs provider's flags. */
    static final class PrintLoadProblem {
        public static void main(String[] args) {
            System.out.println(NativeLibrary.ensureLoaded().orElse("loaded"));
        }
    }

    @Test
    void withoutADeviceTheProviderSaysWhatIsMissing() {
        String[] devices = new File("/sys/class/infiniband").list();
        assumeThat(devices == null || devices.length == 0).as("this host has RDMA devices").isTrue();
        VerbsProvider provider = new VerbsProvider();
        assertThat(provider.isAvailable()).isFalse();
        assertThat(provider.unavailabilityCause()).hasValueSatisfying(cause ->
                assertThat(cause).contains("/sys/class/infiniband").contains("rdma link add"));
        try (RdmaRuntime runtime = RdmaRuntime.builder().provider("auto").build()) {
            assertThat(runtime.adapterInfo().providerName()).isEqualTo("soft");
        }
    }
}
