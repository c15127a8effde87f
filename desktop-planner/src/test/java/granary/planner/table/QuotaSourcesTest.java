package granary.planner.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import granary.planner.push.PushViewModel;
import granary.planner.table.model.Draft;
import granary.planner.table.model.DraftJson;
import granary.planner.table.model.QuotaSources;
import granary.planner.table.model.QuotaSources.Source;
import granary.policy.quota.api.TimeSlice;

/**
 * Where a group's quota comes from hour by hour, the warnings for hours a group gets nothing, the
 * offer after a drawn slice, and acknowledging before a push (issue 26, part 1).
 */
class QuotaSourcesTest {

    private static String table(String name) {
        return new String(TableEditorViewModelTest.resource(name), StandardCharsets.UTF_8);
    }

    private static TableEditorViewModel editor(String name, String spans) {
        TableEditorViewModel vm = new TableEditorViewModel();
        vm.load(table(name), spans, name);
        return vm;
    }

    @Test
    void eachHourOfEachGroupIsItsOwnSliceDefaultOrNothing() {
        Draft d = DraftJson.read(table("draft-table.json"), "draft-table.json", null);
        List<QuotaSources.At> g1 = QuotaSources.of(d, "group1");
        assertEquals(Source.OWN, g1.get(3).source());
        assertEquals(8000, g1.get(3).quota().min().workers());
        assertEquals(Source.DEFAULT, g1.get(12).source());
        assertEquals(2000, g1.get(12).quota().min().workers());
        assertEquals(Source.NOTHING, g1.get(21).source(), "20-24 does not name group1: it replaces default whole");
        assertEquals(TimeSlice.parse("20-24"), g1.get(21).slice());
        assertNull(g1.get(21).quota());
        // group3 has no default entry: nothing between its slices, but that is no loss
        assertEquals(Source.NOTHING, QuotaSources.of(d, "group3").get(12).source());
    }

    @Test
    void theShippedDraftTakesGroup1sEveningAndGroup2sNightAway() {
        Draft d = DraftJson.read(table("draft-table.json"), "draft-table.json", null);
        List<String> texts = QuotaSources.losses(d).stream().map(QuotaSources.Loss::text).toList();
        assertEquals(List.of("group1 gets nothing 20:00-24:00 (it had 2000/5000 from default)",
                "group2 gets nothing 00:00-09:00 (it had 3000/5000 from default)"), texts);
    }

    @Test
    void aLossThroughMidnightIsOneRun() {
        TableEditorViewModel vm = editor("article.json", "default:5000,0-9:15000");
        // group2 already gets nothing 0-9; a slice 22-24 for group1 alone makes it 22-09
        assertNotNull(vm.drawSlice("group1", 22, 24));
        List<String> texts = QuotaSources.losses(vm.draft()).stream().map(QuotaSources.Loss::text).toList();
        assertEquals(List.of("group2 gets nothing 22:00-09:00 (it had 2000/5000 from default)"), texts);
    }

