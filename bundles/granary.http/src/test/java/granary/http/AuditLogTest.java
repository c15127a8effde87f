package granary.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.ManualClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The audit log stays bounded: short lines, few lines from callers without a token, files rotated by size. */
class AuditLogTest {

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(1_700_000_000_000L);

    @Test
    void everyFieldIsCutAndSaysItsLength() throws Exception {
        Path file = dir.resolve("audit.log");
        try (AuditLog log = new AuditLog(file, 10, clock::millis)) {
            log.record("admin/ada", "127.0.0.1", "PUT", "/api/v1/jobs/" + "x".repeat(5_000), "q=" + "y".repeat(5_000), 400,
                    "z".repeat(70_000));
        }
        String line = Files.readAllLines(file).get(0);
        assertTrue(line.length() < 2_000, line.length() + " chars");
        assertTrue(line.contains("(70000 chars)") && line.contains("(5013 chars)"), line);
    }

    @Test
    void writesWithoutATokenAreRecordedShortAndAtMostTenASecond() throws Exception {
        Path file = dir.resolve("audit.log");
        try (AuditLog log = new AuditLog(file, 1000, clock::millis)) {
            for (int i = 0; i < 1_000; i++) {
                log.record(AuditLog.UNAUTHENTICATED, "10.0.0.9", "POST", "/api/v1/jobs", "a=" + "b".repeat(4_000), 401,
                        "A token is needed: " + "c".repeat(7_000));
            }
            clock.advance(1_000);
            log.record(AuditLog.UNAUTHENTICATED, "10.0.0.9", "POST", "/api/v1/jobs", null, 401, "A token is needed");
            log.record("operator/olga", "10.0.0.2", "POST", "/api/v1/jobs", null, 201, "job wc");
        }
        List<String> lines = Files.readAllLines(file);
        assertEquals(12, lines.size(), "ten in the first second, one in the next, and the operator's");
        assertTrue(lines.stream().allMatch(l -> l.length() < 400), lines.get(0));
        assertFalse(lines.get(0).contains("bbbb") || lines.get(0).contains("cccc"), lines.get(0));
        assertTrue(lines.get(10).contains("990 more such writes not recorded"), lines.get(10));
        assertTrue(lines.get(11).contains("operator/olga"), lines.get(11));
    }

    @Test
    void theFileIsRotatedPastItsSizeKeepingTheLastFew() throws Exception {
        Path file = dir.resolve("audit.log");
        try (AuditLog log = new AuditLog(file, 10, clock::millis, 1_000, 2)) {
            for (int i = 0; i < 100; i++) {
                log.record("admin/ada", "127.0.0.1", "PUT", "/api/v1/queues", null, 200, "entry " + i);
            }
        }
        assertTrue(Files.size(file) < 1_200, Files.size(file) + " bytes");
        assertTrue(Files.exists(dir.resolve("audit.log.1")) && Files.exists(dir.resolve("audit.log.2")));
        assertFalse(Files.exists(dir.resolve("audit.log.3")), "two rotated files kept");
        assertTrue(Files.readString(file).contains("entry 99"));
    }
}
