package granary.planner.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import granary.policy.quota.api.TimeSlice;

/** Files keep their permissions; WorkerSpans are saved beside the table and read back; a moved slice's entry (issue 26, files). */
class TableFilesTest {

    @TempDir
    Path dir;

    private TableEditorViewModel article() {
        TableEditorViewModel vm = new TableEditorViewModel();
        vm.load(new String(TableEditorViewModelTest.resource("article.json"), StandardCharsets.UTF_8), TableEditorViewModelTest.SPANS, "article.json");
        return vm;
    }

    @Test
    void aSaveKeepsTheFilesPermissionsAndANewFileIsReadableByAll() throws Exception {
        Path file = dir.resolve("table.json");
        Files.write(file, TableEditorViewModelTest.resource("article.json"));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-r--"));
        TableEditorViewModel vm = article();
        vm.open(file);
        assertTrue(vm.setQuota(TimeSlice.DEFAULT, "group1", 3000, 6000));
        vm.save(file);
        assertEquals("rw-rw-r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)), "not 0600");

        Path fresh = dir.resolve("new.json");
        vm.save(fresh);
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(fresh)));
    }

    @Test
    void workerSpansAreSavedBesideTheTableAndOpenedWithIt() throws Exception {
        TableEditorViewModel vm = article();
        Path file = dir.resolve("plan.json");
        vm.save(file);
        Path side = dir.resolve("plan.workerspans");
        assertEquals(side, TableEditorViewModel.spansFile(file));
        assertEquals(TableEditorViewModelTest.SPANS + "\n", Files.readString(side));

        TableEditorViewModel other = new TableEditorViewModel();
        assertNull(other.workerSpansText());
        other.open(file);
        assertEquals(TableEditorViewModelTest.SPANS, other.workerSpansText(), "read back from plan.workerspans");
        assertNull(other.messageProperty().get());
        assertNotNull(other.validTableProperty().get());

        // no WorkerSpans: the side file goes, and opening keeps what is drawn against
        assertTrue(other.setWorkerSpans(""));
        other.save(file);
        assertFalse(Files.exists(side));

        Files.writeString(side, "default:lots\n");
        TableEditorViewModel third = article();
        third.open(file);
        assertEquals(TableEditorViewModelTest.SPANS, third.workerSpansText(), "a side file that does not read changes nothing");
        assertTrue(third.messageProperty().get().startsWith("the WorkerSpans beside the table (plan.workerspans) do not read"),
                third.messageProperty().get());
    }

    @Test
    void aSliceMovedOffItsWorkerSpansEntrySaysWhatToFixAndMovesItOnRequest() {
        TableEditorViewModel vm = article();
        TimeSlice night = TimeSlice.parse("0-9");
        TimeSlice grown = vm.resizeSlice(night, 0, 1);
        TimeSlice more = vm.resizeSlice(grown, 0, 1);
        assertEquals(TimeSlice.parse("0-11"), more);
        TableEditorViewModel.SpansFix fix = vm.spansFixProperty().get();
        assertNotNull(fix);
        assertEquals(new TableEditorViewModel.SpansFix(night, more, 15000), fix, "from the entry's own slice, through every step");
        assertEquals("The WorkerSpans entry 0-9:15000 is for hours slice 0-11 no longer has: 0-11 falls back to the default entry. "
                + "Move the entry to 0-11?", fix.text());
        assertFalse(vm.validProperty().get(), vm.problems().toString());

        assertTrue(vm.moveSpans());
        assertEquals("default:5000,0-11:15000", vm.workerSpansText());
        assertNull(vm.spansFixProperty().get());
        assertTrue(vm.validProperty().get(), vm.problems().toString());
        vm.undo();
        assertEquals(TableEditorViewModelTest.SPANS, vm.workerSpansText());

        // resized back onto its entry: nothing to fix
        vm.resizeSlice(more, 0, -2);
        assertNull(vm.spansFixProperty().get());
    }
}
