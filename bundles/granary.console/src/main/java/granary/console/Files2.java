package granary.console;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import granary.codec.CodecException;
import granary.codec.json.JsonLimits;
import granary.codec.json.JsonReader;

/** Reads a file with a codec; a missing or unreadable file, or a bad document, is an error naming it. */
final class Files2 {

    interface Codec<T> {
        T read(Reader in, String source);
    }

    private Files2() {
    }

    static <T> T read(String file, Codec<T> codec) {
        Path path = Path.of(file);
        try {
            if (Files.size(path) > JsonLimits.DEFAULT.maxBytes()) {
                throw new IllegalArgumentException(path + ": is larger than the limit of "
                        + JsonLimits.DEFAULT.maxBytes() + " bytes");
            }
            // checked as bytes, so that a file that is not UTF-8 is reported with the byte's offset
            String text = JsonReader.utf8(Files.readAllBytes(path), path.toString());
            return codec.read(new StringReader(text), path.toString());
        } catch (CodecException e) {
            // every problem on its own line, so that an operator sees all of them at once
            throw new IllegalArgumentException(e.describe(), e);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("no such file " + path.toAbsolutePath());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + path.toAbsolutePath() + " (" + e.getClass().getSimpleName() + ")");
        }
    }
}
