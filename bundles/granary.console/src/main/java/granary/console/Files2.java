package granary.console;

import granary.codec.CodecException;
import granary.codec.DocumentFile;

/** Reads a file with a codec; a missing or unreadable file, or a bad document, is an error naming it. */
final class Files2 {

    private Files2() {
    }

    static <T> T read(String file, DocumentFile.Codec<T> codec) {
        try {
            return DocumentFile.read(file, codec);
        } catch (CodecException e) {
            // every problem on its own line, so that an operator sees all of them at once
            throw new Refusal(e.describe(), e);
        } catch (RuntimeException e) {
            throw Refusal.of(e);   // a missing or unreadable file: its words, no class name
        }
    }
}
