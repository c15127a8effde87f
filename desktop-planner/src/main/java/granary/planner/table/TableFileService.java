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
 * then moved over it, so a failed save leaves the old file whole.
 */
public final class TableFileService {

    /** @throws UncheckedIOException saying which file and why */
    public byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new UncheckedIOException("cannot open " + file + ": no such file", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open " + file + ": " + e, e);
        }
    }

    /** @throws UncheckedIOException saying which file and why */
    public void write(Path file, byte[] bytes) {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = null;
        try {
            tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
            Files.write(tmp, bytes);
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot save " + file + ": " + e, e);
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
}
