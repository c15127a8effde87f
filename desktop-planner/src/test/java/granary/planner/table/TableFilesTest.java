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
    void aSlicesWorkerSpansEntryMovesWithItSaysSoAndGoesBackOnRequest() {
        TableEditorViewModel vm = article();
        TimeSlice night = TimeSlice.parse("0-9");
        TimeSlice grown = vm.resizeSlice(night, 0, 1);
        TimeSlice more = vm.resizeSlice(grown, 0, 1);
        assertEquals(TimeSlice.parse("0-11"), more);
        assertEquals("default:5000,0-11:15000", vm.workerSpansText(), "the entry follows its slice");
        assertTrue(vm.validProperty().get(), vm.problems().toString());
        TableEditorViewModel.SpansFix fix = vm.spansFixProperty().get();
        assertNotNull(fix);
        assertEquals(new TableEditorViewModel.SpansFix(night, more, 15000), fix, "from the entry's own hours, through every step");
        assertEquals("The WorkerSpans entry 0-9:15000 moved with its slice to 0-11 (now 0-11:15000). If the cluster has other "
                + "workers in those hours, edit the WorkerSpans; or put the entry back at 0-9 (0-11 then falls back to the default entry).",
                fix.text());
        assertTrue(vm.putSpansBack());
        assertEquals(TableEditorViewModelTest.SPANS, vm.workerSpansText());
        assertNull(vm.spansFixProperty().get());
        assertFalse(vm.validProperty().get(), "0-11 falls back to default's 5000 workers: " + vm.problems());
        vm.undo();
        assertEquals("default:5000,0-11:15000", vm.workerSpansText(), "putting back is one undoable step");
        vm.undo();
        assertEquals("default:5000,0-10:15000", vm.workerSpansText(), "each resize is one step with its entry");
        vm.redo();

        // resized back onto its old hours: the entry with it
        vm.resizeSlice(more, 0, -2);
        assertEquals(TableEditorViewModelTest.SPANS, vm.workerSpansText());
        assertEquals(new TableEditorViewModel.SpansFix(more, night, 15000), vm.spansFixProperty().get());
        vm.keepSpans();
        assertNull(vm.spansFixProperty().get());

        // new hours with an entry of their own keep it; the slice's old entry stays where it was
        assertTrue(vm.setWorkerSpans("default:5000,0-9:15000,0-10:14000"));
        vm.resizeSlice(night, 0, 1);
        assertEquals("default:5000,0-9:15000,0-10:14000", vm.workerSpansText());
        assertNull(vm.spansFixProperty().get());
    }
}
