// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.support;

import dev.uncleanrecovery.UserInputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The files one run reads and the ones it will write, checked together before it writes anything or asks the cluster
 * anything: every file it creates is new ({@link DurableFiles#whyNotNew}: nothing there, not even a symbolic link, in
 * a directory that exists), none is a file the run reads (compared as files, so a link or another spelling of the
 * path is the same file), and no two of them are one. Each refusal is one line naming the option and the path, exit
 * 2; nothing has been written. {@link DurableFiles} refuses the same again as it creates each file, for a name taken
 * in between.
 */
public final class RunFiles {

    private enum Kind {
        /** A file the run reads. */
        READ,
        /** A new file. */
        NEW,
        /** The first free name from there on ({@link DurableFiles#writeUnderFreeName}): an earlier record stays. */
        FIRST_FREE,
        /** A log the run appends to. */
        APPENDED,
        /** A directory the run creates where it is missing, and new files in it. */
        DIRECTORY
    }

    private record Named(String option, Path path, Kind kind, List<String> names) {
        String says() {
            return option + " " + path;
        }
    }

    private final List<Named> files = new ArrayList<>();

    /** @param file null when the option was not given */
    public RunFiles reads(String option, Path file) {
        return add(option, file, Kind.READ, List.of());
    }

    /** @param files null when the option was not given */
    public RunFiles reads(String option, Collection<Path> files) {
        if (files != null) {
            files.forEach(f -> reads(option, f));
        }
        return this;
    }

    /** A file the run creates new ({@link DurableFiles#writeNew}); null when the option was not given. */
    public RunFiles creates(String option, Path file) {
        return add(option, file, Kind.NEW, List.of());
    }

    /**
     * A record the run writes under the first free name from {@code file} on (a result file): an existing one there
     * is kept, and the next name taken; a directory there or a file the run reads is refused.
     */
    public RunFiles createsFirstFree(String option, Path file) {
        return add(option, file, Kind.FIRST_FREE, List.of());
    }

    /** A log the run appends to (the audit log): never a file the run reads or writes otherwise. */
    public RunFiles appendsTo(String option, Path file) {
        return add(option, file, Kind.APPENDED, List.of());
    }

    /**
     * A directory the run creates (with its missing parents) where it is missing, and the files {@code names} in it,
     * each new.
     */
    public RunFiles createsIn(String option, Path directory, List<String> names) {
        return add(option, directory, Kind.DIRECTORY, List.copyOf(names));
    }

    private RunFiles add(String option, Path path, Kind kind, List<String> names) {
        if (path != null) {
            files.add(new Named(option, path, kind, names));
        }
        return this;
    }

    /**
     * @throws UserInputException at the first file that cannot be written as the run would write it: what is there,
     *                            and what to do
     */
    public void check() {
        List<Named> read = files.stream().filter(f -> f.kind() == Kind.READ).toList();
        Map<Path, Named> written = new HashMap<>();
        for (Named f : files) {
            switch (f.kind()) {
                case READ -> { }
                case NEW -> {
                    refuseInput(f, read);
                    DurableFiles.whyNotNew(f.path()).ifPresent(why -> refuse(f.says() + " " + why));
                    refuseTwice(f, f.path(), written);
                }
                case FIRST_FREE -> {
                    refuseInput(f, read);
                    if (Files.isDirectory(f.path(), LinkOption.NOFOLLOW_LINKS)) {
                        refuse(f.says() + " is a directory: name a file, not a directory");
                    }
                    refuseMissingDirectory(f);
                    refuseTwice(f, f.path(), written);
                }
                case APPENDED -> {
                    refuseInput(f, read);
                    refuseTwice(f, f.path(), written);
                }
                case DIRECTORY -> {
                    refuseInput(f, read);
                    directory(f, written);
                }
            }
        }
    }

    private static void directory(Named f, Map<Path, Named> written) {
        Path existing = f.path().toAbsolutePath();
        while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        if (existing != null && !Files.isDirectory(existing)) {
            refuse(f.says() + (existing.equals(f.path().toAbsolutePath()) ? "" : ": " + existing) + " is "
                    + describe(existing) + ", not a directory: name a directory");
        }
        refuseTwice(f, f.path(), written);
        for (String name : f.names()) {
            Path file = f.path().resolve(name);
            if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                refuse(f.says() + " holds " + name + " already; the tool never writes over a file: name a new or empty"
                        + " directory");
            }
            refuseTwice(f, file, written);
        }
    }

    /** An output that is a file the run reads: the plan it would replace, say, while reading it. */
    private static void refuseInput(Named output, List<Named> read) {
        for (Named input : read) {
            if (sameFile(output.path(), input.path())) {
                refuse(output.says() + " is the file this run reads as " + input.option() + "; the tool never writes"
                        + " over a file: name " + (output.kind() == Kind.NEW ? "a new file"
                        : output.kind() == Kind.DIRECTORY ? "another directory" : "another file"));
            }
        }
    }

    /** Two outputs of the run that are one: the second would be refused after the first was written. */
    private static void refuseTwice(Named output, Path path, Map<Path, Named> written) {
        Named earlier = written.putIfAbsent(identity(path), output);
        if (earlier != null) {
            refuse(output.says() + " is also where " + earlier.says() + " goes: name a different file for each");
        }
    }

    private static void refuseMissingDirectory(Named output) {
        DurableFiles.whyNoFileIn(output.path().toAbsolutePath().getParent())
                .ifPresent(why -> refuse(output.says() + " " + why));
    }

    private static boolean sameFile(Path a, Path b) {
        try {
            return Files.exists(a) && Files.exists(b) && Files.isSameFile(a, b);
        } catch (IOException e) {
            return false;
        }
    }

    /** The path as the file system resolves its directory: another spelling of one name is the same name. */
    private static Path identity(Path path) {
        Path absolute = path.toAbsolutePath().normalize();
        Path parent = absolute.getParent();
        try {
            return parent == null ? absolute : parent.toRealPath().resolve(absolute.getFileName());
        } catch (IOException e) {
            return absolute;
        }
    }

    private static String describe(Path path) {
        try {
            return BoundedFiles.describeType(path);
        } catch (IOException e) {
            return "not a directory";
        }
    }

    private static void refuse(String line) {
        throw new UserInputException(line);
    }
}
