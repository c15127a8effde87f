package granary.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.UnitId;
import granary.protocol.Cap;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointTest {

    @TempDir
    Path dir;

    private static final Checkpoint.State STATE = new Checkpoint.State("n1", 1_700_000_000_000L, List.of(
            new Cap.Grant("jm1", UnitId.parse("wordcount/map"), 3, "a".repeat(64)),
            new Cap.Grant("jm2", UnitId.parse("etl/load"), 1, "b".repeat(64)),
            // a restart slot's cap keeps its launch (docs/recovery.md, "Restarting a lost job master")
            new Cap.Grant("granary.master", UnitId.parse("granary.restart-1@jm3/job-master"), 1, "c".repeat(64),
                    granary.api.model.Resources.of(100, 256), true,
                    new granary.protocol.Program(List.of("java", "-jar", "jm.jar"), java.util.Map.of("A", "b"), "/srv"))));

    @Test
    void roundTrip() throws Exception {
        Checkpoint c = new Checkpoint(new granary.protocol.disk.FileDisk(dir), "caps.checkpoint");
        assertNull(c.read(), "no file: no state");
        c.write(STATE);
        assertEquals(STATE, c.read());
        c.write(new Checkpoint.State("n1", 5, List.of()));
        assertEquals(List.of(), c.read().caps());
        assertFalse(Files.exists(dir.resolve("caps.checkpoint.tmp")), "the temporary file is renamed away");
    }

    @Test
    void truncatedFileIsTorn() throws Exception {
        Checkpoint c = written();
        byte[] all = Files.readAllBytes(Path.of(c.file()));
        Files.write(Path.of(c.file()), Arrays.copyOf(all, all.length - 10));
        CheckpointException ex = assertThrows(CheckpointException.class, c::read);
        assertTrue(ex.getMessage().startsWith(c.file()), ex.getMessage());
        assertTrue(ex.problem().contains("torn") && ex.problem().contains("bytes"), ex.problem());
    }

    @Test
    void flippedByteFailsTheChecksum() throws Exception {
        Checkpoint c = written();
        byte[] all = Files.readAllBytes(Path.of(c.file()));
        all[all.length - 5] ^= 0x01;
        Files.write(Path.of(c.file()), all);
        CheckpointException ex = assertThrows(CheckpointException.class, c::read);
        assertTrue(ex.problem().contains("checksum mismatch"), ex.problem());
    }

    @Test
    void badChecksumInTheHeader() throws Exception {
        Checkpoint c = written();
        String text = Files.readString(Path.of(c.file()));
        Files.writeString(Path.of(c.file()), text.replaceFirst("sha256=[0-9a-f]+", "sha256=" + "0".repeat(64)));
        assertTrue(assertThrows(CheckpointException.class, c::read).problem().contains("checksum mismatch"));
    }

    @Test
    void garbageHasNoHeader() throws Exception {
        Checkpoint c = new Checkpoint(new granary.protocol.disk.FileDisk(dir), "caps.checkpoint");
        Files.write(Path.of(c.file()), new byte[] {0, 1, 2, (byte) 0xff, 'x'});
        assertTrue(assertThrows(CheckpointException.class, c::read).problem().contains("no header line"));
        Files.writeString(Path.of(c.file()), "hello world\n{}");
        assertTrue(assertThrows(CheckpointException.class, c::read).problem().contains("header"));
    }

    @Test
    void otherFormatIsNamed() throws Exception {
        Checkpoint c = written();
        Files.writeString(Path.of(c.file()), Files.readString(Path.of(c.file())).replace("format=1", "format=9"));
        assertTrue(assertThrows(CheckpointException.class, c::read).problem().contains("format=9 is not supported"));
    }

    @Test
    void badJsonWithAMatchingChecksumIsRefusedWhole() throws Exception {
        Checkpoint c = new Checkpoint(new granary.protocol.disk.FileDisk(dir), "caps.checkpoint");
        // the first grant is fine, the second has a negative count: nothing may be loaded
        byte[] body = ("{\"node\":\"n1\",\"incarnation\":1,\"caps\":[{\"jobMaster\":\"jm1\",\"unit\":\"j/u\",\"slots\":2,"
                + "\"key\":\"k\"},{\"jobMaster\":\"jm1\",\"unit\":\"j/v\",\"slots\":-2,\"key\":\"k\"}]}")
                .getBytes(StandardCharsets.UTF_8);
        writeRaw(Path.of(c.file()), body);
        CheckpointException ex = assertThrows(CheckpointException.class, c::read);
        assertTrue(ex.problem().contains("slots") && ex.problem().contains("-2"), ex.problem());
        writeRaw(Path.of(c.file()), "{\"node\":\"n1\",\"incarnation\":1,\"caps\":[".getBytes(StandardCharsets.UTF_8));
        assertTrue(assertThrows(CheckpointException.class, c::read).problem().contains("not a valid checkpoint"));
    }

    @Test
    void recoverMovesACorruptFileAsideAndLoadsNothing() throws Exception {
        Checkpoint c = written();
        byte[] all = Files.readAllBytes(Path.of(c.file()));
        Files.write(Path.of(c.file()), Arrays.copyOf(all, all.length / 2));
        Checkpoint.Recovery r = c.recover(42);
        assertNull(r.state(), "nothing half-loaded");
        assertNotNull(r.corrupt());
        assertEquals(dir.resolve("caps.checkpoint.corrupt-42").toString(), r.movedTo());
        assertTrue(Files.exists(Path.of(r.movedTo())));
        assertFalse(Files.exists(Path.of(c.file())));
        assertNull(c.recover(43).state(), "after moving aside: no checkpoint");
        c.write(STATE);
        assertEquals(STATE, c.recover(44).state());
    }

    private Checkpoint written() throws IOException {
        Checkpoint c = new Checkpoint(new granary.protocol.disk.FileDisk(dir), "caps.checkpoint");
        c.write(STATE);
        return c;
    }

    private static void writeRaw(Path file, byte[] body) throws Exception {
        String header = Checkpoint.MAGIC + " format=1 bytes=" + body.length + " sha256=" + java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(body)) + "\n";
        byte[] all = new byte[header.length() + body.length];
        System.arraycopy(header.getBytes(StandardCharsets.UTF_8), 0, all, 0, header.length());
        System.arraycopy(body, 0, all, header.length(), body.length);
        Files.write(file, all);
    }
}
