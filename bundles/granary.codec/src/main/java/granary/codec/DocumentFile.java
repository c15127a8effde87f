package granary.codec;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads a document file an operator names (a job file, a quota table, a queue tree) with its codec:
 * what the console's commands and the policies' commands share, so that a missing file is reported
 * the same way everywhere.
 */
public final class DocumentFile {

    /** A codec's read method: {@code QueueTreeCodec::read}. */
    @FunctionalInterface
    public interface Codec<T> {
        T read(Reader in, String source);
    }

    private DocumentFile() {
    }

    /**
     * The document in {@code file}.
     *
     * @throws CodecException           the codec's problems with the document, unchanged (one per problem)
     * @throws IllegalArgumentException {@code no such file <absolute path>} or {@code cannot read <absolute path>: <why>}
     */
    public static <T> T read(String file, Codec<T> codec) {
        Path path = Path.of(file.trim());
        try (Reader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            return codec.read(in, path.toString());
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("no such file " + path.toAbsolutePath());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + path.toAbsolutePath() + ": " + e.getMessage());
        }
    }
}
