package granary.policy.queues;

import java.nio.file.Files;
import java.nio.file.Path;

import granary.api.model.InvalidRequestException;
import granary.policy.queues.api.QueueTree;
import granary.policy.queues.api.QueueTreeCodec;

/** Reads the queue tree file (the format of {@link QueueTreeCodec}). */
final class QueueFile {

    private QueueFile() {
    }

    /**
     * The tree in {@code file}, or null for an empty setting (no tree).
     *
     * @throws InvalidRequestException if the file cannot be read, or (a
     *         {@link granary.codec.CodecException}) listing every problem in it with the file and the
     *         JSON path or queue path
     */
    static QueueTree read(String file) {
        if (file == null || file.isBlank()) {
            return null;
        }
        Path path = Path.of(file.trim());
        if (!Files.isRegularFile(path)) {
            throw new InvalidRequestException("queue file " + path, "file", "cannot be read: no such file (looked for "
                    + path.toAbsolutePath() + ")");
        }
        return QueueTreeCodec.read(path);
    }
}
