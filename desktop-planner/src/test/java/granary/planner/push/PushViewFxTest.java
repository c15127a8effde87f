package granary.planner.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.DialogPane;
import javafx.scene.control.ListView;
import javafx.stage.Stage;

import granary.planner.live.FakeMaster;
import granary.planner.master.MasterClient;

/**
 * Apply's one question, on a headless screen against a fake master: after the dry run, Apply opens a
 * dialog listing what changes per group and hour; Cancel there sends nothing and leaves the review
 * (step, diff, summary, message, the Apply button) exactly as it was; Apply now sends the reviewed
 * draft once, with the dry run's revision as If-Match.
 */
@ExtendWith(ApplicationExtension.class)
class PushViewFxTest {

    private static final String IN_FORCE = PushIT.ARTICLE;
    private static final String DRAFT = IN_FORCE.replace("\"MaxQuota\":3000,\"MinQuota\":3000", "\"MaxQuota\":4000,\"MinQuota\":3000");
    private static final String DIFF = "[{\"op\":\"changed\",\"path\":\"$[\\\"0-9\\\"].group3.MaxQuota\",\"from\":\"3000\",\"to\":\"4000\"}]";

    private FakeMaster master;
    private final ExecutorService background = Executors.newSingleThreadExecutor();
    private PushViewModel vm;

    @Start
    void start(Stage stage) throws IOException {
        master = new FakeMaster();
        master.offeringTableAt("/api/v1/quota");
        master.on("/api/v1/quota", r -> {
            if (r.method().equals("GET")) {
                return FakeMaster.Answer.json(200, IN_FORCE).with("ETag", "\"r1\"").with("Granary-Worker-Spans", PushIT.SPANS);
            }
            if (r.query() != null && r.query().contains("dryRun=true")) {
                return FakeMaster.Answer.json(200, "{\"dryRun\":true,\"revision\":\"r1\",\"newRevision\":\"r2\",\"diff\":" + DIFF + "}");
            }
            return FakeMaster.Answer.json(200, "{\"dryRun\":false,\"previousRevision\":\"r1\",\"revision\":\"r2\",\"diff\":" + DIFF + "}");
        });
        vm = new PushViewModel(Platform::runLater, background);
        vm.masterProperty().set(new MasterClient(master.uri(), "admin-token"));
        vm.draftSource(() -> new PushViewModel.Draft(DRAFT, PushIT.SPANS));
        stage.setScene(new Scene(new PushView(vm), 1024, 768));
        stage.show();
    }

    @AfterEach
    void stop() {
        background.shutdownNow();
        if (master != null) {
            master.close();
        }
    }

    @Test
    void applyAsksInADialogAndCancelLeavesEverythingAsItWas(FxRobot robot) throws Exception {
        robot.clickOn("#preview");
        await("the dry run", () -> vm.stepProperty().get() == PushViewModel.Step.REVIEW);
        List<String> diff = fx(() -> List.copyOf(vm.diff()));
        List<String> effect = fx(() -> List.copyOf(vm.effect()));
        String message = fx(() -> vm.messageProperty().get());
        assertEquals(List.of("group3 00:00-09:00: 3000/3000 -> 3000/4000"), effect);

        robot.clickOn("#apply");
        await("the dialog", () -> robot.lookup("#applyDialog").tryQuery().isPresent());
        DialogPane dialog = robot.lookup("#applyDialog").queryAs(DialogPane.class);
        assertEquals("Apply the draft to the master's table in force?", fx(() -> dialog.getHeaderText()));
        assertTrue(robot.lookup("#applyEntries").queryAs(javafx.scene.control.Label.class).getText()
                .startsWith("1 entry of the table in force changes (the JSON diff is on the Push tab)"));
        @SuppressWarnings("unchecked")
        ListView<String> shown = robot.lookup("#applyEffect").queryAs(ListView.class);
        assertEquals(effect, fx(() -> List.copyOf(shown.getItems())), "the dialog shows what will change");
        assertEquals(PushViewModel.Step.REVIEW, fx(() -> vm.stepProperty().get()), "nothing sent while it asks");

        robot.clickOn("#dismissApply");
        await("the dialog closed", () -> robot.lookup("#applyDialog").tryQuery().isEmpty());
        assertEquals(List.of(), loads(), "Cancel sends nothing");
        assertEquals(PushViewModel.Step.REVIEW, fx(() -> vm.stepProperty().get()));
        assertEquals(diff, fx(() -> List.copyOf(vm.diff())));
        assertEquals(effect, fx(() -> List.copyOf(vm.effect())));
        assertEquals(message, fx(() -> vm.messageProperty().get()), "the message is what it was before Apply asked");
        assertFalse(fx(() -> vm.confirmingProperty().get()));
        assertFalse(robot.lookup("#apply").queryAs(Button.class).isDisabled(), "Apply can be asked again");

        robot.clickOn("#apply");
        await("the dialog again", () -> robot.lookup("#applyDialog").tryQuery().isPresent());
        robot.clickOn("#confirmApply");
        await("the load", () -> vm.stepProperty().get() == PushViewModel.Step.APPLIED);
        List<FakeMaster.Request> loads = loads();
        assertEquals(1, loads.size(), "one load: " + loads);
        assertEquals("\"r1\"", loads.get(0).ifMatch(), "sent with the reviewed revision");
    }

    private List<FakeMaster.Request> loads() {
        return master.requests("/api/v1/quota").stream()
                .filter(r -> r.method().equals("PUT") && r.query() != null && r.query().contains("dryRun=false")).toList();
    }

    private static <T> T fx(Callable<T> c) {
        return WaitForAsyncUtils.waitForAsyncFx(5000, c);
    }

    private static void await(String what, Callable<Boolean> done) throws TimeoutException {
        try {
            WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(done).get());
        } catch (TimeoutException e) {
            throw new TimeoutException("no " + what + " within 20 s");
        }
    }
}
