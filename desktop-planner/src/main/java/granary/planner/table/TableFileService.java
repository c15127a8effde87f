package granary.planner.table;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Reads and writes quota table files as bytes (the editor keeps a file's bytes so that one saved
 * without edits is written back unchanged). A save goes to a file beside the target first and is
 * then moved over it, so a failed save leaves the old file whole. A file saved over keeps its
 * permissions (its owner's choice: a table readable by a group stays so); a new file is readable by
 * all and writable by its owner ({@code rw-r--r--}), as an editor would make it.
 */
public final class TableFileService {

    /** @throws UncheckedIOException saying which file and why */
    public byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new UncheckedIOException("cannot open " + file + ": no such file", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open " + file + ": " + why(e), e);
        }
    }

    /** @throws UncheckedIOException saying which file and why */
    public void write(Path file, byte[] bytes) {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = null;
        try {
            tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
            Files.write(tmp, bytes);
            keepPermissions(file, tmp);
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot save " + file + ": " + why(e), e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // the temporary file is only left behind; the save itself has succeeded or been reported
                }
            }
        }
    }

    /** Deletes a file if it is there (a side file that no longer has anything to hold). */
    public void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + file + ": " + why(e), e);
        }
    }

    private static void keepPermissions(Path file, Path tmp) throws IOException {
        if (!tmp.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            return;
        }
        java.util.Set<java.nio.file.attribute.PosixFilePermission> p = Files.exists(file)
                ? Files.getPosixFilePermissions(file)
                : java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--");
        Files.setPosixFilePermissions(tmp, p);
    }

    /** An I/O failure in words. */
    static String why(IOException e) {
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return "the folder does not exist";
        }
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getMessage() == null ? "it could not be read or written" : e.getMessage();
    }
}
