package dev.rdmafutures;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The repository's Markdown stands alone: every relative link or image in every {@code *.md} file points at a file
 * or directory that exists inside the repository, and no page refers to material kept outside it (the workspace's
 * shared folder beside the repository, or its docs folder: {@link #FORBIDDEN_MENTIONS}). Web links ({@code http:}, {@code https:}, {@code mailto:}) and pure {@code #anchor} links
 * are not checked; a target's {@code #fragment} and {@code "title"} are stripped before it is resolved against the
 * Markdown file's directory. Links inside code (fenced blocks, backtick spans) are not links and are not checked.
 */
class DocumentationLinksTest {
    private static final Set<String> SKIPPED_DIRECTORIES = Set.of("target", ".git", "node_modules");
    /** The folder beside the repository that the project was started from; named once, so no page may point at it. */
    private static final String OUTSIDE_FOLDER = "shared";
    /** Ways a page could point at that folder: up out of the repository into it, or into its docs. */
    private static final List<String> FORBIDDEN_MENTIONS = List.of(".." + "/" + OUTSIDE_FOLDER,
            OUTSIDE_FOLDER + "/docs/");

    /** {@code [text](target "title")} and {@code ![alt](target)}; the text may hold one level of brackets. */
    private static final Pattern INLINE_LINK = Pattern.compile(
            "!?\\[(?:[^\\[\\]]|\\[[^\\[\\]]*\\])*\\]"
                    + "\\(\\s*(<[^>\\n]*>|[^\\s()]*(?:\\([^\\s()]*\\)[^\\s()]*)*)"
                    + "(?:\\s+(?:\"[^\"]*\"|'[^']*'|\\([^)]*\\)))?\\s*\\)");
    /** {@code [label]: target "title"} at the start of a line. */
    private static final Pattern REFERENCE_DEFINITION = Pattern.compile(
            "(?m)^ {0,3}\\[[^\\]\\n]+\\]:[ \\t]*(<[^>\\n]*>|\\S+)");
    /** A fence opening or closing a code block: three or more backticks or tildes, indented at most 3 spaces. */
    private static final Pattern FENCE = Pattern.compile("^ {0,3}(`{3,}|~{3,})");
    /** A backtick code span, which may continue on the next line but not across a blank line. */
    private static final Pattern CODE_SPAN = Pattern.compile("(?s)(`+)((?:(?!\\n[ \\t]*\\n).)+?)(?<!`)\\1(?!`)");
    private static final Pattern WEB = Pattern.compile("(?i)^(https?|mailto):.*");

    private static Path root;
    private static final TreeMap<Path, String> MARKDOWN = new TreeMap<>();

    @BeforeAll
    static void readEveryMarkdownFile() throws IOException {
        Path module = Path.of("").toAbsolutePath().normalize();
        root = module.getParent();
        assertThat(root).as("the framework module's parent directory").isNotNull();
        assertThat(module.resolve("../pom.xml")).as("the repository's root pom, from " + module).isRegularFile();
        assertThat(module.resolve("../README.md")).as("the repository's README, from " + module).isRegularFile();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                Path name = dir.getFileName();
                return !dir.equals(root) && name != null && SKIPPED_DIRECTORIES.contains(name.toString())
                        ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (attrs.isRegularFile() && file.getFileName().toString().endsWith(".md")) {
                    MARKDOWN.put(file, new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
                }
                return FileVisitResult.CONTINUE;
            }
        });
        assertThat(MARKDOWN).as("Markdown files under " + root).containsKey(root.resolve("README.md"));
    }

    @Test
    void everyRelativeLinkPointsAtAFileOrDirectoryThatExists() {
        List<String> dead = new ArrayList<>();
        MARKDOWN.forEach((file, text) -> {
            for (String target : relativeTargets(text)) {
                Path resolved = resolve(file, target);
                if (resolved == null || !Files.exists(resolved)) {
                    dead.add(root.relativize(file) + ": " + target);
                }
            }
        });
        assertThat(dead).as("links to nothing (file: target), in %d Markdown files", MARKDOWN.size()).isEmpty();
    }

    @Test
    void noLinkLeavesTheRepository() {
        List<String> outside = new ArrayList<>();
        MARKDOWN.forEach((file, text) -> {
            for (String target : relativeTargets(text)) {
                Path resolved = resolve(file, target);
                if (resolved != null && !resolved.startsWith(root)) {
                    outside.add(root.relativize(file) + ": " + target);
                }
            }
        });
        assertThat(outside).as("links outside the repository root %s (file: target)", root).isEmpty();
    }

    @Test
    void noPageMentionsMaterialOutsideTheProject() {
        List<String> mentions = new ArrayList<>();
        MARKDOWN.forEach((file, text) -> {
            for (String forbidden : FORBIDDEN_MENTIONS) {
                int at = text.indexOf(forbidden);
                while (at >= 0) {
                    int line = 1 + (int) text.substring(0, at).chars().filter(c -> c == '\n').count();
                    mentions.add(root.relativize(file) + ": " + forbidden + " (line " + line + ")");
                    at = text.indexOf(forbidden, at + 1);
                }
            }
        });
        assertThat(mentions).as("mentions of material kept outside the repository (file: text)").isEmpty();
    }

    @Test
    void extractsLinksAndImagesButNotCodeWebLinksOrAnchors() {
        String text = String.join("\n",
                "See [the guide](docs/guide.md#setup \"Setting up\") and ![plot](plots/a.png).",
                "A [`Type`](src/Type.java), a [web page](https://example.org/x.md), [mail](mailto:a@b.c),",
                "an [anchor](#below), a [[nested] one](nested.md), an [angle](<with space.md>),",
                "`code [not](a-link.md)` and a span that `goes on",
                "across [no](link-either.md)` a line.",
                "```",
                "[fenced](not-a-link.md)",
                "```",
                "[ref]: ref/target.md \"title\"",
                "[encoded](my%20file.md) [paren](a_(b).md)");
        assertThat(relativeTargets(text)).containsExactly("docs/guide.md", "plots/a.png", "src/Type.java",
                "nested.md", "with space.md", "my file.md", "a_(b).md", "ref/target.md");
    }

    /** The relative targets of the links and images in {@code text}, fragment and title stripped, decoded. */
    static List<String> relativeTargets(String text) {
        String prose = withoutCode(text);
        List<String> targets = new ArrayList<>();
        for (Pattern pattern : List.of(INLINE_LINK, REFERENCE_DEFINITION)) {
            Matcher m = pattern.matcher(prose);
            while (m.find()) {
                String target = m.group(1).trim();
                if (target.startsWith("<") && target.endsWith(">")) {
                    target = target.substring(1, target.length() - 1).trim();
                }
                int fragment = target.indexOf('#');
                if (fragment >= 0) {
                    target = target.substring(0, fragment);
                }
                if (target.isEmpty() || WEB.matcher(target).matches()) {
                    continue;
                }
                targets.add(decode(target));
            }
        }
        return targets;
    }

    /** {@code text} with fenced code blocks and code spans blanked (same length, so nothing else moves). */
    private static String withoutCode(String text) {
        StringBuilder out = new StringBuilder(text.length());
        String fence = null;
        for (String line : text.split("\n", -1)) {
            Matcher m = FENCE.matcher(line);
            if (fence == null && m.find()) {
                fence = m.group(1);
                out.append('\n');
            } else if (fence != null) {
                Matcher close = FENCE.matcher(line);
                if (close.find() && close.group(1).charAt(0) == fence.charAt(0)
                        && close.group(1).length() >= fence.length() && line.trim().equals(close.group(1))) {
                    fence = null;
                }
                out.append('\n');
            } else {
                out.append(line).append('\n');
            }
        }
        Matcher span = CODE_SPAN.matcher(out);
        StringBuilder blanked = new StringBuilder(out.length());
        while (span.find()) {
            span.appendReplacement(blanked, Matcher.quoteReplacement(span.group().replaceAll("[^\\n]", " ")));
        }
        span.appendTail(blanked);
        return blanked.toString();
    }

    private static String decode(String target) {
        if (!target.contains("%")) {
            return target;
        }
        try {
            return URLDecoder.decode(target.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return target;
        }
    }

    /** {@code target} resolved against {@code file}'s directory, or null when it is no valid path at all. */
    private static Path resolve(Path file, String target) {
        try {
            return file.getParent().resolve(target).normalize();
        } catch (InvalidPathException e) {
            return null;
        }
    }
}
