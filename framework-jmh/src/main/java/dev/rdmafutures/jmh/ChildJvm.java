package dev.rdmafutures.jmh;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM on this class path running a peer's {@code main}, which answers one-line commands on its standard input
 * with lines on its standard output, each starting with a word the caller expects (or {@code error ...}). The child
 * gets this JVM's log level, {@code bench.*} properties, {@code java.library.path} and, when this JVM has it, the
 * export of {@code sun.nio.ch} with native access: the verbs provider's native library needs the last three. However this process ends,
 * the child's standard input then ends, and a peer ends there too (its command loop stops at the end of its input);
 * {@link #close} asks it to quit and kills it if it has not ended within 60 s.
 */
final class ChildJvm implements AutoCloseable {
    private static final String ENDED = "";
    private static final int ANSWER_SECONDS = 60;
    private final String name;
    private final Process process;
    private final PrintWriter commands;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

    ChildJvm(Class<?> main, String... args) throws IOException {
        name = main.getSimpleName();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Dorg.slf4j.simpleLogger.defaultLogLevel="
                + System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn")));
        System.getProperties().stringPropertyNames().stream().filter(p -> p.startsWith("bench.")).sorted()
                .forEach(p -> command.add("-D" + p + "=" + System.getProperty(p)));
        // A crashing child's report goes to the standard error this JVM shares, so its log shows the crash (the VM
        // scripts look for it there to repeat a run that TCG broke), not only an hs_err file in the working directory.
        command.add("-XX:+ErrorFileToStderr");
        command.add("-Djava.library.path=" + System.getProperty("java.library.path"));
        if (Object.class.getModule().isExported("sun.nio.ch", ChildJvm.class.getModule())) {
            command.addAll(List.of("--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
                    "--enable-native-access=ALL-UNNAMED"));
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        commands = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> {
            try (BufferedReader r = process.inputReader(StandardCharsets.UTF_8)) {
                for (String line; (line = r.readLine()) != null; ) {
                    answers.add(line);
                }
            } catch (IOException e) {
                // the process ended: ENDED says so
            } finally {
                answers.add(ENDED);
            }
        }, name + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** Sends {@code command} and returns the answer, which must start with the command's first word. */
    String[] ask(String command) {
        commands.println(command);
        return expect(command.split(" ", 2)[0]);
    }

    /** The child's next line, which must start with {@code word}, split at spaces. */
    String[] expect(String word) {
        String line;
        try {
            line = answers.poll(ANSWER_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + name, e);
        }
        if (line == null || line.equals(ENDED)) {
            throw new IllegalStateException(line == null ? name + " did not answer '" + word + "' within "
                    + ANSWER_SECONDS + " s" : name + " ended before it answered '" + word + "'");
        }
        String[] fields = line.split(" ");
        if (!fields[0].equals(word)) {
            throw new IllegalStateException(name + " answered '" + word + "' with: " + line);
        }
        return fields;
    }

    /** {@code address} as {@link #socketAddress} reads it: {@code host:port}. */
    static String format(InetSocketAddress address) {
        return address.getAddress().getHostAddress() + ":" + address.getPort();
    }

    /** A {@code host:port} field of an answer. */
    static InetSocketAddress socketAddress(String field) throws IOException {
        int colon = field.lastIndexOf(':');
        return new InetSocketAddress(InetAddress.getByName(field.substring(0, colon)),
                Integer.parseInt(field.substring(colon + 1)));
    }

    @Override
    public void close() {
        commands.println("quit");
        try {
            if (!process.waitFor(ANSWER_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
