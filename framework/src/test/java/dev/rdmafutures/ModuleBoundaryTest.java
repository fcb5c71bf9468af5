package dev.rdmafutures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module exports the API, the SPI and the Micrometer binding to everyone, and the provider kit to the verbs
 * module only; the class dependencies (read by the JDK's jdeps from the built classes) run one way: the API's
 * facades reach into the internals, nothing internal reaches back to a facade, the SPI and the soft provider never
 * touch the core's internals. The verbs module cannot: it sees exported packages only, which javac enforces.
 */
class ModuleBoundaryTest {
    private static final String API = "dev.rdmafutures";
    private static Path classes;
    /** Top-level class to the top-level classes of dev.rdmafutures it depends on. */
    private static final Map<String, Set<String>> DEPENDS = new HashMap<>();

    @BeforeAll
    static void readDependencies() throws Exception {
        classes = Path.of(RdmaRuntime.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        String modulePath = Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .filter(p -> p.contains("slf4j-api") || p.contains("caffeine") || p.contains("micrometer"))
                .collect(Collectors.joining(java.io.File.pathSeparator));
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
        StringWriter out = new StringWriter();
        int rc = jdeps.run(new PrintWriter(out), new PrintWriter(out), "--multi-release", "17",
                "--module-path", modulePath, "-verbose:class", "-filter:none", classes.toString());
        assertThat(rc).as(out.toString()).isZero();
        for (String line : out.toString().split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 3 && f[1].equals("->") && f[0].startsWith(API + ".") && f[2].startsWith(API + ".")) {
                String from = topLevel(f[0]);
                String to = topLevel(f[2]);
                if (!from.equals(to)) {
                    DEPENDS.computeIfAbsent(from, k -> new TreeSet<>()).add(to);
                }
            }
        }
        assertThat(DEPENDS).as("jdeps output parsed").containsKey(API + ".RdmaRuntime");
    }

    private static String topLevel(String className) {
        int inner = className.indexOf('$');
        return inner < 0 ? className : className.substring(0, inner);
    }

    private static String packageOf(String className) {
        return className.substring(0, className.lastIndexOf('.'));
    }

    private static boolean inApi(String c) {
        return packageOf(c).equals(API);
    }

    private static boolean isInternal(String c) {
        return c.startsWith(API + ".internal.") || c.startsWith(API + ".soft.") || c.startsWith(API + ".providerkit.");
    }

    @Test
    void theModuleExportsTheApiTheSpiAndTheMicrometerBindingOnly() throws Exception {
        ModuleDescriptor module;
        try (InputStream in = Files.newInputStream(classes.resolve("module-info.class"))) {
            module = ModuleDescriptor.read(in);
        }
        assertThat(module.name()).isEqualTo(API);
        assertThat(module.exports()).filteredOn(e -> !e.isQualified()).extracting(ModuleDescriptor.Exports::source)
                .containsExactlyInAnyOrder(API, API + ".spi", API + ".micrometer");
        assertThat(module.exports()).filteredOn(ModuleDescriptor.Exports::isQualified).singleElement()
                .satisfies(e -> {
                    assertThat(e.source()).isEqualTo(API + ".providerkit");
                    assertThat(e.targets()).containsExactly(API + ".verbs");
                });
        assertThat(module.requires()).extracting(ModuleDescriptor.Requires::name)
                .doesNotContain("disni", "org.agrona.core");
        assertThat(module.provides()).singleElement().satisfies(p -> assertThat(p.providers())
                .containsExactly(API + ".soft.SoftProvider"));
    }

    @Test
    void withoutTheVerbsArtifactAskingForVerbsNamesIt() {
        assertThatThrownBy(() -> RdmaRuntime.builder().provider("verbs").build())
                .isInstanceOfSatisfying(RdmaException.class,
                        e -> assertThat(e.status()).isEqualTo(Status.INVALID_PARAMETER))
                .hasMessageContaining("dev.rdmafutures:rdmafutures-verbs").hasMessageContaining("known: soft");
    }

    @Test
    void theMicrometerBindingUsesThePublicApiOnly() {
        DEPENDS.forEach((from, to) -> {
            if (from.startsWith(API + ".micrometer.")) {
                assertThat(to).as(from).allMatch(c -> inApi(c) || c.startsWith(API + ".micrometer."));
            }
        });
    }

    @Test
    void theApiReachesTheProvidersOnlyThroughTheSpi() {
        DEPENDS.forEach((from, to) -> {
            if (inApi(from)) {
                assertThat(to).as(from).noneMatch(c -> c.startsWith(API + ".soft."));
            }
        });
    }

    @Test
    void nothingInternalDependsOnAnApiClassThatDependsOnInternals() {
        Set<String> facades = new HashSet<>();
        DEPENDS.forEach((from, to) -> {
            if (inApi(from) && to.stream().anyMatch(ModuleBoundaryTest::isInternal)) {
                facades.add(from);
            }
        });
        assertThat(facades).as("the API's facades").contains(API + ".RdmaRuntime");
        DEPENDS.forEach((from, to) -> {
            // The Micrometer binding is a client of the API, as an application is.
            if (!inApi(from) && !from.startsWith(API + ".micrometer.")) {
                assertThat(to).as(from + " must not depend back on a facade").doesNotContainAnyElementsOf(facades);
            }
        });
    }

    @Test
    void theSpiAndTheProvidersNeverTouchTheCoresInternals() {
        DEPENDS.forEach((from, to) -> {
            if (from.startsWith(API + ".spi.") || from.startsWith(API + ".soft.")) {
                assertThat(to).as(from).noneMatch(c -> c.startsWith(API + ".internal."));
            }
            if (from.startsWith(API + ".spi.")) {
                assertThat(to).as(from).allMatch(c -> inApi(c) || c.startsWith(API + ".spi."));
            }
        });
    }

    @Test
    void theProvidersSharedHelpersUseTheApiAndTheSpiOnly() {
        assertThat(DEPENDS.keySet()).as("the provider kit's classes").anyMatch(c -> c.startsWith(API + ".providerkit."));
        DEPENDS.forEach((from, to) -> {
            if (from.startsWith(API + ".providerkit.")) {
                assertThat(to).as(from).allMatch(c -> inApi(c) || c.startsWith(API + ".spi.")
                        || c.startsWith(API + ".providerkit."));
            }
        });
    }

    /** The SPI a provider outside this module implements: interfaces, records, enums and final value classes. */
    @Test
    void theSpiExportsInterfacesAndValueTypesOnly() throws Exception {
        List<String> concrete = new ArrayList<>();
        List<String> spi;
        try (Stream<Path> files = Files.list(classes.resolve("dev/rdmafutures/spi"))) {
            spi = files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".class") && !n.contains("$")
                    && !n.startsWith("package-info")).map(n -> API + ".spi." + n.replace(".class", "")).toList();
        }
        assertThat(spi).contains(API + ".spi.RdmaProvider");
        for (String c : spi) {
            Class<?> type = Class.forName(c, false, getClass().getClassLoader());
            if (Modifier.isPublic(type.getModifiers()) && !type.isInterface() && !type.isRecord() && !type.isEnum()) {
                concrete.add(c);
            }
        }
        // AdapterInfoBuilder builds an immutable value; no other concrete class may be frozen into the SPI.
        assertThat(concrete).containsExactly(API + ".spi.AdapterInfoBuilder");
    }
}
