package granary.console;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import granary.codec.CodecException;

/** Reads a file with a codec; a missing or unreadable file, or a bad document, is an error naming it. */
final class Files2 {

    interface Codec<T> {
        T read(Reader in, String source);
    }

    private Files2() {
    }

    static <T> T read(String file, Codec<T> codec) {
        Path path = Path.of(file);
        try (Reader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            return codec.read(in, path.toString());
        } catch (CodecException e) {
            // every problem on its own line, so that an operator sees all of them at once
            throw new IllegalArgumentException(e.describe(), e);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("no such file " + path.toAbsolutePath());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + path.toAbsolutePath() + ": " + e.getMessage());
        }
    }
}
