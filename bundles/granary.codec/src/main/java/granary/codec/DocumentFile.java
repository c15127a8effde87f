package granary.codec;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import granary.codec.json.JsonLimits;
import granary.codec.json.JsonReader;

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
     * @throws CodecException           also for a file that is not UTF-8 (with the byte's offset)
     * @throws IllegalArgumentException {@code no such file <absolute path>}, {@code cannot read <absolute path> (<why>)},
     *                                  or a file larger than {@link JsonLimits#DEFAULT}'s limit
     */
    public static <T> T read(String file, Codec<T> codec) {
        Path path = Path.of(file.trim());
        try {
            if (Files.size(path) > JsonLimits.DEFAULT.maxBytes()) {
                throw new IllegalArgumentException(path + ": is larger than the limit of "
                        + JsonLimits.DEFAULT.maxBytes() + " bytes");
            }
            // checked as bytes, so that a file that is not UTF-8 is reported with the byte's offset
            String text = JsonReader.utf8(Files.readAllBytes(path), path.toString());
            return codec.read(new StringReader(text), path.toString());
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("no such file " + path.toAbsolutePath());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + path.toAbsolutePath() + " (" + e.getClass().getSimpleName() + ")");
        }
    }
}
