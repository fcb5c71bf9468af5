package dev.rdmafutures.jmh;

import dev.rdmafutures.RemoteBuffer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@link ConnectionScale}'s handle on the server end of its connections, a child JVM running {@link ScaleServer}, so
 * that each process holds one socket per connection: 10,000 connections then fit a limit of 20,000 descriptors per
 * process. The child listens on 127.0.0.1..127.0.0.k, accepts every request and answers one-line commands on its
 * standard input.
 */
final class ServerProcess implements AutoCloseable {
    private static final String ENDED = "";
    final List<InetSocketAddress> listeners = new ArrayList<>();
    final RemoteBuffer buffer;
    private final Process process;
    private final PrintWriter commands;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

    ServerProcess(int n) throws IOException {
        process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel="
                        + System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"),
                "-cp", System.getProperty("java.class.path"), ScaleServer.class.getName(),
                Integer.toString(n)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
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
        }, "scale-server-output");
        reader.setDaemon(true);
        reader.start();
        try {
            String[] listening = expect("listening");
            for (int i = 1; i < listening.length; i++) {
                int colon = listening[i].lastIndexOf(':');
                listeners.add(new InetSocketAddress(InetAddress.getByName(listening[i].substring(0, colon)),
                        Integer.parseInt(listening[i].substring(colon + 1))));
            }
            buffer = RemoteBuffer.decode(HexFormat.of().parseHex(expect("region")[1]));
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Connections the server accepted (established) so far, and those of them open now. */
    long[] state() {
        String[] a = ask("state");
        return new long[] {Long.parseLong(a[1]), Long.parseLong(a[2])};
    }

    /** Heap after a full GC, direct and resident bytes of the server process. */
    long[] memory() {
        String[] m = ask("memory");
        return new long[] {Long.parseLong(m[1]), Long.parseLong(m[2]), Long.parseLong(m[3])};
    }

    private String[] ask(String command) {
        commands.println(command);
        return expect(command);
    }

    /** The server's next line, which must start with {@code word}. */
    private String[] expect(String word) {
        String line;
        try {
            line = answers.poll(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for the server process", e);
        }
        if (line == null || line.equals(ENDED)) {
            throw new IllegalStateException(line == null ? "the server process did not answer '" + word
                    + "' within 60 s" : "the server process ended before it answered '" + word + "'");
        }
        String[] fields = line.split(" ");
        if (!fields[0].equals(word)) {
            throw new IllegalStateException("the server process answered '" + word + "' with: " + line);
        }
        return fields;
    }

    @Override
    public void close() {
        commands.println("quit");
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
