package granary.planner.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import granary.api.model.InvalidRequestException;
import granary.codec.CodecException;
import granary.planner.table.model.CellRef;
import granary.planner.table.model.Draft;
import granary.policy.quota.api.GroupQuota;
import granary.policy.quota.api.Quota;
import granary.policy.quota.api.QuotaTable;
import granary.policy.quota.api.QuotaTableCodec;
import granary.policy.quota.api.TimeSlice;

/** The editor's view model without a screen. */
class TableEditorViewModelTest {

    static final String SPANS = "default:5000,0-9:15000";
    static final TimeSlice DAY = TimeSlice.DEFAULT;
    static final TimeSlice NIGHT = TimeSlice.parse("0-9");

    @TempDir
    Path dir;

    private TableEditorViewModel vm;
    private String article;

    static byte[] resource(String name) {
        try (InputStream in = TableEditorViewModelTest.class.getResourceAsStream("/table/" + name)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @BeforeEach
    void loadTheArticlesExample() {
        article = new String(resource("article.json"), StandardCharsets.UTF_8);
        vm = new TableEditorViewModel();
        vm.load(article, SPANS, "article.json");
    }

    private Path copy(String name) throws IOException {
        Path p = dir.resolve(name);
        Files.write(p, resource(name));
        return p;
    }

    private TableProblem only(TimeSlice slice, String field) {
        List<TableProblem> at = vm.problems().stream().filter(p -> slice.equals(p.slice()) && field.equals(p.field())).toList();
        assertEquals(1, at.size(), "one " + field + " problem at slice " + slice + " in " + vm.problems());
        return at.get(0);
    }

    @Test
    void theArticlesExampleIsValidAndUnchanged() {
        assertEquals(List.of(), vm.problems());
        QuotaTable t = vm.validTableProperty().get();
        assertNotNull(t);
        assertEquals(QuotaTableCodec.read(new java.io.StringReader(article), "a", QuotaTableCodec.workerSpans(SPANS)), t);
        assertTrue(vm.validProperty().get());
        assertEquals(SPANS, vm.workerSpansText());
        assertEquals(article, vm.text());
        assertFalse(vm.dirtyProperty().get());
        assertTrue(vm.editableProperty().get());
    }

    @Test
    void aMinAboveTheWorkerSpansIsAProblemOfItsSliceUntilFixed() {
        assertTrue(vm.setQuota(NIGHT, "group3", 6000, 6000));

        TableProblem p = only(NIGHT, "MinQuota");
        assertTrue(p.message().contains("16000") && p.message().contains("15000"), p.message());
        assertNull(vm.validTableProperty().get());
        assertFalse(vm.validProperty().get());
        assertTrue(vm.dirtyProperty().get());

        assertTrue(vm.setQuota(NIGHT, "group3", 3000, 3000));
        assertEquals(List.of(), vm.problems());
        assertNotNull(vm.validTableProperty().get());
    }

    @Test
    void aTableBreakingItsWorkerSpansStillOpensWithItsProblems() {
        vm.load(article, "default:5000,0-9:20000", "master");
        TableProblem p = only(NIGHT, "MaxQuota");
        assertTrue(p.message().contains("20000 > sum of MaxQuota 18000"), p.message());
        assertEquals(2, vm.draft().slices().size());
    }

    @Test
    void undoAndRedoRestoreEachDraftExactly() {
        Draft loaded = vm.draft();
        vm.setQuota(NIGHT, "group3", 6000, 6000);
        Draft one = vm.draft();
        vm.renameGroup("group1", "tenantA");
        vm.drawSlice("group2", 22, 26);
        Draft three = vm.draft();

        vm.undo();
        vm.undo();
        assertEquals(one, vm.draft());
        assertEquals(1, vm.problems().size(), "the problem of that draft is back");
        vm.undo();
        assertEquals(loaded, vm.draft());
        assertEquals(article, vm.text(), "back to the bytes read");
        assertFalse(vm.dirtyProperty().get());
        assertTrue(vm.canRedoProperty().get());

        vm.redo();
        vm.redo();
        vm.redo();
        assertEquals(three, vm.draft());
        assertFalse(vm.canRedoProperty().get());

        vm.undo();
        vm.setQuota(DAY, "group2", 1000, 5000);
        assertFalse(vm.canRedoProperty().get(), "a new edit drops what was undone");
    }

    @Test
    void aWholeDragIsOneUndoStep() {
        Draft before = vm.draft();
        vm.beginGesture();
        TimeSlice s = vm.resizeSlice(NIGHT, 0, 1);
        s = vm.resizeSlice(s, 0, 1);
        s = vm.resizeSlice(s, -1, 0);
        vm.endGesture();
        assertEquals(TimeSlice.parse("23-11"), s);
        vm.selectionProperty().set(new CellRef(s, "group1"));
        vm.undo();
        assertEquals(before, vm.draft());
        assertEquals(new CellRef(NIGHT, "group1"), vm.selectionProperty().get(), "the selection stays on the slice");
    }

    @Test
    void renamingAndRemovingGroups() {
        assertTrue(vm.renameGroup("group1", "tenantA"));
        assertEquals(new GroupQuota("tenantA", 1, Quota.workers(3000), Quota.workers(5000)), vm.draft().cell(DAY, "tenantA"));
        assertEquals(new GroupQuota("tenantA", 1, Quota.workers(10000), Quota.workers(15000)), vm.draft().cell(NIGHT, "tenantA"));
        assertNull(vm.draft().cell(DAY, "group1"));
        assertEquals(List.of(), vm.problems());

        assertFalse(vm.renameGroup("tenantA", "group2"));
        assertTrue(vm.messageProperty().get().contains("already a group group2"), vm.messageProperty().get());

        assertTrue(vm.renameGroup("tenantA", "no spaces"));
        assertTrue(vm.problems().stream().anyMatch(p -> "name".equals(p.field()) && "no spaces".equals(p.group())), vm.problems().toString());
        vm.undo();

        assertTrue(vm.removeGroup("group3"));
        assertNull(vm.draft().cell(NIGHT, "group3"));
        assertEquals(List.of("tenantA", "group2"), vm.draft().groups().stream().map(g -> g.name()).toList());
        assertTrue(vm.removeGroup("tenantA"));
        assertNull(vm.draft().slice(NIGHT), "a range slice left without groups goes");
        assertEquals(SPANS, vm.workerSpansText(), "the WorkerSpans are the cluster's: they stay");
        assertTrue(vm.problems().stream().anyMatch(p -> p.message().contains("is not a slice of the quota table")), vm.problems().toString());

        String added = vm.addGroup();
        assertEquals("group3", added);
        assertEquals(3, vm.draft().group(added).groupId(), "the next id after those in use");
    }

    @Test
    void drawingAndResizingSlicesWrapsPastMidnight() {
        vm.setWorkerSpans(null);
        TimeSlice morning = vm.resizeSlice(NIGHT, 3, 0);
        assertEquals(TimeSlice.parse("3-9"), morning);

        TimeSlice night = vm.drawSlice("group2", 22, 26);
        assertEquals(TimeSlice.parse("22-2"), night);
        assertEquals(new GroupQuota("group2", 2, Quota.workers(2000), Quota.workers(5000)), vm.draft().cell(night, "group2"),
                "a drawn cell starts from the group's default quota");
        assertEquals(new CellRef(night, "group2"), vm.selectionProperty().get());
        assertEquals(List.of(), vm.problems());

        assertEquals(night, vm.drawSlice("group1", 26, 22), "the same hours: the group joins the slice");
        assertEquals(2, vm.draft().slice(night).cells().size());

        TimeSlice longer = vm.resizeSlice(night, -1, 1);
        assertEquals(TimeSlice.parse("21-3"), longer);
        assertEquals(2, vm.draft().slice(longer).cells().size(), "all its groups move with it");
        assertEquals(new CellRef(longer, "group1"), vm.selectionProperty().get(), "the selection follows");

        TimeSlice overlapping = vm.resizeSlice(morning, -2, 0);
        assertEquals(TimeSlice.parse("1-9"), overlapping);
        TableProblem p = only(overlapping, "hours");
        assertTrue(p.message().contains("overlap at hours 1-3"), p.message());
        assertFalse(vm.validProperty().get());

        assertEquals(overlapping, vm.setSliceHours(overlapping, longer), "the hours of another slice are refused");
        assertEquals(morning, vm.resizeSlice(overlapping, 2, 0));
        assertEquals(List.of(), vm.problems());
    }

    @Test
    void aSliceKeepsItsWorkerSpansEntryWhenMovedAndFallsBackToDefaultWhenItIsPutBack() {
        TimeSlice longer = vm.resizeSlice(NIGHT, 0, 2);
        assertEquals(TimeSlice.parse("0-11"), longer);
        assertEquals(List.of(), vm.problems(), "its entry 0-9:15000 moved with it");
        assertTrue(vm.putSpansBack());
        TableProblem p = only(longer, "MinQuota");
        assertTrue(p.message().contains("sum of MinQuota 13000 > WorkerSpans 5000"), p.message());
        vm.resizeSlice(longer, 0, -2);
        assertEquals(List.of(), vm.problems());
    }

    @Test
    void keyboardCommandsWalkSelectDeleteAndInsert() {
        vm.moveSelection(0, 0);
        assertEquals(new CellRef(DAY, "group1"), vm.selectionProperty().get());
        vm.moveSelection(1, 2);
        assertEquals(new CellRef(NIGHT, "group3"), vm.selectionProperty().get());
        vm.moveSelection(5, 5);
        assertEquals(new CellRef(NIGHT, "group3"), vm.selectionProperty().get(), "stays inside the grid");

        TimeSlice inserted = vm.insertSlice();
        assertEquals(TimeSlice.parse("9-10"), inserted, "the first free hour after the selected slice");
        assertTrue(vm.deleteSelection());
        assertNull(vm.draft().slice(inserted));

        vm.selectionProperty().set(new CellRef(NIGHT, "group3"));
        assertTrue(vm.deleteSelection());
        assertNull(vm.draft().cell(NIGHT, "group3"));
        assertNotNull(vm.draft().slice(NIGHT));
    }

    @Test
    void aProblemSelectsItsCell() {
        vm.setQuota(NIGHT, "group3", 4000, 3000);
        TableProblem p = vm.problems().stream().filter(x -> "group3".equals(x.group())).findFirst().orElseThrow();
        vm.select(p);
        assertEquals(new CellRef(NIGHT, "group3"), vm.selectionProperty().get());
    }

    @Test
    void openingAndSavingUnchangedKeepsEveryByte() throws IOException {
        Path in = copy("article.json");
        vm.open(in);
        Path out = dir.resolve("out.json");
        vm.save(out);
        assertArrayEquals(resource("article.json"), Files.readAllBytes(out));

        vm.setQuota(DAY, "group2", 1000, 5000);
        vm.undo();
        Path again = dir.resolve("again.json");
        vm.save(again);
        assertArrayEquals(resource("article.json"), Files.readAllBytes(again), "an edit undone is no edit");

        byte[] odd = "\uFEFF{\"default\":{},\r\n \"0-9\" : {\"g\": {\"MinQuota\": 0, \"MaxQuota\": 2, \"GroupId\": 7}}}\r\n"
                .getBytes(StandardCharsets.UTF_8);
        Path bom = dir.resolve("bom.json");
        Files.write(bom, odd);
        vm.open(bom);
        vm.save(out);
        assertArrayEquals(odd, Files.readAllBytes(out), "byte order mark, CRLF, field order and spacing kept");
    }

    @Test
    void anEditedTableIsSavedByTheCodecAndReadsBackEqual() throws IOException {
        vm.open(copy("article.json"));
        vm.setQuota(DAY, "group2", 1000, 6000);
        vm.drawSlice("group2", 20, 24);
        assertTrue(vm.dirtyProperty().get());
        Path out = dir.resolve("edited.json");
        vm.save(out);
        assertFalse(vm.dirtyProperty().get());
        assertEquals(out, vm.fileProperty().get());

        QuotaTable table = vm.validTableProperty().get();
        assertNotNull(table, vm.problems().toString());
        try (Reader r = Files.newBufferedReader(out)) {
            assertEquals(table, QuotaTableCodec.read(r, out.toString(), QuotaTableCodec.workerSpans(SPANS)));
        }
        String written = Files.readString(out);
        assertEquals(QuotaTableCodec.write(table), written);
        assertTrue(written.indexOf("\"default\"") < written.indexOf("\"0-9\"") && written.indexOf("\"0-9\"") < written.indexOf("\"20-24\""),
                "slices in their order: " + written);
    }

    @Test
    void aMalformedFileIsReportedWithItsPlaceAndTheDraftIsKept() throws IOException {
        vm.setQuota(DAY, "group2", 1000, 5000);
        Draft before = vm.draft();

        Path bad = copy("malformed.json");
        CodecException e = assertThrows(CodecException.class, () -> vm.open(bad));
        assertTrue(e.getMessage().contains(bad + ":2:"), e.getMessage());
        assertTrue(vm.messageProperty().get().contains("no trailing commas"), vm.messageProperty().get());
        assertSame(before, vm.draft());
        assertTrue(vm.dirtyProperty().get());
        assertNull(vm.fileProperty().get());

        assertThrows(UncheckedIOException.class, () -> vm.open(dir.resolve("missing.json")));
        assertTrue(vm.messageProperty().get().contains("no such file"), vm.messageProperty().get());
        assertThrows(InvalidRequestException.class, () -> vm.load("{}", "default:lots", "master"));
        assertSame(before, vm.draft());

        vm.undo();
        assertEquals(article, vm.text(), "the history is intact too");
    }

    @Test
    void aSuccessfulOpenCanBeUndone() throws IOException {
        vm.setQuota(DAY, "group2", 1000, 5000);
        Draft mine = vm.draft();
        vm.open(copy("resources.json"));
        vm.undo();
        assertEquals(mine, vm.draft());
    }

    @Test
    void aTableOfResourceVectorsIsShownButNotEdited() throws IOException {
        vm.load(new String(resource("resources.json"), StandardCharsets.UTF_8), null, "resources.json");
        assertFalse(vm.editableProperty().get());
        assertNotNull(vm.validTableProperty().get());
        assertTrue(vm.messageProperty().get().contains("read-only"));
        Draft before = vm.draft();
        assertFalse(vm.setQuota(DAY, "group1", 1, 2));
        assertSame(before, vm.draft());
        assertTrue(vm.messageProperty().get().contains("resource vectors"), vm.messageProperty().get());
    }

    @Test
    void workerSpansAreNotInTheFileSoTheyDoNotMakeItDirty() {
        assertTrue(vm.setWorkerSpans("default:5000,0-9:19000"));
        assertEquals("default:5000,0-9:19000", vm.workerSpansText());
        assertFalse(vm.dirtyProperty().get());
        assertEquals(1, vm.problems().size(), vm.problems().toString());
        assertFalse(vm.setWorkerSpans("default:many"));
        assertTrue(vm.messageProperty().get().contains("default:many"), vm.messageProperty().get());
        assertTrue(vm.setSliceSpans(NIGHT, 15000L));
        assertEquals(List.of(), vm.problems());
    }
}
