package granary.policy.queues;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import granary.api.model.InvalidRequestException;
import granary.codec.CodecException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The policy's tree file: read whole, or activation fails with the file's own problems. */
class QueueFileTest {

    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    private static QueuesPolicy create(String file) {
        return (QueuesPolicy) QueuesProvider.DECLARATION.create(java.util.Map.of("file", file));
    }

    @Test
    void aGoodFileGivesTheTree() throws IOException {
        Path f = write("queues.json", "{\"fallback\": \"root.b\", \"queues\": {\"a\": {\"queues\": {\"p0\": {}}}, \"b\": {}}}");
        assertEquals(List.of("root.a.p0", "root.b"), QueueFile.read(f.toString()).leaves());
        QueuesPolicy c = create(f.toString());
        assertEquals("root.b", c.tree().fallback());
        assertEquals(QueuesPolicy.NAME, c.name());
    }

    @Test
    void anEmptySettingMeansNoTree() {
        assertNull(QueueFile.read(""));
        assertNull(QueueFile.read("  "));
        assertNull(create("").tree());
    }

    @Test
    void aBadFileFailsActivationWithTheFilesProblems() throws IOException {
        Path f = write("bad.json", "{\"queues\": {\"a\": {\"capacty\": \"10%\"}, \"b\": {\"capacity\": \"120%\"}}}");
        CodecException e = assertThrows(CodecException.class, () -> QueueFile.read(f.toString()));
        assertTrue(e.getMessage().contains(f + ":1:30: $.queues.a.capacty: unknown field"), e.getMessage());
        assertTrue(e.getMessage().contains("$.queues.b.capacity: must be between 0% and 100%, got 120.0%"), e.getMessage());
        // activation names the option that pointed at the file, then every problem of the file
        InvalidRequestException activation = assertThrows(InvalidRequestException.class, () -> create(f.toString()));
        assertEquals(e.problems().size(), activation.problems().size());
        e.problems().forEach(p -> assertTrue(activation.getMessage().contains("policy queues: file: " + p), activation.getMessage()));
    }

    @Test
    void anInvalidTreeFailsWithTheQueuePath() throws IOException {
        Path f = write("tree.json", "{\"fallback\": \"root.a\", \"queues\": {\"a\": {\"queues\": {\"x\": {}}}}}");
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> QueueFile.read(f.toString()));
        assertTrue(e.getMessage().contains("queue tree: fallback: 'root.a' is not a leaf queue; leaves: [root.a.x]"),
                e.getMessage());
    }

    @Test
    void aMissingFileFailsNamingIt() {
        String missing = dir.resolve("nope.json").toString();
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> create(missing));
        assertTrue(e.getMessage().startsWith("policy queues: file: queue file " + missing + ": file: cannot be read: "),
                e.getMessage());
    }
}
