package granary.protocol.disk;

import java.io.IOException;
import java.util.List;

/**
 * Where a peer keeps what must survive its restart (an agent's caps and run records, a job
 * master's hints): files of one directory in a process ({@link FileDisk}), a simulated disk in the
 * conformance kit that tears, truncates, flips bits, loses and refuses writes (docs/recovery.md).
 * Names are plain file names, no separators.
 */
public interface Disk {

    /** The bytes of {@code name}, or null if there is no such file. */
    byte[] read(String name) throws IOException;

    /**
     * Replaces {@code name} with {@code data} whole or not at all: a temporary file, forced to disk,
     * renamed over the old one, the directory forced ({@code durable}) — or, not durable, only renamed
     * (a machine crash may lose it, a process crash may not).
     */
    void replace(String name, byte[] data, boolean durable) throws IOException;

    /** Renames {@code from} to {@code to}, replacing it. */
    void move(String from, String to) throws IOException;

    /** Removes {@code name} if it exists. */
    void delete(String name) throws IOException;

    /** The names of the files whose name ends with {@code suffix}, sorted. */
    List<String> list(String suffix) throws IOException;

    /** Where {@code name} is, for messages (a path). */
    String where(String name);
}
