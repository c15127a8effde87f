package granary.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.UnitId;
import granary.protocol.Hint;
import granary.protocol.Request;
import granary.protocol.disk.FileDisk;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Case 15 of docs/recovery.md for a real job master: what its hints gave it is kept on disk (a
 * sealed file, never half-loaded), and a job master started again tells a restarted master where
 * its units hold slots in its first full request.
 */
@Timeout(30)
class HintFileTest {

    private static final UnitId MAP = new UnitId("wc", "map");

    @TempDir
    Path dir;

    @Test
    void theHintsComeBackAsTheyWereWrittenAndATornFileIsMovedAsideNotLoaded() throws Exception {
        HintFile f = new HintFile(new FileDisk(dir));
        List<Holdings.Entry> held = List.of(new Holdings.Entry(MAP, "n1", 2, "http://127.0.0.1:7071", 5),
                new Holdings.Entry(MAP, "n2", 1, "http://127.0.0.1:7072", 9));
        List<String> problems = new ArrayList<>();
        f.store(held, problems::add);
        assertEquals(List.of(), problems);

        HintFile.Loaded l = new HintFile(new FileDisk(dir)).load(1_000);
        assertEquals(held, l.held());
        assertNull(l.damage());

        Path file = dir.resolve(HintFile.NAME);
        byte[] b = Files.readAllBytes(file);
        Files.write(file, java.util.Arrays.copyOf(b, b.length - 3)); // torn: the last bytes never reached the disk
        HintFile.Loaded torn = new HintFile(new FileDisk(dir)).load(2_000);
        assertEquals(List.of(), torn.held(), "nothing of a torn file is loaded");
        assertNotNull(torn.damage());
        assertTrue(torn.movedTo().endsWith(HintFile.NAME + ".corrupt-2000"), torn.movedTo());
        assertTrue(Files.exists(dir.resolve(HintFile.NAME + ".corrupt-2000")));
    }

    @Test
    void aJobMasterStartedAgainReportsTheHoldingsItsHintsGaveItInItsFirstFullRequest() throws Exception {
        try (FakeMaster master = new FakeMaster()) {
            JobMasterClient.Options withHints = JobMasterClientTest.FAST.withHints(new FileDisk(dir));
            JobMasterClientTest.Recorder heard = new JobMasterClientTest.Recorder();
            JobMasterClient first = JobMasterClient.connect(List.of(master.url()), "jm1", FakeMaster.token("jm1"), 5,
                    withHints, heard, List.of(JobMasterClientTest.WC));
            master.hint(new Hint(List.of(new Hint.Placement(MAP, "n1", 2, "http://127.0.0.1:7071", 3)), List.of()));
            assertEquals("placement wc/map n1 0->2", heard.next());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (new HintFile(new FileDisk(dir)).load(0).held().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20); // written on the client's loop after the hint: wait for it, bounded
            }
            first.close();

            master.restart(true); // a master that starts empty
            JobMasterClient second = JobMasterClient.connect(List.of(master.url()), "jm1", FakeMaster.token("jm1"), 6,
                    withHints, new JobMasterClientTest.Recorder(), List.of(JobMasterClientTest.WC));
            try {
                List<Request> got = master.requests();
                Request full = got.get(got.size() - 1);
                assertTrue(full.full());
                assertEquals(List.of(new Request.Holding(MAP, "n1", 2)), full.holdings(),
                        "the restarted job master says where its units held slots");
                assertEquals(2, second.slots(MAP, "n1"), "and holds them until the master says otherwise");
            } finally {
                second.close();
            }
        }
    }
}