    @Test
    void aWarningIsListedAndMustBeAcknowledgedBeforeAPush() {
        TableEditorViewModel vm = editor("draft-table.json", "default:8000,0-9:15000,20-24:6000");
        assertNotNull(vm.validTableProperty().get(), "valid by the rules: " + vm.problems());
        List<String> listed = vm.listed().stream().map(TableProblem::text).toList();
        assertTrue(listed.contains("warning: group1 gets nothing 20:00-24:00 (it had 2000/5000 from default): acknowledge it before pushing"),
                listed.toString());
        assertTrue(vm.pushBlockerProperty().get().startsWith("2 warnings are not acknowledged"), vm.pushBlockerProperty().get());

        // the push refuses before asking the master anything
        PushViewModel push = new PushViewModel(Runnable::run, r -> {
            throw new AssertionError("nothing may be sent");
        });
        push.masterProperty().set(new granary.planner.master.MasterClient(java.net.URI.create("http://127.0.0.1:9"), "t"));
        push.draftSource(() -> new PushViewModel.Draft(vm.text(), vm.workerSpansText()));
        push.blockerSource(() -> vm.pushBlockerProperty().get());
        push.preview();
        assertEquals(PushViewModel.Step.REFUSED, push.stepProperty().get());
        assertTrue(push.messageProperty().get().contains("group1 gets nothing 20:00-24:00"), push.messageProperty().get());

        TableProblem g1 = vm.warnings().stream().filter(w -> "group1".equals(w.group())).findFirst().orElseThrow();
        vm.acknowledge(g1);
        assertEquals(TableProblem.Kind.ACKNOWLEDGED, vm.warnings().get(0).kind());
        assertTrue(vm.pushBlockerProperty().get().startsWith("1 warning is not acknowledged (group2 gets nothing"),
                vm.pushBlockerProperty().get());
        vm.acknowledgeAll();
        assertNull(vm.pushBlockerProperty().get());
        assertTrue(vm.listed().stream().anyMatch(p -> p.text().equals("warning (acknowledged): group1 gets nothing 20:00-24:00 (it had 2000/5000 from default)")));

        // a changed loss is a new warning: acknowledged again
        assertTrue(vm.setQuota(TimeSlice.DEFAULT, "group1", 2000, 6000));
        assertTrue(vm.pushBlockerProperty().get() != null && vm.pushBlockerProperty().get().contains("it had 2000/6000 from default"),
                vm.pushBlockerProperty().get());
    }

    @Test
    void drawingASliceOffersToCopyTheDefaultEntriesOfTheGroupsItLeavesOut() {
        TableEditorViewModel vm = editor("article.json", "default:5000,0-9:15000");
        TimeSlice noon = vm.drawSlice("group2", 12, 17);
        assertEquals(TimeSlice.parse("12-17"), noon);
        TableEditorViewModel.SliceOffer o = vm.offerProperty().get();
        assertNotNull(o);
        assertEquals(List.of("group1"), o.groups());
        assertTrue(o.text().startsWith("Slice 12-17 leaves group1 with nothing from 12:00 to 17:00"), o.text());
        assertTrue(vm.warnings().stream().anyMatch(w -> w.message().equals("group1 gets nothing 12:00-17:00 (it had 3000/5000 from default)")),
                vm.warnings().toString());

        assertTrue(vm.acceptOffer());
        assertNull(vm.offerProperty().get());
        assertEquals(3000, vm.draft().cell(noon, "group1").min().workers(), "default's entry copied");
        assertEquals(5000, vm.draft().cell(noon, "group1").max().workers());
        assertFalse(vm.warnings().stream().anyMatch(w -> w.message().contains("12:00-17:00")), vm.warnings().toString());
        vm.undo();
        assertNull(vm.draft().cell(noon, "group1"), "the copy is one undo step");
    }

    @Test
    void leavingThemWithNothingIsAnAnswerThatAcknowledgesTheirWarning() {
        TableEditorViewModel vm = editor("article.json", "default:5000,0-9:15000");
        vm.drawSlice("group2", 12, 17);
        vm.declineOffer();
        assertNull(vm.offerProperty().get());
        TableProblem w = vm.warnings().stream().filter(x -> x.message().contains("12:00-17:00")).findFirst().orElseThrow();
        assertEquals(TableProblem.Kind.ACKNOWLEDGED, w.kind());
    }

    @Test
    void aTableThatFundsNobodyIsNotPushable(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        TableEditorViewModel vm = new TableEditorViewModel();
        vm.load("{\"default\": {}}", "", "empty");
        assertNotNull(vm.validTableProperty().get());
        assertEquals("the table funds no group: pushing it would leave every group with nothing", vm.pushBlockerProperty().get());
        assertTrue(Files.notExists(dir.resolve("x")));
    }
}
