package dev.rdmafutures.testcontainers;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The engine of {@link InRdmaVm}: on the host, {@link #beforeAll} boots the VM once per class and runs the class
 * there with the JUnit console launcher, writing XML reports to a directory the VM may write; each test method is
 * then replaced by the outcome the VM reported for it. Where no VM can be booted, each test method is skipped with
 * the reason (a skipped class would vanish from Maven's counts, and a build without the VM would look green). Inside
 * the VM it does nothing.
 */
public final class InRdmaVmExtension implements ExecutionCondition, BeforeAllCallback, InvocationInterceptor {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(InRdmaVmExtension.class);
    private static final int OUTPUT_TAIL = 4000;

    /** One test's outcome in the VM. */
    private record Outcome(String kind, String message, String details) {
    }

    /** The VM run of one class. */
    private record ClassRun(Map<String, Outcome> outcomes, String output) {
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (RdmaVm.isGuest() || context.getTestMethod().isEmpty()) {
            return ConditionEvaluationResult.enabled("in the VM, or a class: its methods decide");
        }
        Optional<String> cause = RdmaVm.unavailabilityCause();
        return cause.isPresent() ? ConditionEvaluationResult.disabled("no RDMA VM here: " + cause.get())
                : ConditionEvaluationResult.enabled("an RDMA VM can be booted here");
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        if (RdmaVm.isGuest() || RdmaVm.unavailabilityCause().isPresent()) {
            return; // without a VM every method is skipped with the reason
        }
        Class<?> testClass = context.getRequiredTestClass();
        if (testClass != outermost(context)) {
            return; // @Nested classes ran in the VM with their outermost class
        }
        InRdmaVm config = testClass.getAnnotation(InRdmaVm.class);
        Path reports = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "vm-reports-");
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path classpathFile = Files.writeString(reports.resolve("classpath"), classpath);
        // No registry in the VM: Testcontainers (RxeContainer) must pull no helper image (Ryuk, start-up checks,
        // and the gateway probe it runs when it believes itself in a container: the host root the VM mounts may
        // carry a /.dockerenv).
        String command = "TESTCONTAINERS_RYUK_DISABLED=true TESTCONTAINERS_CHECKS_DISABLE=true"
                + " TESTCONTAINERS_HOST_OVERRIDE=localhost java -cp \"$(cat " + classpathFile + ")\""
                + " -Dorg.slf4j.simpleLogger.defaultLogLevel=warn " + loggerLevels()
                + verbsFlags()
                + "org.junit.platform.console.ConsoleLauncher execute --disable-banner --details=summary "
                + "--select-class " + testClass.getName() + " --reports-dir " + reports;
        RdmaVm.Result result = RdmaVm.builder().devices(config == null ? "siw" : config.devices())
                .timeout(Duration.ofMinutes(config == null ? 15 : config.timeoutMinutes()))
                .shareWritable(reports).build().run(command);
        context.getRoot().getStore(NS).put(testClass.getName(), new ClassRun(parse(reports), result.output()));
    }

    /**
     * {@code -Drdmafutures.vm.log=dev.rdmafutures.verbs=debug,...} on the host raises those loggers in the VM (with
     * timestamps), whose output the host shows when a test fails there.
     */
    private static String loggerLevels() {
        StringBuilder flags = new StringBuilder();
        for (String level : System.getProperty("rdmafutures.vm.log", "").split(",")) {
            if (level.matches("[\\w.]+=(trace|debug|info|warn|error)")) {
                flags.append("-Dorg.slf4j.simpleLogger.log.").append(level).append(' ');
            } else if (!level.isBlank()) {
                throw new IllegalArgumentException("rdmafutures.vm.log: expected logger=level, got " + level);
            }
        }
        return flags.isEmpty() ? ""
                : flags + "-Dorg.slf4j.simpleLogger.showDateTime=true "
                        + "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS ";
    }

    /** The flags the verbs provider needs, when the build names where its native library is. */
    private static String verbsFlags() {
        String nativeDir = System.getProperty("rdmafutures.native.dir");
        return nativeDir == null ? "" : "--add-exports java.base/sun.nio.ch=ALL-UNNAMED "
                + "--enable-native-access=ALL-UNNAMED -Xcheck:jni -Djava.library.path=" + nativeDir + " ";
    }

    private static Map<String, Outcome> parse(Path reports) throws Exception {
        Map<String, Outcome> outcomes = new HashMap<>();
        Path xml = reports.resolve("TEST-junit-jupiter.xml");
        if (!Files.exists(xml)) {
            return outcomes;
        }
        NodeList cases = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile())
                .getElementsByTagName("testcase");
        for (int i = 0; i < cases.getLength(); i++) {
            Element c = (Element) cases.item(i);
            String name = c.getAttribute("classname") + "#" + c.getAttribute("name").replaceAll("\\(.*", "");
            Outcome outcome = new Outcome("passed", "", "");
            for (String kind : new String[] {"failure", "error", "skipped"}) {
                NodeList found = c.getElementsByTagName(kind);
                if (found.getLength() > 0) {
                    Element e = (Element) found.item(0);
                    outcome = new Outcome(kind, e.getAttribute("message"), e.getTextContent());
                }
            }
            outcomes.merge(name, outcome, (a, b) -> a.kind().equals("passed") ? b : a);
        }
        return outcomes;
    }

    @Override
    public void interceptBeforeAllMethod(Invocation<Void> invocation,
                                         ReflectiveInvocationContext<Method> invocationContext,
                                         ExtensionContext context) throws Throwable {
        proceedOnlyInVm(invocation); // class set-up belongs to the VM too (starting dockerd, say)
    }

    @Override
    public void interceptAfterAllMethod(Invocation<Void> invocation,
                                        ReflectiveInvocationContext<Method> invocationContext,
                                        ExtensionContext context) throws Throwable {
        proceedOnlyInVm(invocation);
    }

    @Override
    public void interceptBeforeEachMethod(Invocation<Void> invocation,
                                          ReflectiveInvocationContext<Method> invocationContext,
                                          ExtensionContext context) throws Throwable {
        proceedOnlyInVm(invocation); // set-up of a class that runs in the VM must not run on the host
    }

    @Override
    public void interceptAfterEachMethod(Invocation<Void> invocation,
                                         ReflectiveInvocationContext<Method> invocationContext,
                                         ExtensionContext context) throws Throwable {
        proceedOnlyInVm(invocation);
    }

    private static void proceedOnlyInVm(Invocation<Void> invocation) throws Throwable {
        if (RdmaVm.isGuest()) {
            invocation.proceed();
        } else {
            invocation.skip();
        }
    }

    @Override
    public void interceptTestTemplateMethod(Invocation<Void> invocation,
                                           ReflectiveInvocationContext<Method> invocationContext,
                                           ExtensionContext context) throws Throwable {
        interceptTestMethod(invocation, invocationContext, context); // each invocation takes the method's outcome
    }

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> invocationContext,
                                    ExtensionContext context) throws Throwable {
        if (RdmaVm.isGuest()) {
            invocation.proceed();
            return;
        }
        invocation.skip();
        Class<?> testClass = context.getRequiredTestClass();
        Class<?> ran = outermost(context);
        ClassRun run = context.getRoot().getStore(NS).get(ran.getName(), ClassRun.class);
        String method = context.getRequiredTestMethod().getName();
        if (run == null) {
            throw new AssertionFailedError(method + ": no run of " + ran.getName() + " in the VM was recorded");
        }
        Outcome outcome = run.outcomes().get(testClass.getName() + "#" + method);
        if (outcome == null) {
            throw new AssertionFailedError(method + " did not run in the VM; the VM said:\n" + tail(run.output()));
        }
        switch (outcome.kind()) {
            case "passed" -> { }
            case "skipped" -> throw new TestAbortedException("skipped in the VM: " + outcome.message());
            default -> throw new AssertionFailedError("in the VM: " + outcome.message() + "\n" + outcome.details()
                    + "\nVM output:\n" + tail(run.output()));
        }
    }

    /**
     * The class whose run in the VM holds this context's outcomes: the outermost test class of the context's chain,
     * not of the declaring classes, since a @Nested class a device's class inherits from an abstract suite is
     * declared in the suite but runs in the device's class.
     */
    private static Class<?> outermost(ExtensionContext context) {
        Class<?> outer = context.getRequiredTestClass();
        for (Optional<ExtensionContext> c = context.getParent(); c.isPresent(); c = c.get().getParent()) {
            Optional<Class<?>> type = c.get().getTestClass();
            if (type.isPresent()) {
                outer = type.get();
            }
        }
        return outer;
    }

    private static String tail(String s) {
        return s.length() <= OUTPUT_TAIL ? s : "..." + s.substring(s.length() - OUTPUT_TAIL);
    }
}
